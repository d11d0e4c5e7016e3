"""``python -m bot`` / ``fray``: load .env → settings → logging → run.

    fray                 run the bot (migrations are applied first)
    fray migrate         apply migrations and exit
    fray sync [--force]  sync the slash commands (--force: even when unchanged) and exit
    fray health          exit 0 if the heartbeat file is fresher than 90 s, else 1 (Docker HEALTHCHECK)
    fray revision MSG    autogenerate a migration from the models (developers)
    fray bench [--quick] the load benchmark against a bare discord.py bot (developers; ``bot.bench``)
    fray play [--port N] [--open] [--demo]
                         try Fray without Discord: the real bot on a loopback Discord, in the browser

A settings problem prints one line to stderr and exits with status 2 (no traceback).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from dotenv import load_dotenv

from bot.bench.options import add_arguments as add_bench_arguments
from bot.settings import LOG_LEVELS, Settings, SettingsError, heartbeat_file_from_env

HEALTH_MAX_AGE = 90.0
EXIT_SETTINGS = 2

log = logging.getLogger("bot")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fray", description="Fray: tabletop combat for Discord play-by-chat."
    )
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the bot (default)")
    sub.add_parser("migrate", help="apply database migrations and exit")
    sync = sub.add_parser("sync", help="sync slash commands and exit")
    sync.add_argument("--force", action="store_true", help="sync even when the commands did not change")
    sub.add_parser("health", help="exit 0 when the heartbeat is fresh (Docker HEALTHCHECK)")
    revision = sub.add_parser("revision", help="autogenerate a migration from the models")
    revision.add_argument("message")
    add_bench_arguments(sub.add_parser("bench", help="the load benchmark (developers)"))
    play = sub.add_parser(
        "play", help="try Fray without Discord: the real bot on a loopback Discord, played in the browser"
    )
    play.add_argument("--port", type=int, default=None, help="port on 127.0.0.1 (default 8765)")
    play.add_argument("--open", action="store_true", help="open the page in the default browser")
    play.add_argument("--demo", action="store_true", help="seat the demo table: characters for every player")
    return parser


def _play(args: argparse.Namespace) -> int:
    """``fray play``: needs no token and never touches the production database."""
    from bot.logs import setup_logging
    from bot.playground.run import DEFAULT_PORT, play, playground_database

    level = os.environ.get("LOG_LEVEL", "").strip().upper()
    setup_logging(level if level in LOG_LEVELS else "WARNING", secrets=[])
    port = DEFAULT_PORT if args.port is None else args.port
    if not 0 <= port <= 65535:
        print(f"fray: --port must be 0-65535 (0: any free port), not {port}", file=sys.stderr)
        return EXIT_SETTINGS
    try:
        asyncio.run(play(port=port, demo=args.demo, open_page=args.open, database_path=playground_database()))
    except KeyboardInterrupt:
        return 130
    except OSError as err:
        print(
            f"fray: cannot serve the playground on 127.0.0.1:{port} ({err.strerror}); try --port 0",
            file=sys.stderr,
        )
        return 1
    return 0


def health(path: Path, *, max_age: float = HEALTH_MAX_AGE, now: float | None = None) -> int:
    try:
        age = (time.time() if now is None else now) - path.stat().st_mtime
    except OSError:
        return 1
    return 0 if age < max_age else 1


async def _migrate(settings: Settings) -> None:
    from bot.db import create_engine, migrate

    engine = create_engine(settings.database_url, database_path=settings.database_path)
    try:
        revision = await migrate(engine)
        log.info("database %s is at revision %s", settings.database, revision)
    finally:
        await engine.dispose()


async def _revision(settings: Settings, message: str) -> None:
    from bot.db import create_engine, make_revision, migrate

    engine = create_engine(settings.database_url, database_path=settings.database_path)
    try:
        await migrate(engine)
        await make_revision(engine, message)
    finally:
        await engine.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    command = args.command or "run"
    if command == "bench" and args.change_path:
        from bot.bench.change_path import main as change_path

        return change_path(args.changes, args.database_url)
    if command == "bench":
        from bot.bench.run import main as bench

        return bench(args)
    load_dotenv(Path.cwd() / ".env", override=False)
    if command == "play":
        return _play(args)
    if command == "health":
        try:
            return health(heartbeat_file_from_env(os.environ))
        except SettingsError as err:
            print(f"fray: {err}", file=sys.stderr)
            return 1  # Docker reserves 2; any failure is "unhealthy"
    try:
        settings = Settings.from_env(os.environ)
    except SettingsError as err:
        print(f"fray: {err}", file=sys.stderr)
        return EXIT_SETTINGS

    from bot.logs import setup_logging

    setup_logging(settings.log_level, secrets=[settings.token, settings.database_password or ""])
    try:
        if command == "migrate":
            asyncio.run(_migrate(settings))
        elif command == "revision":
            asyncio.run(_revision(settings, args.message))
        elif command == "sync":
            from bot.app import sync_once

            result = asyncio.run(sync_once(settings, force=args.force))
            if result is None:
                return 1
            log.info("%s: %s", result.scope, "synced" if result.synced else "unchanged, not synced")
        else:
            from bot.app import run_bot

            asyncio.run(run_bot(settings))
    except KeyboardInterrupt:
        return 130
    except Exception as err:
        import discord

        if isinstance(err, discord.LoginFailure):
            log.error(
                "Discord refused the token (DISCORD_TOKEN): reset it in the Developer Portal and update .env"
            )
            return EXIT_SETTINGS
        log.exception("fray stopped with an error")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
