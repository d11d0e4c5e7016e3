"""A fresh database per test: a SQLite file under the test's ``tmp_path`` (the default), or, with
``FRAY_TEST_DATABASE_URL=postgresql+asyncpg://user@host:port/db`` set, a new PostgreSQL database on that
server, dropped after the test (``.ci/run`` runs the suite once each way)."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from sqlalchemy.engine import make_url

SERVER_URL = os.environ.get("FRAY_TEST_DATABASE_URL", "").strip()
ON_POSTGRES = bool(SERVER_URL)


async def _admin(server_url: str, statement: str) -> None:
    import asyncpg

    url = make_url(server_url).set(drivername="postgresql")
    connection = await asyncpg.connect(url.render_as_string(hide_password=False))
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


def _run(server_url: str, statement: str) -> None:
    # Fixtures may run while the test's event loop exists; a thread of its own keeps the loops apart.
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, _admin(server_url, statement)).result(timeout=60)


@contextmanager
def postgres_database(server_url: str = SERVER_URL) -> Iterator[str]:
    """A new, empty database on the server; yields its URL and drops it afterwards (even if connected)."""
    name = f"fray_test_{uuid.uuid4().hex[:16]}"
    # template0 with FILE_COPY: a few tens of milliseconds on a small cluster (WAL_LOG takes ~10×).
    _run(server_url, f'CREATE DATABASE "{name}" TEMPLATE template0 STRATEGY FILE_COPY')
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        _run(server_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
