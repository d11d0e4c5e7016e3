"""A plain answer posted without asking Discord for the message back.

discord.py's ``InteractionResponse.send_message`` always asks Discord to return the message it created
(``with_response``), then parses it and builds a ``Message`` and an ``InteractionCallbackResponse`` from it
(about 2 % of the bot's busy time under load, more for Discord), and nothing in Fray reads it. An answer with no
view (discord.py keeps a view by the message's id), no file, no poll and no ``delete_after`` goes out here
instead: the same payload built by discord.py, through the same webhook adapter (its locks, retries and
errors), with Discord answering ``204 No Content``.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import InteractionResponse, InteractionResponseType
from discord.errors import InteractionResponded
from discord.utils import MISSING
from discord.webhook.async_ import Route, async_context, interaction_message_response_params

PLAIN = frozenset({"embed", "embeds", "ephemeral", "allowed_mentions", "suppress_embeds", "silent", "tts"})


def is_plain(kwargs: dict[str, Any]) -> bool:
    """Whether an answer with these keyword arguments needs nothing of the created message."""
    return PLAIN.issuperset(kwargs)


async def send_plain(response: InteractionResponse, content: Any, kwargs: dict[str, Any]) -> None:
    """Answer like ``response.send_message(content, **kwargs)`` for plain ``kwargs`` (``is_plain``)."""
    if response._response_type:  # type: ignore[attr-defined]
        raise InteractionResponded(response._parent)  # type: ignore[attr-defined]
    parent: discord.Interaction[Any] = response._parent  # type: ignore[attr-defined]
    ephemeral = kwargs.get("ephemeral", False)
    suppress_embeds = kwargs.get("suppress_embeds", False)
    silent = kwargs.get("silent", False)
    flags: Any = MISSING
    if ephemeral or suppress_embeds or silent:
        flags = discord.MessageFlags._from_value(0)
        flags.ephemeral = ephemeral
        flags.suppress_embeds = suppress_embeds
        flags.suppress_notifications = silent
    params = interaction_message_response_params(
        type=InteractionResponseType.channel_message.value,
        content=content,
        tts=kwargs.get("tts", False),
        embed=kwargs.get("embed", MISSING),
        embeds=kwargs.get("embeds", MISSING),
        previous_allowed_mentions=parent._state.allowed_mentions,
        allowed_mentions=kwargs.get("allowed_mentions", MISSING),
        flags=flags,
    )
    http = parent._state.http
    route = Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=parent.id,
        webhook_token=parent.token,
    )
    await async_context.get().request(
        route,
        session=parent._session,  # type: ignore[attr-defined]
        proxy=http.proxy,
        proxy_auth=http.proxy_auth,
        payload=params.payload,
    )
    response._response_type = InteractionResponseType.channel_message  # type: ignore[attr-defined]
