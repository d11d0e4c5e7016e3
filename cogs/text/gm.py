"""Every user-facing sentence of ``/gm system``, ``/gm role``, ``/gm dice`` and ``/gm rules``. ``cogs.gm_channel`` only picks and sends these.

Secrecy of queued dice: the values go only to the GM (ephemeral); the channel gets a short public note with the
number of dice queued or cleared, never the values, so players know the next dice are physical ones.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord
from discord.utils import escape_markdown, escape_mentions

from bot.channel_rules import (
    DEFAULT_WORD,
    INHERIT_WORD,
    MAX_DIE,
    MAX_QUEUED,
    MIN_DIE,
    BadRuleValue,
    DiceValuesRefused,
    QueueChange,
    RuleChange,
    RulesHere,
    UnknownRule,
)
from cogs.text.common import fit, system_title
from rules.encounter import RuleInfo

EMBED_FIELDS = 25
FIELD_VALUE = 1024
EMBED_COLOUR = 0x5865F2

DICE_DESCRIPTION = 'Physical dice for the next rolls here: "3 4 2" (or "clear", "show")'
DICE_VALUES_DESCRIPTION = 'Die results in order, e.g. "3 4 2" or "3, 4, 2"; "clear" empties the queue'
RULES_DESCRIPTION = "House rules of this channel's system: list them, show one, or set one"
RULES_RULE_DESCRIPTION = "The house rule (leave out to list them all)"
RULES_VALUE_DESCRIPTION = 'Its new value ("default" resets it; in a thread "inherit" follows the channel)'


def _user(text: str, limit: int = 40) -> str:
    """Text a member typed, safe inside backticks."""
    text = " ".join((text or "").split()).replace("`", "'")
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return escape_mentions(text) or "(nothing)"


def _code(values: Sequence[object]) -> str:
    return ", ".join(f"`{v}`" for v in values)


def _here(thread: bool) -> str:
    return "this thread" if thread else "this channel"


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


# --- /gm dice ---------------------------------------------------------------------------------------------


def _queue(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values) if values else "nothing"


def dice_private(change: QueueChange, kind: str, *, thread: bool) -> str:
    """The GM's ephemeral answer: what happened and the whole queue now (values only here)."""
    here = _here(thread)
    if kind == "clear":
        head = (
            f"🎲 Cleared the {len(change.before)} queued dice of {here}."
            if change.before
            else f"🎲 Nothing was queued in {here}."
        )
    elif kind == "show":
        head = f"🎲 Queued dice in {here}:"
    else:
        head = f"🎲 Queued {change.added} dice for the next rolls in {here}."
    body = f"Queue now ({len(change.after)}/{MAX_QUEUED}): `{_queue(change.after)}`" if change.after else ""
    tail = (
        "-# The next dice rolled here (`/roll`, encounter actions) use these first, in order, marked ᴳ. "
        "Only you see the values; `/gm dice clear` empties the queue."
        if change.after
        else '-# Queue physical dice with `/gm dice values:"3 4 2"`.'
    )
    return fit("\n".join(part for part in (head, body, tail) if part))


def dice_public(user_id: int, change: QueueChange, kind: str) -> str | None:
    """The channel's note (no values); ``None`` when nothing changed."""
    if not change.changed:
        return None
    if kind == "clear":
        return f"🎲 The GM ({mention(user_id)}) cleared the queued physical dice."
    waiting = f" ({len(change.after)} waiting)" if len(change.after) != change.added else ""
    return (
        f"🎲 The GM ({mention(user_id)}) queued {change.added} physical {'die' if change.added == 1 else 'dice'} "
        f"for the next rolls here{waiting}."
    )


def dice_refused(err: DiceValuesRefused) -> str:
    rule = f"Give whole numbers {MIN_DIE}..{MAX_DIE} separated by spaces or commas, e.g. `3 4 2`, or `clear`."
    if err.problem == "empty":
        head = "There are no die results in that."
    elif err.problem == "not_number":
        head = f"{_code(_user(t, 20) for t in err.tokens)} {'is' if len(err.tokens) == 1 else 'are'} not a die result."
    elif err.problem == "out_of_range":
        head = f"{_code(_user(t, 20) for t in err.tokens)}: a die shows {MIN_DIE} to {MAX_DIE}."
    else:
        room = max(0, MAX_QUEUED - err.queued)
        head = (
            f"That is {err.count} dice, but at most {MAX_QUEUED} can wait in one channel "
            f"({err.queued} queued now, room for {room})."
        )
        rule = "Queue fewer, or empty the queue with `/gm dice clear`."
    return f"I did not queue anything: {head} {rule}"


# --- /gm rules --------------------------------------------------------------------------------------------


