"""The gateway's message parsers: a new message reaches the observers as its ids; an edit updates a tracked view."""

from __future__ import annotations

from typing import Any

from bot import message_events
from bot.message_events import NewMessage


class Views:
    def __init__(self, tracked: set[int]) -> None:
        self.tracked = tracked
        self.updates: list[tuple[int, Any]] = []

    def is_message_tracked(self, message_id: int) -> bool:
        return message_id in self.tracked

    def update_from_message(self, message_id: int, components: Any) -> None:
        self.updates.append((message_id, components))


class State:
    def __init__(self, tracked: set[int]) -> None:
        self.parsers: dict[str, Any] = {"MESSAGE_CREATE": None, "MESSAGE_UPDATE": None, "READY": "kept"}
        self._view_store = Views(tracked)


def test_a_new_message_reaches_every_observer_in_order_as_its_ids() -> None:
    state, seen = State(set()), []
    observers = [seen.append]
    message_events.install(state, observers)
    observers.append(lambda m: seen.append(("second", m.id)))  # the list itself is told, as it is then
    state.parsers["MESSAGE_CREATE"]({"id": "11", "channel_id": "22", "content": "", "author": {"id": "3"}})
    assert seen == [NewMessage(11, 22), ("second", 11)]
    assert state.parsers["READY"] == "kept"


def test_an_edit_updates_a_tracked_view_under_its_interaction_or_its_own_id() -> None:
    state = State({5, 7})
    message_events.install(state, [])
    update = state.parsers["MESSAGE_UPDATE"]
    buttons = [{"type": 1, "components": []}]
    update({"id": "5", "channel_id": "1", "components": buttons})
    update({"id": "6", "channel_id": "1", "components": buttons, "interaction": {"id": "7"}})
    update({"id": "8", "channel_id": "1", "components": buttons})  # not tracked
    update({"id": "5", "channel_id": "1", "content": "no components"})
    assert state._view_store.updates == [(5, buttons), (7, buttons)]
