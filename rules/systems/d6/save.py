"""The save score (seed "Defending", "Blocking", "Parrying", "Dodging", Grappling's stagger stacks, Last Gasp;
RULES.md §3 "Save score").

Natural save 10, +1 per Agility die above 3; −2 per staggered stack (grapple counter points against the
defender, the GM's stacks, a take-down's stagger); pinned 0; Last Gasp 10; a parry overwhelmed or
backstabbed: 8 until the defender's next turn. Active defenses: block (+AV, a shield band), parry (the roll,
vs up to ``limit`` attackers, not vs ranged), dodge (the roll, vs ``limit`` attacks, then natural); total
defense +5. A called shot adds the house bonus on top. Never below 0.

Reading (RULES.md silent): staggered stacks also lower a parry/dodge/block save, and "save 8" for an
overwhelmed parry is lowered by other stacks the defender carries.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.systems.d6.events import Mod
from rules.systems.d6.sheet import Sheet
from rules.systems.d6.state import Combatant, D6State

NATURAL_SAVE = 10
LAST_GASP_SAVE = 10
OVERWHELMED_SAVE = 8
PINNED_SAVE = 0
TOTAL_DEFENSE_BONUS = 5
STAGGER_STEP = 2


def natural_save(sheet: Sheet) -> int:
    """10, +1 per Agility die above 3 (seed: Orn, Agility 4 → 11)."""
    return NATURAL_SAVE + max(0, sheet.agility.dice - 3)


def grapple_stacks(state: D6State, cid: str) -> int:
    """Counter points against ``cid`` over all its grapples (each is one staggered stack)."""
    if not state.grapples:  # most of a fight: the tracker asks for every combatant after every change
        return 0
    return sum(max(0, -g.toward(cid)) for g in state.grapples_of(cid))


def other_stacks(state: D6State, cid: str) -> int:
    """Staggered stacks that do not come from grapples (GM, take-down, an overwhelmed parry)."""
    return _own_stacks(state.get(cid))


def _own_stacks(c: Combatant) -> int:
    return c.staggered + (1 if c.stagger_turns > 0 else 0) + (1 if c.overwhelmed else 0)


def stagger_stacks(state: D6State, cid: str) -> int:
    return stagger_stacks_of(state, state.get(cid))


def stagger_stacks_of(state: D6State, c: Combatant) -> int:
    """``stagger_stacks`` of a combatant at hand."""
    return grapple_stacks(state, c.id) + _own_stacks(c)


def is_pinned(state: D6State, cid: str) -> bool:
    return bool(state.grapples) and any(g.pinned_id() == cid for g in state.grapples_of(cid))


@dataclass(frozen=True, slots=True)
class SaveResult:
    """The save an attack meets. ``uses``: "parry"/"dodge" when that defense covered it; ``overwhelms``:
    this attack breaks a parry; ``band``: the shield band (inclusive) when blocking."""

    value: int
    source: str
    parts: tuple[Mod, ...]
    uses: str = ""
    overwhelms: str = ""
    band: tuple[int, int] | None = None
    staggered: bool = False
    total_defense: bool = False


def _stacks_parts(state: D6State, cid: str) -> tuple[int, list[Mod]]:
    c = state.get(cid)
    parts: list[Mod] = []
    grapple = grapple_stacks(state, cid)
    if grapple:
        parts.append(Mod(f"staggered ×{grapple} (grapple)", -STAGGER_STEP * grapple))
    other = c.staggered + (1 if c.stagger_turns > 0 else 0)
    if other:
        parts.append(Mod(f"staggered ×{other}", -STAGGER_STEP * other))
    return sum(p.value for p in parts), parts


def save_against(
    state: D6State,
    defender: str,
    attacker: str = "",
    *,
    ranged: bool = False,
    backstab: bool = False,
    called_bonus: int = 0,
) -> SaveResult:
    """The save ``defender`` has against this attack (pure: the caller records what the defense used)."""
    c = state.get(defender)
    staggered = stagger_stacks(state, defender) > 0
    total_def = bool(c.defense and c.defense.total)
    called = [Mod("called shot", called_bonus)] if called_bonus else []

    def done(base: int, source: str, parts: list[Mod], **kw) -> SaveResult:
        allparts = parts + called
        value = max(0, base + sum(p.value for p in allparts))
        return SaveResult(
            value,
            source,
            (Mod(source, base), *allparts),
            staggered=kw.pop("staggered", staggered),
            total_defense=total_def,
            **kw,
        )

    if is_pinned(state, defender):
        return done(PINNED_SAVE, "pinned", [], staggered=True)
    if c.last_gasp is not None:
        return done(LAST_GASP_SAVE, "last gasp", [])
    _, stack_parts = _stacks_parts(state, defender)
    if c.overwhelmed:
        return done(OVERWHELMED_SAVE, "overwhelmed", stack_parts, staggered=True)
    natural = natural_save(c.sheet)
    d = c.defense
    total_part = [Mod("total defense", TOTAL_DEFENSE_BONUS)] if total_def else []
    if d is None:
        return done(natural, "natural save", stack_parts)
    if d.stance == "block":
        parts = [Mod("shield AV", c.sheet.shield_av), *total_part, *stack_parts]
        value = max(0, natural + sum(p.value for p in parts))
        low = 10 if d.total else 5
        return done(natural, "natural save", parts, band=(low, value))
    if d.stance == "parry":
        assert d.value is not None
        if ranged:
            return done(natural, "natural save (parry does not stop ranged)", total_part + stack_parts)
        if backstab:
            return done(
                OVERWHELMED_SAVE,
                "backstabbed through a parry",
                stack_parts,
                overwhelms="backstab",
                staggered=True,
            )
        if attacker in d.met or len(d.met) < d.limit:
            return done(d.value, "parry", total_part + stack_parts, uses="parry")
        return done(
            OVERWHELMED_SAVE, "parry overwhelmed", stack_parts, overwhelms="overwhelmed", staggered=True
        )
    # dodge
    assert d.value is not None
    if len(d.met) < d.limit:
        return done(d.value, "dodge", total_part + stack_parts, uses="dodge")
    return done(natural, "natural save (dodges used up)", stack_parts)