def _allowed(info: RuleInfo) -> str:
    return _code(info.allowed) if info.allowed else "a number (see the help)"


def _rule_field(info: RuleInfo, *, own: bool, thread: bool) -> tuple[str, str]:
    mark = " ✏️" if info.value != info.default else ""
    where = " (set in this thread)" if thread and own else ""
    name = f"{info.name}: {info.value}{mark}{where}"
    value = f"default `{info.default}` · allowed {_allowed(info)}\n{escape_markdown(info.help)}"
    return name[:256], fit(value, FIELD_VALUE)


def _embed(title: str, description: str) -> discord.Embed:
    return discord.Embed(title=title[:256], description=description[:4096], colour=EMBED_COLOUR)


def rules_embed(rules: RulesHere) -> discord.Embed:
    """Every rule with its current value, default, allowed values and help."""
    note = f"Change one with `/gm rules rule value`; `{DEFAULT_WORD}` resets it. ✏️ = not the default."
    if rules.thread:
        note += f" Rules set in this thread apply only here; `{INHERIT_WORD}` follows the channel again."
    embed = _embed(f"House rules — {rules.system.title}", note)
    for info in rules.infos[:EMBED_FIELDS]:
        name, value = _rule_field(info, own=info.name in rules.own, thread=rules.thread)
        embed.add_field(name=name, value=value, inline=False)
    return embed


def rule_embed(rules: RulesHere, info: RuleInfo) -> discord.Embed:
    _, value = _rule_field(info, own=info.name in rules.own, thread=rules.thread)
    mark = " ✏️" if info.value != info.default else ""
    where = " (set in this thread)" if rules.thread and info.name in rules.own else ""
    head = f"`{info.name}`: **{info.value}**{mark}{where}"
    embed = _embed(f"House rule — {rules.system.title}", f"{head}\n{value}")
    embed.set_footer(text=f"Change it with /gm rules rule:{info.name} value:…  ({DEFAULT_WORD} resets it)")
    return embed


def rule_set(change: RuleChange) -> str:
    """The public confirmation."""
    after = change.after
    if change.inherited:
        return (
            f"⚙️ House rule `{after.name}` in this thread follows the channel again: `{after.value}` "
            f"(default `{after.default}`)."
        )
    where = " in this thread" if change.thread else ""
    was = f", was `{change.before.value}`" if change.before.value != after.value else ""
    return f"⚙️ House rule `{after.name}` is now `{after.value}`{where} (default `{after.default}`{was})."


def unknown_rule(err: UnknownRule) -> str:
    return fit(
        f"`{_user(err.rule)}` is not a house rule of {err.system.title}. Rules: {_code(err.names)}. "
        "`/gm rules` lists them with their values."
    )


def bad_rule_value(err: BadRuleValue) -> str:
    reset = f"`{DEFAULT_WORD}` resets it to `{err.info.default}`"
    if err.thread:
        reset += f", `{INHERIT_WORD}` follows the channel"
    if err.info.allowed:
        head = (
            f"`{_user(err.value)}` is not a value of house rule `{err.info.name}`. "
            f"Allowed: {_code(err.info.allowed)}."
        )
    else:
        head = err.detail
    return fit(f"{head} Nothing changed ({reset}).")


def value_without_rule() -> str:
    return "Which rule? Give `rule` with `value` (`/gm rules` lists them)."


def inherit_outside_thread() -> str:
    return f"`{INHERIT_WORD}` is only for threads (they follow their channel); here use `{DEFAULT_WORD}` to reset a rule."


def no_system() -> str:
    return "This channel has no rule system yet, so it has no house rules. A GM sets one with `/gm system`."


def value_choice(value: str, info: RuleInfo) -> str:
    """An autocomplete label for one value of ``info``."""
    notes = []
    if value == info.value:
        notes.append("now")
    if value == info.default:
        notes.append("default")
    if value == DEFAULT_WORD:
        notes.append(f"reset to {info.default}")
    if value == INHERIT_WORD:
        notes.append("follow the channel")
    return fit(f"{value} ({', '.join(notes)})" if notes else value, 100)


def rule_choice(info: RuleInfo) -> str:
    return fit(f"{info.name} (now {info.value})", 100)


# --- /gm system, /gm role ---------------------------------------------------------------------------------


def system_set(system: str, *, thread: bool) -> str:
    where = "this thread" if thread else "this channel (and its threads, unless they set their own)"
    return f"⚙️ The rule system of {where} is now **{system_title(system)}**."


def role_set(role_id: int) -> str:
    return f"⚙️ The GM role of this server is now <@&{role_id}>. Members with it (or Manage Server) are GMs."


def role_is_everyone() -> str:
    return "@everyone cannot be the GM role (everyone would be a GM). Pick or create a role for your GMs."
