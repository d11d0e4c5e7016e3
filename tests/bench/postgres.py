"""The benchmark's own databases on the test server (``FRAY_TEST_DATABASE_URL``), to see they are dropped."""

from __future__ import annotations

from sqlalchemy.engine import make_url

from tests.databases import SERVER_URL


async def bench_databases() -> set[str]:
    import asyncpg

    url = make_url(SERVER_URL).set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(url, timeout=30)
    try:
        rows = await connection.fetch("SELECT datname FROM pg_database WHERE datname LIKE 'fray_bench_%'")
    finally:
        await connection.close()
    return {r["datname"] for r in rows}
