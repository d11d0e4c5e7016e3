"""Last Gasp and the Death Save (seed "Last Gasp"; RULES.md §3 "Last Gasp").

Each of its turns a downed PC rolls Physique + Charisma or Perception (player's choice), −1D on its 2nd
Last Gasp turn, −2D on the 3rd, and so on. Table: 0–4 lose 3D HP · 5–9 lose 2D · 10–14 lose 1D ·
15–19 nothing · 20–24 +1D stored healing · 25–29 +2D · 30–34 +3D · 35+ rally (HP set to 0, then +2D, fights
again). The effect dice are a pool roll with the Wild Die (RULES.md §3: every roll has one). Dead below
−(max HP). A stabilised character makes no more Death Saves.

Owed saves (RULES.md §4): every turn that begins in Last Gasp is a Last Gasp turn. ``begin_turn`` counts it
(``LastGasp.rounds``) and marks the Death Save owed; the save pays it; the turn cannot end while it is owed,
unless a GM skips it (``skip``), and a skipped turn still counts, so the malus counts Last Gasp turns, not
saves made. Our readings: a character that goes down during a turn makes its first Death Save on its own
next turn (the turn it fell in began before Last Gasp); a Death Save made outside a counted turn (a GM tool,
or a state from before saves were owed) counts as the next Last Gasp turn; a rally also ends prone (the
seed: it rejoins the combat immediately).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.dice import DiceSource
from rules.errors import InvalidInput, NotAllowed
from rules.events import Event, Outcome
from rules.systems.d6.checks import roll_check, roll_code, turn_mods
from rules.systems.d6.events import DeathSave, DeathSaveSkipped, Mod
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


def owes_death_save(state: D6State, who: str) -> bool:
    c = state.get(who)
    return c.status == "active" and c.last_gasp is not None and c.last_gasp.save_owed


def begin_turn(state: D6State, who: str) -> D6State:
    """A turn of ``who`` begins: in Last Gasp (not stabilised) it is one more Last Gasp turn, save owed."""
    c = state.get(who)
    lg = c.last_gasp
    if c.status != "active" or lg is None or lg.stabilised:
        return state
    return set_last_gasp(state, who, rounds=lg.rounds + 1, save_owed=True)


def skip(state: D6State, who: str, by: str = "GM") -> Outcome[D6State]:
    """The GM lets the owed Death Save go: the turn may end; it still counted as a Last Gasp turn."""
    c = state.get(who)
    if not owes_death_save(state, who):
        raise NotAllowed(f"{c.name} owes no Death Save now.")
    assert c.last_gasp is not None
    state = set_last_gasp(state, who, save_owed=False)
    return Outcome(state, (DeathSaveSkipped(who, c.last_gasp.rounds, by),))


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
    # The running Last Gasp turn was counted when it began; otherwise this save counts as the next one.
    turn = c.last_gasp.rounds if c.last_gasp.save_owed else c.last_gasp.rounds + 1
    code = c.sheet.physique + c.sheet.attribute(key)
    mods: tuple[Mod, ...] = turn_mods(turn - 1)
    if mods:
        mods = (Mod(f"bleeding out (Last Gasp turn {turn})", -(turn - 1), "D"),)
    result = roll_check(code, mods, dice, house, f"{who} death save")
    band = death_save_band(result.total)
    state = set_last_gasp(state, who, rounds=turn, save_owed=False)
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
