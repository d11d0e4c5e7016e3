"""What a benchmark run measures: its sizes, from the command line (``python -m bot bench --help``).

Light on purpose: ``bot.__main__`` builds its parser from here without importing the driver."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path


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

    def requests_at(self, concurrency: int) -> int:
        return self.requests.get(concurrency, 10 * concurrency)


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
        "--workdir", type=Path, help="databases and bot logs (default: a new temporary folder)"
    )
    parser.add_argument("--json", type=Path, help="also write the raw figures to this file")


def options_from(args: argparse.Namespace) -> Options:
    options = Options(repetitions=args.repetitions, workdir=args.workdir, json=args.json)
    if args.quick:
        options.requests = {c: max(20, n // 5) for c, n in options.requests.items()}
        options.storm, options.encounters = 200, 1000
    if args.storm is not None:
        options.storm = args.storm
    if args.encounters is not None:
        options.encounters = args.encounters
    return options
