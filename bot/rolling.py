"""``/roll`` and ``/gm roll``. A plain roll with no GM-queued dice only reads the channel. Otherwise it goes
through the change path: the channel's lock and transaction, its GM-queued dice consumed first (the rest
saved back in the same transaction), and a secret roll stored for its reveal button. Either way the pool
codes' house rules apply (those of the system with ``traits.rolls_dice_codes``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, get_args

from bot.models import SecretRoll
from bot.store import Store, Where, write_turn
from rules import notation
from rules.dice import DiceSource, QueuedDice
from rules.systems.d6.pool import ExplodeRule, WildOneRule
from rules.systems.registry import all_systems

D6_DEFAULTS = {"explode": "halved", "wild_one": "complication"}


@dataclass(frozen=True, slots=True)
class RollOutcome:
    result: notation.RollResult
    described: str
    secret_id: int | None


def d6_rules(house_rules: Mapping[str, Mapping[str, Any]]) -> tuple[str, str]:
    """The channel's ``explode`` and ``wild_one`` readings for pool codes (defaults where unset or unknown),
    from the house rules of the system whose pool they are."""
    owner = next((s.name for s in all_systems() if s.traits.rolls_dice_codes), "")
    d6 = house_rules.get(owner, {})
    explode = str(d6.get("explode", D6_DEFAULTS["explode"]))
    wild_one = str(d6.get("wild_one", D6_DEFAULTS["wild_one"]))
    if explode not in get_args(ExplodeRule):
        explode = D6_DEFAULTS["explode"]
    if wild_one not in get_args(WildOneRule):
        wild_one = D6_DEFAULTS["wild_one"]
    return explode, wild_one


def _roll(
    expression: str, dice: DiceSource, house_rules: Mapping[str, Mapping[str, Any]]
) -> notation.RollResult:
    explode, wild_one = d6_rules(house_rules)
    return notation.roll(expression, dice, d6_explode=explode, d6_wild_one=wild_one)  # type: ignore[arg-type]


async def roll_in_channel(
    store: Store,
    where: Where,
    expression: str,
    dice: DiceSource,
    *,
    user_id: int,
    secret: bool = False,
    describe: Callable[[notation.RollResult], str] = notation.describe,
) -> RollOutcome:
    """Roll ``expression`` here. Bad notation raises ``NotationError`` before anything is drawn or saved."""
    notation.parse(expression)  # refuse bad notation before taking the channel's lock
    if not secret:
        view, queue = await store.channel_and_dice(where)
        if not queue:  # nothing to consume and nothing to store: no change to make
            result = _roll(expression, dice, view.house_rules)
            return RollOutcome(result, describe(result), None)
    async with store.edit_channel(where) as edit:
        queued = QueuedDice(edit.config.dice_queue or [], dice)
        result = _roll(expression, queued, edit.view.house_rules)
        if list(queued.remaining) != list(edit.config.dice_queue or []):
            edit.config.dice_queue = list(queued.remaining)
        described = describe(result)
        secret_id = None
        if secret:
            row = SecretRoll(
                guild_id=where.guild_id,
                channel_id=where.channel_id,
                user_id=user_id,
                expression=result.expression[:200],
                result_text=described,
                created_at=store.clock(),
            )
            await write_turn(edit.session)
            edit.session.add(row)
            await edit.session.flush()
            secret_id = row.id
    return RollOutcome(result, described, secret_id)
