"""Every user-facing sentence of turn reminders and ``/gm reminders``. Cogs and the loop only pick and send these.

Nothing here talks to Discord; functions take plain values and return text (≤ 2000 characters). Names are
cleaned (one line, no markdown, mentions escaped): the only pings a message makes are the ones its sender
allows explicitly, and the text never even *looks* like it pings anyone else.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta

from bot.reminder_policy import ReminderPolicy, format_duration, humanize
from cogs.text.common import clean, fit, mention

THEN_TEXT = {
    "gm": "tell the GMs",
    "skip": "skip the turn",
    "nothing": "do nothing more",
}
SOURCE_TEXT = {"here": "", "parent": " *(from the parent channel)*", "default": " *(default)*"}


def gm_mention(gm_role_id: int | None, started_by: int) -> str:
    """The GMs: the server's GM role when one is set, else the member who started the encounter."""
    return f"<@&{gm_role_id}>" if gm_role_id is not None else f"<@{started_by}>"


# --- the reminders the loop sends -------------------------------------------------------------------------


def member_reminder(
    member_id: int, name: str, encounter: str, waited: timedelta, number: int, total: int
) -> str:
    return fit(
        f"⏰ {mention(member_id)}, it is still **{clean(name)}**'s turn in *{clean(encounter)}* — "
        f"waiting for {humanize(waited)}. Take your action, or press **End turn** when you are done.\n"
        f"-# Reminder {number} of {total}."
    )


def npc_reminder(gms: str, name: str, encounter: str, waited: timedelta, number: int, total: int) -> str:
    return fit(
        f"⏰ {gms}: it is still **{clean(name)}**'s turn (an NPC) in *{clean(encounter)}* — "
        f"waiting for {humanize(waited)}. Play it, or press **End turn**.\n-# Reminder {number} of {total}."
    )


def gms_told(
    gms: str, name: str, member_id: int | None, encounter: str, waited: timedelta, reminders: int
) -> str:
    who = f"**{clean(name)}**" + (f" ({mention(member_id)})" if member_id is not None else "")
    after = f" after {reminders} reminder{'' if reminders == 1 else 's'}" if reminders else ""
    return fit(
        f"📣 {gms}: {who} has not acted in *{clean(encounter)}* for {humanize(waited)}{after}. "
        "A GM can end the turn with **End turn** or move on with `/gm next`."
    )


def turn_skipped(name: str, waited: timedelta) -> str:
    return fit(f"⏭️ **{clean(name)}** did not act for {humanize(waited)}, so the turn was skipped.")


# --- /gm reminders ---------------------------------------------------------------------------------------


def _schedule_line(policy: ReminderPolicy) -> str:
    if not policy.active:
        return "No reminders are sent here."
    first = f"the first reminder {format_duration(policy.after)} after the turn starts"
    if policy.max_reminders == 0:
        return f"No member reminders; after {format_duration(policy.after)} I {THEN_TEXT[policy.then]}."
    more = (
        f", then one every {format_duration(policy.repeat)}, {policy.max_reminders} in all"
        if policy.max_reminders > 1
        else ""
    )
    then = (
        f"; {format_duration(policy.repeat)} after the last one I {THEN_TEXT[policy.then]}"
        if policy.then != "nothing"
        else "; then nothing more"
    )
    return f"The member whose turn it is gets {first}{more}{then}."


def settings_text(
    policy: ReminderPolicy, sources: Mapping[str, str], *, thread: bool, title: str = "⏰ Turn reminders here"
) -> str:
    def src(field: str) -> str:
        return SOURCE_TEXT.get(sources.get(field, "default"), "")

    state = "on" if policy.enabled else "**off**"
    lines = [
        f"{title}: {state}{src('enabled')}",
        f"- after: `{format_duration(policy.after)}`{src('after')}",
        f"- repeat: `{format_duration(policy.repeat)}`{src('repeat')}",
        f"- max: `{policy.max_reminders}`{src('max_reminders')}",
        f"- then: `{policy.then}` ({THEN_TEXT[policy.then]}){src('then')}",
        _schedule_line(policy),
    ]
    if thread:
        lines.append("-# This thread uses its parent channel's settings for whatever it does not set itself.")
    lines.append("-# Change them with `/gm reminders after: repeat: max: then: off:`.")
    return fit("\n".join(lines))


def settings_saved(policy: ReminderPolicy, sources: Mapping[str, str], *, thread: bool) -> str:
    text = settings_text(policy, sources, thread=thread, title="✅ Turn reminders saved")
    return fit(
        text
        + (
            "\n-# A turn already waiting keeps its next reminder time; the steps after it follow these "
            "settings, and `off` stops pending reminders."
        )
    )


def settings_refused(problems: Sequence[str]) -> str:
    body = "\n".join(f"- {p}" for p in problems)
    return fit(f"Nothing was changed:\n{body}")


def max_out_of_range(value: int, high: int) -> str:
    return f"`max` must be a whole number from 0 to {high}, not {value}."
