"""What a benchmark run measures: its sizes, from the command line (``python -m bot bench --help``).

Light on purpose: ``bot.__main__`` builds its parser from here without importing the driver."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from bot.settings import PG_DRIVER

FRAY_COMMANDS = ("/roll", "/encounter status", "/gm damage", "/attack")


@dataclass
class Options:
    repetitions: int = 3
    concurrencies: tuple[int, ...] = (1, 10, 50)
    channels: int = 50
    requests: dict[int, int] = field(default_factory=lambda: {1: 100, 10: 300, 50: 500})
    storm: int = 1000
    encounters: int = 10_000
    workdir: Path | None = None
    json: Path | None = None
    database_url: str | None = None  # a PostgreSQL server; None: SQLite, a file in the work folder
    commands: tuple[str, ...] = FRAY_COMMANDS  # Fray's commands measured (the floor always is)

    def requests_at(self, concurrency: int) -> int:
        return self.requests.get(concurrency, 10 * concurrency)


def server_url(text: str) -> str:
    """``--database-url``: a PostgreSQL server the bench may create (and drop) a database on."""
    try:
        url = make_url(text.strip())
    except ArgumentError:
        url = None
    if url is None or url.drivername != PG_DRIVER or not url.host:
        raise argparse.ArgumentTypeError(
            f"must be a PostgreSQL server URL like {PG_DRIVER}://user@127.0.0.1:5432/postgres "
            "(the bench creates a database of its own there and drops it afterwards); leave it out for SQLite"
        )
    return url.render_as_string(hide_password=False)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--quick", action="store_true", help="a fifth of the requests, a 200-command storm, 1,000 encounters"
    )
    parser.add_argument("--repetitions", type=int, default=3, help="interleaved repetitions (default 3)")
    parser.add_argument("--storm", type=int, help="concurrent changes in one channel (default 1000)")
    parser.add_argument(
        "--encounters", type=int, help="encounters stored when memory is read (default 10000)"
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        help="databases and bot logs, kept (default: a new temporary folder, removed unless the run fails)",
    )
    parser.add_argument("--json", type=Path, help="also write the raw figures to this file")
    parser.add_argument(
        "--only",
        action="append",
        choices=FRAY_COMMANDS,
        metavar="COMMAND",
        help=f"measure only this Fray command (repeatable; default all of {', '.join(FRAY_COMMANDS)})",
    )
    parser.add_argument(
        "--change-path",
        action="store_true",
        help="instead: the change path alone, in process (CPU and statements per step; bot.bench.change_path)",
    )
    parser.add_argument(
        "--changes", type=int, default=1000, help="with --change-path: steps per repetition (default 1000)"
    )
    parser.add_argument(
        "--database-url",
        type=server_url,
        metavar="postgresql+asyncpg://USER@HOST:PORT/DB",
        help="run Fray on PostgreSQL: a fresh database on this server, dropped at the end (default: SQLite)",
    )


def options_from(args: argparse.Namespace) -> Options:
    options = Options(
        repetitions=args.repetitions, workdir=args.workdir, json=args.json, database_url=args.database_url
    )
    if args.quick:
        options.requests = {c: max(20, n // 5) for c, n in options.requests.items()}
        options.storm, options.encounters = 200, 1000
    if args.storm is not None:
        options.storm = args.storm
    if args.encounters is not None:
        options.encounters = args.encounters
    if args.only:
        options.commands = tuple(c for c in FRAY_COMMANDS if c in args.only)
    return options
