"""Extra buttons a feature puts on a turn announcement (the D6 Death Save).

A plain module, not an extension: discord.py re-executes an extension's module when it loads it, so a
registry kept in ``cogs.encounters`` could exist twice (once as imported by ``cogs.gm_encounter``, once as
loaded). Each hook gets the ``EncounterResult`` and the stored turn key and returns an item or None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import discord

TurnButton = Callable[[Any, str], "discord.ui.Item[Any] | None"]
TURN_BUTTONS: list[TurnButton] = []


def register(hook: TurnButton) -> None:
    if hook.__qualname__ not in {h.__qualname__ for h in TURN_BUTTONS}:
        TURN_BUTTONS.append(hook)


def unregister(hook: TurnButton) -> None:
    TURN_BUTTONS[:] = [h for h in TURN_BUTTONS if h.__qualname__ != hook.__qualname__]


def extra_buttons(result: Any, key: str) -> list[discord.ui.Item[Any]]:
    return [item for hook in TURN_BUTTONS if (item := hook(result, key)) is not None]
