"""Settings: read once at start from an environment mapping, validated, frozen.

Nothing here runs at import time. ``Settings.from_env(os.environ)`` is called by ``bot.__main__`` after
``.env`` is loaded; tests build ``Settings(...)`` directly (test-only hooks are fields with production
defaults, never environment variables).

A problem raises ``SettingsError`` whose text is ONE line saying what is wrong and how to fix it. The
token's value never appears in any message.
"""

from __future__ import annotations

import importlib.util
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

TOKEN_SHAPE = re.compile(r"^[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}$")
DB_DRIVER = "sqlite+aiosqlite"
PG_DRIVER = "postgresql+asyncpg"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
MAX_SNOWFLAKE = 2**63 - 1  # SQLite integers are signed 64-bit; every Discord snowflake fits

_TOKEN_HELP = (
    "get one from the Discord Developer Portal (https://discord.com/developers/applications → your application "
    "→ Bot → Reset Token) and put it in .env or the environment as DISCORD_TOKEN=... (see .env.example)"
)


class SettingsError(Exception):
    """A setting is missing or invalid. ``str(err)`` is one line for the operator; it never holds the token."""

    def __init__(self, line: str) -> None:
        super().__init__(" ".join(line.split()))  # one line, whatever the parts were

    @property
    def line(self) -> str:
        return str(self)


def default_database_url(cwd: Path | None = None) -> str:
    return f"{DB_DRIVER}:///{((cwd or Path.cwd()) / 'var' / 'fray.db').as_posix()}"


def is_postgres(database_url: str) -> bool:
    return database_url.startswith(f"{PG_DRIVER}://")


_URL_HELP = (
    "DATABASE_URL must be a SQLite URL for the aiosqlite driver, like sqlite+aiosqlite:////data/fray.db "
    "(absolute) or sqlite+aiosqlite:///var/fray.db (relative), or a PostgreSQL URL for asyncpg, like "
    "postgresql+asyncpg://fray:secret@db:5432/fray; leave it unset to use ./var/fray.db."
)


def _sqlite_path(url: URL) -> tuple[str, Path]:
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        raise SettingsError(
            "DATABASE_URL must name a database file (an in-memory database would lose every setting on restart), "
            "like sqlite+aiosqlite:////data/fray.db."
        )
    path = Path(database).expanduser()
    if not path.is_absolute():
        path = Path.cwd() / path
    return url.set(database=path.as_posix()).render_as_string(hide_password=False), path


def _postgres(url: URL) -> str:
    if not url.host or not url.database:
        raise SettingsError(
            "DATABASE_URL for PostgreSQL must name the server and the database, like "
            "postgresql+asyncpg://fray:secret@db:5432/fray."
        )
    if importlib.util.find_spec("asyncpg") is None:
        raise SettingsError(
            "DATABASE_URL is a PostgreSQL URL but its driver is not installed: pip install 'fray[postgres]'."
        )
    return url.render_as_string(hide_password=False)


def _database_path(url_text: str) -> tuple[str, Path | None]:
    """Validate a DATABASE_URL and return it with the database file's absolute path (``None`` for
    PostgreSQL, which has no file here)."""
    try:
        url: URL | None = make_url(url_text)
    except ArgumentError:
        url = None
    if url is not None and url.drivername == PG_DRIVER:
        return _postgres(url), None
    if url is None or url.drivername != DB_DRIVER:
        hint = ""
        if url is not None and url.get_backend_name() == "postgresql":
            hint = f" (the driver part must be {PG_DRIVER}://, not {url.drivername}://)"
        raise SettingsError(_URL_HELP + hint)
    return _sqlite_path(url)


def _snowflake(name: str, raw: str) -> int:
    text = raw.strip()
    if not text.isdecimal() or not 0 < int(text) <= MAX_SNOWFLAKE:
        raise SettingsError(f"{name} must be a Discord ID (digits only; right-click → Copy ID), not {raw!r}.")
    return int(text)


def _log_level(raw: str) -> str:
    level = raw.strip().upper()
    if level == "WARN":
        level = "WARNING"
    if level not in LOG_LEVELS:
        raise SettingsError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {raw!r}.")
    return level


def _check_token(raw: str | None) -> str:
    token = (raw or "").strip()
    if not token:
        raise SettingsError(
            f"DISCORD_TOKEN is not set: {_TOKEN_HELP}; or try Fray without Discord first: fray play."
        )
    if not TOKEN_SHAPE.match(token):
        hint = " (drop the 'Bot ' prefix)" if token.lower().startswith("bot ") else ""
        raise SettingsError(
            "DISCORD_TOKEN does not look like a bot token (three dot-separated parts; the application ID or "
            f"client secret will not do){hint}: {_TOKEN_HELP}."
        )
    return token


