"""The duel's sentences, registered in the text layer (``cogs.text.events``) while the duel is registered."""

from __future__ import annotations

from cogs.text.events.parts import dice_list, who
from cogs.text.events.registry import Names, renders, unregister
from tests.fourth_system import events as ev


def _joined(e: ev.Joined, names: Names) -> str:
    return f"➕ {who(names, e.who)} joins the duel on the {e.side} side."


def _left(e: ev.Left, names: Names) -> str:
    return f"➖ {who(names, e.who)} leaves the duel."


def _begun(e: ev.FightBegun, names: Names) -> str:
    return "⚔️ The duel begins: " + ", then ".join(who(names, c) for c in e.order) + "."


def _turn_started(e: ev.TurnStarted, names: Names) -> str:
    return f"Round {e.round}: {who(names, e.who)}'s turn."


def _turn_ended(e: ev.TurnEnded, names: Names) -> str:
    return f"{who(names, e.who)} ends the turn."


def _attacked(e: ev.Attacked, names: Names) -> str:
    attacker, target = who(names, e.attacker), who(names, e.target)
    if not e.hit:
        return f"🗡️ {attacker} misses {target}: rolled {e.roll}, needed {e.skill} or less {dice_list(e.dice)}"
    return (
        f"🗡️ {attacker} hits {target} for {e.damage}: rolled {e.roll}, needed {e.skill} or less"
        f" {dice_list(e.dice)} — {target} has {e.hp_left} HP left."
    )


def _out(e: ev.Out, names: Names) -> str:
    return f"💀 {who(names, e.who)} is out of the duel."


def _hp(e: ev.HpChanged, names: Names) -> str:
    return f"{who(names, e.who)}: HP {e.before} → {e.after}."


def _field(e: ev.FieldSet, names: Names) -> str:
    return f"{who(names, e.who)}: {e.field} is now {e.value}."


def _condition(e: ev.ConditionChanged, names: Names) -> str:
    return f"{who(names, e.who)} {'is no longer' if e.removed else 'is now'} {e.condition}."


def _checked(e: ev.Checked, names: Names) -> str:
    verdict = "succeeds" if e.success else "fails"
    return f"🎯 {who(names, e.who)} {verdict}: rolled {e.roll}, needed {e.target} or less {dice_list(e.dice)}"


RENDERERS = {
    ev.Joined: _joined,
    ev.Left: _left,
    ev.FightBegun: _begun,
    ev.TurnStarted: _turn_started,
    ev.TurnEnded: _turn_ended,
    ev.Attacked: _attacked,
    ev.Out: _out,
    ev.HpChanged: _hp,
    ev.FieldSet: _field,
    ev.ConditionChanged: _condition,
    ev.Checked: _checked,
}


def register() -> None:
    for cls, fn in RENDERERS.items():
        renders(cls)(fn)


def forget() -> None:
    unregister(*RENDERERS)
