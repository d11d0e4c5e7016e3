"""The gateway's message events as Fray needs them: which channel had a new message, and a view's new buttons.

discord.py builds a whole ``discord.Message`` (author, member, embeds, components) for every message created
or edited where Fray can see it, and every answer and tracker edit Fray makes comes back as one of these
events: one ``Message`` a command at least, though Fray reads no messages. These parsers read only the ids.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, NamedTuple

log = logging.getLogger(__name__)


class NewMessage(NamedTuple):
    """A message posted in a channel Fray can see (its own answers included)."""

    id: int
    channel_id: int


Observer = Callable[[NewMessage], None]


def install(state: Any, observers: list[Observer]) -> None:
    """Replace ``state``'s (discord.py's ``ConnectionState``) parsers of new and edited messages: each new
    message goes to ``observers``, in the gateway's callback (plain, quick functions; a failing one is
    logged, the others still see it); an edit updates a view discord.py tracks, as its own parser does.
    No ``message``, ``message_edit`` or ``raw_message_edit`` event is dispatched."""

    def message_create(data: dict[str, Any]) -> None:
        seen = NewMessage(int(data["id"]), int(data["channel_id"]))
        for observe in observers:
            try:
                observe(seen)
            except Exception:  # a gateway callback: a failing observer must not close the connection
                log.exception("a message observer failed")

    def message_update(data: dict[str, Any]) -> None:
        components = data.get("components")
        if components is None:
            return
        try:  # a view sent with an interaction's answer is tracked under the interaction's id
            entity_id = int(data["interaction"]["id"])
        except (KeyError, TypeError, ValueError):
            entity_id = int(data["id"])
        views = state._view_store
        if views.is_message_tracked(entity_id):
            views.update_from_message(entity_id, components)

    state.parsers["MESSAGE_CREATE"] = message_create
    state.parsers["MESSAGE_UPDATE"] = message_update
