"""``/encounter log`` lines read as the players' words where the stored fields allow it: times as
``minute:segment``, D6 die codes as ``3D+1``, a record's flags as yes (a no left out), no repeated name."""

from __future__ import annotations

from cogs.text.log import event_line

NAMES = {"1": "Vale", "2": "Orn"}


def test_kaernest_times_read_as_minute_and_segment() -> None:
    declared = {"kind": "ActionDeclared", "combatant": "1", "minute": 2, "segment": 30, "lands_minute": 2,
                "lands_segment": 5, "speed": 5}  # fmt: skip
    assert (
        event_line(declared, NAMES)
        == "*action declared* · combatant = Vale · at = 2:30 · lands at = 2:05 · speed = 5"
    )
    clock = {"kind": "ClockAdvanced", "from_minute": 1, "from_segment": 11, "minute": 1, "segment": 10}
    assert event_line(clock, NAMES) == "*clock advanced* · from = 1:11 · to = 1:10"


def test_records_read_without_code_words_and_a_name_is_not_repeated() -> None:
    rolled = {"kind": "AttackRolled", "attacker": "1", "code": {"dice": 3, "pips": 1}, "crit_percent": 300.0,
              "attack": {"skill_name": "Claws", "success": True, "critical_failure": False, "margin": 0}}  # fmt: skip
    line = event_line(rolled, NAMES)
    assert line == (
        "*attack rolled* · attacker = Vale · code = 3D+1 · crit percent = 300 · "
        "attack = (skill name: Claws, success: yes, margin: 0)"
    ), line
    ended = {"kind": "TurnEnded", "combatant": "2", "name": "Orn", "reason": "player", "delay_lost": 3}
    assert event_line(ended, NAMES) == "*turn ended* · combatant = Orn · reason = player · delay lost = 3"
