"""The one list of rule systems. Everything that offers a choice of system (the `/gm system` and
`/character create` choices, sheet import, titles in replies) reads it from here.

The built-in systems are named here and their adapters imported on first use, so importing the registry
stays cheap. ``register`` adds another ``System`` (a test's own system); ``unregister`` takes it out again.
"""

from __future__ import annotations

from importlib import import_module

from rules.encounter import AnySystem, System
from rules.errors import InvalidInput

# name → the module whose ``SYSTEM`` is the adapter, in the order the choices list them.
BUILT_IN: dict[str, str] = {
    "nyra": "rules.systems.nyra.adapter",
    "kaernest": "rules.systems.kaernest.adapter",
    "d6": "rules.systems.d6.adapter",
}

_loaded: dict[str, AnySystem] = {}


def system_names() -> tuple[str, ...]:
    """Every registered system's name, in registration order."""
    return tuple(BUILT_IN) + tuple(name for name in _loaded if name not in BUILT_IN)


def all_systems() -> tuple[AnySystem, ...]:
    """Every registered system's adapter, in registration order."""
    return tuple(get_system(name) for name in system_names())


def get_system(name: str) -> AnySystem:
    """The adapter of ``name`` (imported on first use, then kept)."""
    key = (name or "").strip().lower()
    if key not in _loaded:
        if key not in BUILT_IN:
            raise InvalidInput(
                f"`{name}` is not a rule system here. Choose one of: {', '.join(system_names())}."
            )
        _loaded[key] = import_module(BUILT_IN[key]).SYSTEM
    return _loaded[key]


def register(system: AnySystem) -> None:
    """Add ``system`` under its ``name``; a name already taken is refused."""
    if not isinstance(system, System):
        raise TypeError(f"{system!r} does not implement rules.encounter.System")
    key = system.name
    if key != key.strip().lower() or not key:
        raise ValueError(f"a system's name is lower case with no spaces around it, not {key!r}")
    if key in BUILT_IN or key in _loaded:
        raise ValueError(f"a system named {key!r} is registered already")
    _loaded[key] = system


def unregister(name: str) -> None:
    """Take a system added by ``register`` out again (the built-in ones stay)."""
    if name in BUILT_IN:
        raise ValueError(f"{name!r} is built in")
    _loaded.pop(name, None)
