"""Every interaction answered in time: Discord rejects an initial response sent more than 3 s after the
interaction was created ("The application did not respond"), even when the bot did the work.

``install(bot)`` (by ``cogs.error_handler``) makes the tree's ``interaction_check`` ``admit`` every command
(Fray's buttons do it through ``AnswersInTime``): refused while the bot stops, else ``keep_deadline``,
which replaces the interaction's ``response`` with a :class:`DeadlineResponse`. Commands keep answering with
``interaction.response.send_message`` / ``edit_message`` as always; if no answer has gone out a third of
the deadline after the interaction was created (waiting on the channel's lock, slow I/O, a busy process), it
acknowledges first (a deferred response: "thinking…", or a deferred update for a button) and the answer that
follows fills it in. Until that answer, ``is_done()`` stays ``False``, so callers need not know.

``acknowledge_before_change()`` is the store's ``before_change`` hook, for the change path, just before it
commits: a change is made only when the member can still be told. An interaction that is not acknowledged
yet and is no longer young is deferred first; when Discord refuses that (too late), ``TooLate`` is raised
and nothing is saved.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import time
import weakref
from typing import Any

import discord
from discord import InteractionResponse, InteractionType

from bot.errors import BotError
from cogs.errors import report_error
from cogs.plain_answer import is_plain, send_plain
from cogs.text import errors as text

log = logging.getLogger(__name__)

DISCORD_DEADLINE = 3.0  # seconds Discord waits for an initial response (tests set their fake's)


def defer_after() -> float:
    """Not answered by then (seconds after creation): acknowledge first."""
    return DISCORD_DEADLINE / 3


def young() -> float:
    """A change committed before this age leaves ample time for its reply."""
    return DISCORD_DEADLINE / 6


ANSWERED_TYPES = (
    InteractionType.application_command,
    InteractionType.component,
    InteractionType.modal_submit,
)
# weakly: a context outlives its task in the timers its task scheduled (an HTTP request's timeout, cancelled
# but kept in the loop's queue until due), and must not keep the interaction alive meanwhile
_current: contextvars.ContextVar[weakref.ref[DeadlineResponse] | None] = contextvars.ContextVar(
    "fray_answer", default=None
)


class TooLate(BotError):
    """The interaction can no longer be answered, so its change is not made."""


def age(interaction: discord.Interaction[Any]) -> float:
    """Seconds since Discord created the interaction (its snowflake), within 0..DISCORD_DEADLINE (clock skew).
    Read from the snowflake's milliseconds, as ``created_at`` holds them, without building datetimes: every
    command asks twice."""
    created_ms = (interaction.id >> 22) + discord.utils.DISCORD_EPOCH
    return min(max(time.time() - created_ms / 1000, 0.0), DISCORD_DEADLINE)


def keep_deadline(interaction: discord.Interaction[Any]) -> None:
    """Make ``interaction`` acknowledge itself when its answer is slow (see the module doc).

    Autocomplete is left alone (it cannot be deferred), and so is a response already in use."""
    if interaction.type not in ANSWERED_TYPES:
        return
    try:
        interaction._cs_response  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError:
        response = DeadlineResponse(interaction, defer_after() - age(interaction))
        interaction._cs_response = response  # type: ignore[attr-defined]
        _current.set(weakref.ref(response))
        task = asyncio.current_task()
        if task is not None:  # the task that handles it (a command's, a button's)
            task.add_done_callback(functools.partial(_release, interaction))


def _release(interaction: discord.Interaction[Any], _task: object) -> None:
    """The interaction's handler ended: its response lets go of it. discord.py's interaction and its response
    hold each other (and the response's timer holds the response), so every interaction, its payload and its
    member lived on until the garbage collector found the cycle, thousands of them under load, many
    promoted to the old generations and collected there at length. Only an answered one is let go: nothing
    answers it after its handler."""
    response = getattr(interaction, "_cs_response", None)
    if isinstance(response, DeadlineResponse) and response.acknowledged and not response._deferred:
        response._timer.cancel()  # drops its callback, the bound method that holds the response
        del interaction._cs_response  # type: ignore[attr-defined]


async def acknowledge_before_change() -> None:
    """Before a change is committed: defer the current interaction unless it is acknowledged or young.

    Raises ``TooLate`` (nothing is saved) when Discord no longer accepts an answer."""
    current = _current.get()
    response = current() if current is not None else None
    if response is None or response.acknowledged or age(response._parent) < young():
        return
    if not await response.acknowledge():
        raise TooLate(text.too_late())


async def post_in_channel(
    interaction: discord.Interaction[Any], content: Any, kwargs: dict[str, Any]
) -> None:
    """A public answer Discord no longer takes as the interaction's, posted in its channel instead."""
    log.warning("answered %s too late; posting the answer in the channel", interaction.id)
    allowed = ("embed", "embeds", "file", "files", "view", "allowed_mentions", "silent", "suppress_embeds")
    channel = interaction.client.get_partial_messageable(
        interaction.channel_id or 0, guild_id=interaction.guild_id
    )
    await channel.send(content, **{k: v for k, v in kwargs.items() if k in allowed})


class DeadlineResponse(InteractionResponse):
    """``interaction.response`` that acknowledges by itself when the answer is slow (see the module doc)."""

    __slots__ = ("__weakref__", "_answering", "_deferred", "_placeholder", "_task", "_timer")

    def __init__(self, parent: discord.Interaction[Any], delay: float) -> None:
        super().__init__(parent)
        self._answering = False  # an answer has started: no acknowledgement may start after it
        self._deferred = False  # acknowledged here, the answer not sent yet
        self._placeholder: bool | None = None  # the "thinking" message's ephemerality, until it is filled
        self._task: asyncio.Task[bool] | None = None  # the one acknowledgement, once started
        self._timer = asyncio.get_running_loop().call_later(max(0.0, delay), self._start)

    def _start(self) -> asyncio.Task[bool]:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._defer(), name="fray-acknowledge")
        return self._task

    @property
    def acknowledged(self) -> bool:
        return super().is_done()

    def is_done(self) -> bool:
        return super().is_done() and not self._deferred

    async def acknowledge(self) -> bool:
        """Defer now unless acknowledged (or answering) already; ``False`` when Discord refused (too late)."""
        self._timer.cancel()
        return await self._start()

    async def _defer(self) -> bool:
        if super().is_done() or self._answering:
            return True
        command = self._parent.type is InteractionType.application_command
        try:
            await super().defer(thinking=command)
        except discord.HTTPException as err:
            log.warning("could not acknowledge an interaction in time (%s)", err)
            return False
        self._deferred = True
        self._placeholder = False if command else None
        return True

    async def _take_over(self, ephemeral: bool) -> bool:
        """Whether the answer goes after our acknowledgement; then makes the placeholder fit ``ephemeral``."""
        self._timer.cancel()
        self._answering = True
        if self._task is not None:
            await self._task  # an acknowledgement on its way: never answer twice
        if not self._deferred:
            return False
        self._deferred = False
        if self._placeholder is not None and self._placeholder != ephemeral:
            await self._parent.delete_original_response()  # a followup cannot change its visibility
        self._placeholder = None
        return True

    async def send_message(self, content: Any = None, **kwargs: Any) -> Any:  # type: ignore[override]
        if not await self._take_over(bool(kwargs.get("ephemeral", False))):
            try:
                if is_plain(kwargs):
                    return await send_plain(self, content, kwargs)
                return await super().send_message(content, **kwargs)
            except (
                discord.NotFound
            ):  # too late: Discord forgot the interaction; a public answer still goes out
                if kwargs.get("ephemeral"):
                    raise
                await post_in_channel(self._parent, content, kwargs)
                return None
        kwargs.pop("delete_after", None)
        if content is not None:
            kwargs["content"] = content
        await self._parent.followup.send(**kwargs)
        return None

    async def edit_message(self, **kwargs: Any) -> Any:  # type: ignore[override]
        if not await self._take_over(False):
            return await super().edit_message(**kwargs)
        kwargs.pop("delete_after", None)
        kwargs.pop("suppress_embeds", None)
        await self._parent.edit_original_response(**kwargs)
        return None

    async def defer(self, *, ephemeral: bool = False, thinking: bool = False) -> Any:
        if not await self._take_over(ephemeral):
            return await super().defer(ephemeral=ephemeral, thinking=thinking)
        return None


class Stopping(BotError):
    """The bot is stopping: a new command or click is not handled."""


async def admit(interaction: discord.Interaction[Any]) -> bool:
    """Whether ``interaction`` is handled. While the bot stops, a new command or click is refused privately
    and changes nothing; one admitted is finished before the connection closes (``Fray.close``), so a
    change made as the stop begins is still answered and announced. Then it answers in time."""
    client = interaction.client
    if interaction.type in ANSWERED_TYPES and getattr(client, "stopping", False):
        await report_error(interaction, Stopping(text.stopping()))
        return False
    keep_deadline(interaction)
    finish = getattr(client, "finish_before_closing", None)
    if finish is not None:
        finish(asyncio.current_task())
    return True


class AnswersInTime:
    """Base of Fray's buttons (before ``discord.ui.DynamicItem``): they are admitted and answer in time
    like commands."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return await admit(interaction)


def install(bot: Any) -> None:
    """Every command of ``bot`` is admitted (``admit``) and answers in time, and its store acknowledges
    before a change when needed."""

    async def interaction_check(interaction: discord.Interaction[Any], /) -> bool:
        return await admit(interaction)

    bot.tree.interaction_check = interaction_check
    bot.store.before_change = acknowledge_before_change
