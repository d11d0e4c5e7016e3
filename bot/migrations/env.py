"""Alembic environment, configured in code (see ``bot.db.alembic_config``).

``bot.db.migrate`` passes an open synchronous connection (from ``AsyncConnection.run_sync``) through
``config.attributes["connection"]``. Without one (the ``alembic`` CLI with ``-x url=...``), an async engine
is created from that URL or ``DATABASE_URL`` and the migrations run through ``run_sync``.
"""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection

from bot import models
from bot.db import create_engine
from bot.settings import default_database_url

config = context.config
target_metadata = models.metadata


def _render_item(type_: str, obj: object, autogen_context: object) -> str | bool:
    """Autogenerate writes the stored type of Fray's own column types, so revisions import nothing of ours."""
    if type_ == "type" and isinstance(obj, models.UTCDateTime):
        return "sa.DateTime()"
    return False


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,  # SQLite cannot ALTER most things; batch mode recreates tables
        compare_type=True,
        render_item=_render_item,
    )


def _run(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_async(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.run_sync(_run)
    finally:
        await engine.dispose()


def run_offline() -> None:
    url = (
        context.get_x_argument(as_dictionary=True).get("url")
        or os.environ.get("DATABASE_URL")
        or default_database_url()
    )
    context.configure(url=url, target_metadata=target_metadata, render_as_batch=True, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = (
        context.get_x_argument(as_dictionary=True).get("url")
        or os.environ.get("DATABASE_URL")
        or default_database_url()
    )
    asyncio.run(_run_async(url))


if context.is_offline_mode():
    run_offline()
else:
    run_online()
