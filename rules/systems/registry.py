"""Which rule systems exist and where their adapters live (``rules.encounter.System``)."""

from __future__ import annotations

from importlib import import_module

from rules.encounter import System
from rules.errors import InvalidInput

SYSTEM_NAMES: tuple[str, ...] = ("nyra", "kaernest", "d6")
SYSTEM_TITLES: dict[str, str] = {"nyra": "Nyra", "kaernest": "Kaernest", "d6": "the D6 campaign"}

_loaded: dict[str, System] = {}


def system_names() -> tuple[str, ...]:
    """Every registered system's name, in registration order."""
    return SYSTEM_NAMES


def all_systems() -> tuple[System, ...]:
    """Every registered system's adapter, in registration order."""
    return tuple(get_system(name) for name in system_names())


def get_system(name: str) -> System:
    """The adapter of ``name`` (imported on first use, then kept)."""
    key = (name or "").strip().lower()
    if key not in SYSTEM_NAMES:
        raise InvalidInput(f"`{name}` is not a rule system here. Choose one of: {', '.join(SYSTEM_NAMES)}.")
    if key not in _loaded:
        _loaded[key] = import_module(f"rules.systems.{key}.adapter").SYSTEM
    return _loaded[key]
