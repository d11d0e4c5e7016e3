"""Last Gasp and the Death Save (seed "Last Gasp"; RULES.md §3 "Last Gasp").

Each of its turns a downed PC rolls Physique + Charisma or Perception (player's choice), −1D on its 2nd
Last Gasp turn, −2D on the 3rd, and so on. Table: 0–4 lose 3D HP · 5–9 lose 2D · 10–14 lose 1D ·
15–19 nothing · 20–24 +1D stored healing · 25–29 +2D · 30–34 +3D · 35+ rally (HP set to 0, then +2D, fights
again). The effect dice are a pool roll with the Wild Die (RULES.md §3: every roll has one). Dead below
−(max HP). A stabilised character makes no more Death Saves.

Our readings: the bleed-out malus counts the Death Saves actually made (``LastGasp.rounds``), so a turn the
GM skips does not deepen it; a rally also ends prone (the seed: it rejoins the combat immediately).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Outcome
from rules.systems.d6.checks import roll_check, roll_code, turn_mods
from rules.systems.d6.events import DeathSave, Mod
from rules.systems.d6.health import apply_damage, apply_heal, leave_last_gasp, set_last_gasp
from rules.systems.d6.house import HouseRules
from rules.systems.d6.pool import DieCode
from rules.systems.d6.state import D6State

DEATH_SAVE_STATS = ("charisma", "perception")


@dataclass(frozen=True, slots=True)
class Band:
    low: int
    high: int | None  # None: and over
    effect: str  # "lose", "nothing", "store", "rally"
    dice: int

    @property
    def label(self) -> str:
        return f"{self.low}+" if self.high is None else f"{self.low}–{self.high}"


DEATH_SAVE_TABLE: tuple[Band, ...] = (
    Band(0, 4, "lose", 3),
    Band(5, 9, "lose", 2),
    Band(10, 14, "lose", 1),
    Band(15, 19, "nothing", 0),
    Band(20, 24, "store", 1),
    Band(25, 29, "store", 2),
    Band(30, 34, "store", 3),
    Band(35, None, "rally", 2),
)


def death_save_band(total: int) -> Band:
    for band in DEATH_SAVE_TABLE:
        if total >= band.low and (band.high is None or total <= band.high):
            return band
    return DEATH_SAVE_TABLE[0]  # a negative total (not reachable with pools) reads as the worst row


def death_save(state: D6State, who: str, stat: str, dice: DiceSource, house: HouseRules) -> Outcome[D6State]:
    """Roll the Death Save for ``who`` on its turn and apply the table."""
    key = (stat or "").strip().lower()
    if key not in DEATH_SAVE_STATS:
        raise InvalidInput("A Death Save uses Physique with `charisma` or `perception`.")
    c = state.get(who)
    if c.status != "active" or c.last_gasp is None:
        raise NotAllowed(f"{c.name} is not in Last Gasp; there is no Death Save to make.")
    if c.last_gasp.stabilised:
        raise NotAllowed(f"{c.name} is stabilised and makes no more Death Saves.")
    turn = c.last_gasp.rounds + 1
    code = c.sheet.physique + c.sheet.attribute(key)
    mods: tuple[Mod, ...] = turn_mods(turn - 1)
    if mods:
        mods = (Mod(f"bleeding out (Last Gasp turn {turn})", -(turn - 1), "D"),)
    result = roll_check(code, mods, dice, house, f"{who} death save")
    band = death_save_band(result.total)
    state = set_last_gasp(state, who, rounds=turn)
    events: list[Event] = []
    effect_roll = None
    effect_total = 0
    stored = c.last_gasp.stored_healing
    if band.effect in ("lose", "store", "rally"):
        effect_roll = roll_code(DieCode(band.dice), dice, house, f"{who} death save {band.effect}")
        effect_total = effect_roll.total
    if band.effect == "lose":
        effect = f"loses {band.dice}D HP"
        state, events = apply_damage(state, who, effect_total, "bleeding out (Death Save)", house)
    elif band.effect == "store":
        stored += effect_total
        effect = f"+{band.dice}D stored healing"
        state = set_last_gasp(state, who, stored_healing=stored)
    elif band.effect == "rally":
        effect = "rallies: HP set to 0, then +2D"
        state, events = apply_heal(state, who, max(0, -c.hp), "rally: HP set to 0")
        state, more = apply_heal(state, who, effect_total, "rally +2D")
        events += more
        state, more = leave_last_gasp(state, who, "rally")
        events += more
    else:
        effect = "no effect"
    ds = DeathSave(
        who,
        key,
        turn,
        result.code,
        result.total,
        band.label,
        effect,
        effect_total,
        stored,
        mods,
        result.roll,
        effect_roll,
        result.roll.dice + (effect_roll.dice if effect_roll else ()),
    )
    return Outcome(state, (ds, *events))
