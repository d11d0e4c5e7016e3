"""Figures of the benchmark and the ratio table (pure: no I/O, no clock)."""

from __future__ import annotations

import math
import operator
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

FLOOR = "/noop"
FLOOR_EDIT = "/noop edit:true"  # the floor also editing one message: a reference row, not a target
FLOOR_SAVE = "/noop save:true"  # the floor also saving a change on SQLite first: a reference row too
REFERENCES = (FLOOR, FLOOR_EDIT, FLOOR_SAVE)
CHANGES = ("/gm damage", "/attack")  # the commands that change an encounter
MB = 1024 * 1024


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), math.ceil(q / 100 * len(ordered))))
    return ordered[rank - 1]


@dataclass
class Phase:
    """One command at one concurrency in one repetition: what the driver saw and the bot spent."""

    command: str
    concurrency: int
    repetition: int
    latencies: list[float] = field(default_factory=list)  # seconds, answered requests only
    wall: float = 0.0  # seconds from the first request to the last answer
    cpu: float = 0.0  # seconds of the bot process (user + system)
    failed: int = 0  # no answer, a late one, or one Discord would reject
    refused: int = 0  # answered privately where a public answer was expected
    order: int = 0  # its place in the run: what a command is compared with is the floor run next to it

    @property
    def requests(self) -> int:
        return len(self.latencies) + self.failed

    @property
    def p50(self) -> float:
        return percentile(self.latencies, 50)

    @property
    def p99(self) -> float:
        return percentile(self.latencies, 99)

    @property
    def throughput(self) -> float:
        return len(self.latencies) / self.wall if self.wall > 0 else 0.0

    @property
    def cpu_per_request(self) -> float:
        return self.cpu / self.requests if self.requests else 0.0


@dataclass
class Storm:
    """Many concurrent changes in one channel, each by another member."""

    commands: int = 0
    answered: int = 0  # a valid answer, in time
    late: int = 0  # no initial response within the deadline (Discord: "The application did not respond")
    rejected: int = 0  # another answer Discord would reject
    applied: int = 0  # changes in the encounter's log
    lost: int = 0  # told it was applied, but not in the log
    unanswered_changes: int = 0  # in the log, but the member was never told
    seconds: float = 0.0


@dataclass
class Report:
    phases: list[Phase] = field(default_factory=list)
    storm: Storm | None = None
    rss: int = 0  # bytes, the Fray process at the end
    rss_peak: int = 0
    rss_idle: int = 0  # bytes, the Fray process after storing the encounters and warming up, before the load
    encounters: int = 0  # stored when RSS was read
    load: str = ""  # the machine's load average while measuring
    database: str = ""  # Fray's database: which one, which version, where (never a password)


METRICS = ("p50", "p99", "throughput", "cpu_per_request")


def ratios(phases: Iterable[Phase]) -> dict[tuple[str, int], dict[str, float]]:
    """Median over repetitions of each metric of each (command, concurrency), as a ratio to the floor's
    figure next to it (``floor_next_to``)."""
    return _medians(ratio_samples(phases))


def _medians(
    samples: dict[tuple[str, int], dict[str, list[float]]],
) -> dict[tuple[str, int], dict[str, float]]:
    return {key: {m: statistics.median(v) for m, v in row.items()} for key, row in samples.items()}


def ratio_samples(phases: Iterable[Phase]) -> dict[tuple[str, int], dict[str, list[float]]]:
    """Each repetition's ratio of each metric of each (command, concurrency), in the order they ran."""
    phases = list(phases)
    floors = [p for p in phases if p.command == FLOOR]
    out: dict[tuple[str, int], dict[str, list[float]]] = {}
    for phase in phases:
        near = [phase] if phase.command == FLOOR else floor_next_to(phase, floors)
        if not near:
            continue
        row = out.setdefault((phase.command, phase.concurrency), {m: [] for m in METRICS})
        for metric in METRICS:
            base = statistics.fmean(getattr(f, metric) for f in near)
            row[metric].append(getattr(phase, metric) / base if base else float("inf"))
    return out


def floor_next_to(phase: Phase, floors: Sequence[Phase]) -> list[Phase]:
    """The floor phases ``phase`` is compared with: of its repetition and concurrency, the last one run
    before it and the first one after it. The machine's speed drifts by a third within seconds (a shared
    host), so a ratio to a floor measured a minute away measured the drift as much as Fray; phases without
    an order (all 0) take their repetition's floor."""
    same = [f for f in floors if f.concurrency == phase.concurrency and f.repetition == phase.repetition]
    before = [f for f in same if f.order < phase.order]
    after = [f for f in same if f.order > phase.order]
    near = [max(before, key=_ORDER)] if before else []
    near += [min(after, key=_ORDER)] if after else []
    return near or same[:1]


_ORDER = operator.attrgetter("order")


def absolute(phases: Iterable[Phase]) -> dict[tuple[str, int], dict[str, float]]:
    grouped: dict[tuple[str, int], list[Phase]] = {}
    for p in phases:
        grouped.setdefault((p.command, p.concurrency), []).append(p)
    return {
        key: {m: statistics.median(getattr(p, m) for p in group) for m in METRICS}
        | {"failed": sum(p.failed for p in group), "refused": sum(p.refused for p in group)}
        for key, group in grouped.items()
    }