def _heartbeat(environ: Mapping[str, str], database_path: Path | None) -> Path:
    raw = environ.get("HEARTBEAT_FILE", "").strip()
    if not raw:
        return (database_path.parent if database_path is not None else Path.cwd() / "var") / "heartbeat"
    path = Path(raw).expanduser()
    return path if path.is_absolute() else Path.cwd() / path


def _database(environ: Mapping[str, str]) -> tuple[str, Path | None]:
    raw = environ.get("DATABASE_URL", "").strip()
    return _database_path(raw or default_database_url())


def _shards(environ: Mapping[str, str]) -> tuple[int | None, tuple[int, ...]]:
    raw_count = environ.get("SHARD_COUNT", "").strip()
    raw_ids = environ.get("SHARD_IDS", "").strip()
    if not raw_count:
        if raw_ids:
            raise SettingsError("SHARD_IDS needs SHARD_COUNT too (for example SHARD_COUNT=2 SHARD_IDS=0).")
        return None, ()
    if not raw_count.isdecimal() or int(raw_count) < 1:
        raise SettingsError(f"SHARD_COUNT must be a whole number of at least 1, not {raw_count!r}.")
    count = int(raw_count)
    ids: list[int] = []
    for part in filter(None, (p.strip() for p in raw_ids.split(","))):
        if not part.isdecimal() or int(part) >= count:
            raise SettingsError(
                f"SHARD_IDS must be comma-separated shard numbers from 0 to {count - 1}, not {raw_ids!r}."
            )
        ids.append(int(part))
    return count, tuple(sorted(set(ids)))


def heartbeat_file_from_env(environ: Mapping[str, str]) -> Path:
    """Where the heartbeat lives, without needing a token (used by ``python -m bot health``)."""
    return _heartbeat(environ, _database(environ)[1])


TRACKER_EDIT_INTERVAL = 1.0  # seconds a live tracker rests between two edits


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything the bot needs to start. Build with ``from_env`` in production, directly in tests."""

    token: str = field(repr=False)
    database_url: str = field(repr=False)  # may hold a PostgreSQL password; ``database`` is for showing
    database_path: Path | None  # the SQLite file; None for PostgreSQL
    heartbeat_file: Path
    log_level: str = "INFO"
    dev_guild_id: int | None = None
    shard_count: int | None = None
    shard_ids: tuple[int, ...] = ()
    # Test-only hooks (never read from the environment; production keeps the defaults).
    heartbeat_interval: float = 30.0
    reminder_interval: float = 30.0  # seconds between reminder-loop ticks
    guild_ready_timeout: float = 2.0  # discord.py's wait for GUILD_CREATEs after READY
    tracker_edit_interval: float = TRACKER_EDIT_INTERVAL

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        """Validate ``environ`` once. Raises ``SettingsError`` (one line) on the first problem found."""
        token = _check_token(environ.get("DISCORD_TOKEN"))
        database_url, database_path = _database(environ)
        raw_guild = environ.get("DEV_GUILD_ID", "").strip()
        shard_count, shard_ids = _shards(environ)
        return cls(
            token=token,
            database_url=database_url,
            database_path=database_path,
            heartbeat_file=_heartbeat(environ, database_path),
            log_level=_log_level(environ.get("LOG_LEVEL", "") or "INFO"),
            dev_guild_id=_snowflake("DEV_GUILD_ID", raw_guild) if raw_guild else None,
            shard_count=shard_count,
            shard_ids=shard_ids,
        )

    @classmethod
    def for_database(cls, token: str, database_path: Path, **overrides: object) -> Settings:
        """Settings over a database file (tests, tools): the URL and heartbeat follow from the path."""
        path = Path(database_path).resolve()
        values: dict[str, object] = {
            "token": token,
            "database_url": f"{DB_DRIVER}:///{path.as_posix()}",
            "database_path": path,
            "heartbeat_file": path.parent / "heartbeat",
        }
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]

    @classmethod
    def for_url(cls, token: str, database_url: str, heartbeat_file: Path, **overrides: object) -> Settings:
        """Settings over a database server (tests, tools), e.g. a PostgreSQL URL."""
        values: dict[str, object] = {
            "token": token,
            "database_url": database_url,
            "database_path": None,
            "heartbeat_file": Path(heartbeat_file).resolve(),
        }
        values.update(overrides)
        return cls(**values)  # type: ignore[arg-type]

    @property
    def postgres(self) -> bool:
        return is_postgres(self.database_url)

    @property
    def database_password(self) -> str | None:
        """The PostgreSQL password, if the URL has one (kept out of every log line)."""
        return make_url(self.database_url).password if self.database_path is None else None

    @property
    def database(self) -> str:
        """The database for logs and messages: the file, or the URL without its password."""
        if self.database_path is not None:
            return str(self.database_path)
        return make_url(self.database_url).render_as_string(hide_password=True)

    @property
    def log_level_number(self) -> int:
        return logging.getLevelNamesMapping()[self.log_level]
