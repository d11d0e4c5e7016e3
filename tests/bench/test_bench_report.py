"""The benchmark's figures: percentiles, ratios to the floor of the same repetition, the targets."""

from __future__ import annotations

from bot.bench.report import (
    FLOOR,
    FLOOR_EDIT,
    FLOOR_SAVE,
    Phase,
    Report,
    Storm,
    percentile,
    ratios,
    table,
    targets,
)


def phase(command: str, conc: int, rep: int, latency: float, cpu: float, n: int = 10) -> Phase:
    return Phase(command, conc, rep, latencies=[latency] * n, wall=latency * n / conc, cpu=cpu * n)


def test_percentiles_are_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert (percentile(values, 50), percentile(values, 99), percentile(values, 100)) == (50.0, 99.0, 100.0)
    assert percentile([], 50) == 0.0 and percentile([3.0], 99) == 3.0


def test_ratios_are_to_the_floor_of_the_same_repetition_then_the_median() -> None:
    phases = [
        phase(FLOOR, 1, 1, 0.001, 0.0005),
        phase("/roll", 1, 1, 0.002, 0.001),
        phase(FLOOR, 1, 2, 0.002, 0.0005),  # a slower repetition: its own floor
        phase("/roll", 1, 2, 0.004, 0.0015),
        phase(FLOOR, 1, 3, 0.001, 0.0005),
        phase("/roll", 1, 3, 0.010, 0.0010),
    ]
    r = ratios(phases)[("/roll", 1)]
    assert r["p50"] == 2.0 and r["cpu_per_request"] == 2.0
    assert r["throughput"] == 0.5


def test_a_command_is_compared_with_the_floor_run_just_before_and_after_it() -> None:
    """The machine's speed drifts within seconds: a floor run far from the command does not count."""
    phases = [
        phase(FLOOR, 1, 1, 0.001, 0.0001),  # long before, on a faster machine
        phase(FLOOR_EDIT, 1, 1, 0.003, 0.0030),
        phase(FLOOR, 1, 1, 0.001, 0.0004),  # just before
        phase("/gm damage", 1, 1, 0.002, 0.0015),
        phase(FLOOR, 1, 1, 0.001, 0.0006),  # just after
        phase(FLOOR, 1, 2, 0.001, 0.0005),  # another repetition's
    ]
    for order, p in enumerate(phases):
        p.order = order
    r = ratios(phases)
    assert r[("/gm damage", 1)]["cpu_per_request"] == 3.0  # against (0.4 + 0.6) / 2
    assert r[(FLOOR_EDIT, 1)]["cpu_per_request"] == 12.0  # against (0.1 + 0.4) / 2
    assert r[(FLOOR, 1)]["cpu_per_request"] == 1.0


def test_a_target_names_its_worst_row_and_how_far_its_repetitions_spread() -> None:
    phases = [
        phase(command, 1, rep, 0.001, cpu)
        for rep, (floor_cpu, damage_cpu, attack_cpu) in enumerate(
            [(0.0005, 0.0010, 0.0012), (0.0005, 0.0018, 0.0013), (0.0005, 0.0014, 0.0014)], 1
        )
        for command, cpu in ((FLOOR, floor_cpu), ("/gm damage", damage_cpu), ("/attack", attack_cpu))
    ]
    measured = {what.split(" (")[0]: value for what, value, _ in targets(Report(phases=phases))}
    # /gm damage: 2.0, 3.6, 2.8× (median 2.8×) against /attack 2.4, 2.6, 2.8× (median 2.6×)
    assert measured["bot CPU per change ≤ 3×"] == "2.8× (/gm damage at concurrency 1; repetitions 2.0–3.6×)"


def test_targets_say_what_is_met() -> None:
    report = Report(
        phases=[
            phase(FLOOR, 1, 1, 0.001, 0.0005),
            phase("/gm damage", 1, 1, 0.002, 0.0020),
            phase(FLOOR, 50, 1, 0.010, 0.0005),
            phase("/gm damage", 50, 1, 0.050, 0.0010),
        ],
        storm=Storm(commands=1000, answered=990, late=10, applied=1000, unanswered_changes=10),
        rss=100 * 2**20,
        rss_peak=110 * 2**20,
        encounters=10_000,
    )
    met = {what.split(" (")[0].split(":")[0]: ok for what, _, ok in targets(report)}
    assert met == {
        "bot CPU per change ≤ 3×": False,  # 4× at concurrency 1
        "p50 at concurrency 1 ≤ 3×": True,
        "p99 at concurrency 50 ≤ 4×": False,
        "throughput at concurrency 50 ≥ ½": False,
        "1000 concurrent changes in one channel": False,
        "RSS ≤ 120 MB with 10,000 stored encounters": True,
    }
    printed = table(report)
    assert "10 late" in printed and "110 MB" in printed


def test_the_floor_editing_or_saving_is_a_reference_row_not_a_target() -> None:
    """Far slower than the floor, they are listed (as ratios to the floor) but never judged."""
    phases = [
        phase(FLOOR, 1, 1, 0.001, 0.0005),
        phase(FLOOR_EDIT, 1, 1, 0.010, 0.0050),
        phase(FLOOR_SAVE, 1, 1, 0.020, 0.0100),
        phase("/gm damage", 1, 1, 0.002, 0.0010),
    ]
    report = Report(phases=phases)
    assert ratios(phases)[(FLOOR_EDIT, 1)]["cpu_per_request"] == 10.0
    assert ratios(phases)[(FLOOR_SAVE, 1)]["cpu_per_request"] == 20.0
    measured = {what.split(" (")[0]: value for what, value, _ in targets(report)}
    assert measured["bot CPU per change ≤ 3×"] == "2.0× (/gm damage at concurrency 1)"
    assert measured["p50 at concurrency 1 ≤ 3×"] == "2.0× (/gm damage at concurrency 1)"
    rows = [line.split()[:3] for line in table(report).splitlines() if line.startswith("/")]
    assert rows == [
        ["/noop", "1", "1.0×"],
        ["/noop", "edit:true", "1"],
        ["/noop", "save:true", "1"],
        ["/gm", "damage", "1"],
    ]