def _phase_targets(phases: Sequence[Phase]) -> list[tuple[str, str, bool]]:
    samples = ratio_samples(phases)
    r = _medians(samples)
    fray = sorted({p.command for p in phases} - set(REFERENCES))
    concs = sorted({p.concurrency for p in phases})
    if not concs:
        return []

    def worst(
        metric: str, commands: Iterable[str], at: Iterable[int], digits: int, pick=max
    ) -> tuple[float, str]:
        """The worst median ratio, and which row it is with its repetitions' spread (a phase lasts under a
        second on a host whose speed drifts: the spread says how far one run can be trusted)."""
        keys = [(c, n) for c in commands for n in at if (c, n) in r]
        if not keys:
            return float("nan"), "nan"
        key = pick(keys, key=lambda k: r[k][metric])
        value, each = r[key][metric], samples[key][metric]
        spread = f"; repetitions {min(each):.{digits}f}–{max(each):.{digits}f}×" if len(each) > 1 else ""
        return value, f"{value:.{digits}f}× ({key[0]} at concurrency {key[1]}{spread})"

    low, high = concs[0], concs[-1]
    cpu, cpu_text = worst("cpu_per_request", [c for c in fray if c in CHANGES], concs, 1)
    p50, p50_text = worst("p50", fray, [low], 1)
    p99, p99_text = worst("p99", fray, [high], 1)
    tput, tput_text = worst("throughput", fray, [high], 2, pick=min)
    return [
        ("bot CPU per change ≤ 3× (worst)", cpu_text, cpu <= 3),
        (f"p50 at concurrency {low} ≤ 3× (worst)", p50_text, p50 <= 3),
        (f"p99 at concurrency {high} ≤ 4× (worst)", p99_text, p99 <= 4),
        (f"throughput at concurrency {high} ≥ ½ (worst)", tput_text, tput >= 0.5),
    ]


def targets(report: Report) -> list[tuple[str, str, bool]]:
    """The targets: (what, measured, met)."""
    out = _phase_targets(report.phases)
    s = report.storm
    if s is not None:
        bad = (s.late, s.lost, s.unanswered_changes)
        out.append(
            (
                f"{s.commands} concurrent changes in one channel: 0 late, 0 lost, 0 unanswered",
                "{} late, {} lost, {} unanswered".format(*bad),
                bad == (0, 0, 0),
            )
        )
    if report.rss:
        mb = report.rss_peak / MB
        out.append(
            (f"RSS ≤ 120 MB with {report.encounters:,} stored encounters (peak)", f"{mb:.0f} MB", mb <= 120)
        )
    return out


def table(report: Report) -> str:
    """The ratio table (and the absolute figures it was computed from)."""
    r, a = ratios(report.phases), absolute(report.phases)
    reps = len({p.repetition for p in report.phases})
    lines = [f"database: {report.database}"] if report.database else []
    lines += [
        f"Fray against the floor (a bare discord.py bot answering /noop), same fake Discord, same run; "
        f"median of {reps} repetition(s), each against the floor run just before and after it; "
        f"machine load {report.load}",
        f"(references: {FLOOR_EDIT} is the floor also editing one message of its own per request, as a "
        f"live tracker is; {FLOOR_SAVE} is the floor first saving a change on SQLite the cheapest way Python "
        "can, a versioned UPDATE of a 7 KB state and a log INSERT)",
        "",
        f"{'command':<18}{'conc':>5}  {'p50':>7} {'p99':>7} {'req/s':>7} {'CPU/req':>8}   "
        f"{'p50 ms':>8} {'p99 ms':>8} {'req/s':>8} {'CPU ms':>7} {'failed':>6} {'refused':>7}",
    ]
    first = {command: i for i, command in enumerate(REFERENCES)}  # the references, then Fray's commands
    keys = sorted(a, key=lambda k: (first.get(k[0], len(first)), k[0], k[1]))
    for key in keys:
        command, conc = key
        ratio = r.get(key, {})
        fig = a[key]
        rcells = (
            f"{ratio['p50']:>6.1f}× {ratio['p99']:>6.1f}× {ratio['throughput']:>6.2f}× {ratio['cpu_per_request']:>7.1f}×"
            if ratio
            else " " * 33
        )
        lines.append(
            f"{command:<18}{conc:>5}  {rcells}   {fig['p50'] * 1e3:>8.1f} {fig['p99'] * 1e3:>8.1f} "
            f"{fig['throughput']:>8.0f} {fig['cpu_per_request'] * 1e3:>7.2f} {int(fig['failed']):>6} "
            f"{int(fig['refused']):>7}"
        )
    s = report.storm
    if s is not None:
        lines += [
            "",
            f"storm: {s.commands} concurrent /gm set in one channel, one member each, {s.seconds:.1f} s: "
            f"{s.answered} answered in time, {s.late} late, {s.rejected} rejected; {s.applied} applied, "
            f"{s.lost} lost, {s.unanswered_changes} applied without an answer",
        ]
    if report.rss:
        lines.append(
            f"memory: Fray RSS {report.rss / MB:.0f} MB (peak {report.rss_peak / MB:.0f} MB; "
            f"{report.rss_idle / MB:.0f} MB before the load) with {report.encounters:,} stored encounters"
        )
    lines += ["", "targets:"]
    lines += [f"  [{'x' if met else ' '}] {what}: {measured}" for what, measured, met in targets(report)]
    return "\n".join(lines)
