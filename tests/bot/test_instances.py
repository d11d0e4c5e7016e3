"""Which systems keep instances: asked of each system class once, with the protocol's own answer."""

from __future__ import annotations

from bot.instances import KeepsInstances, keeper
from rules.systems.registry import all_systems


def test_keeper_gives_each_system_that_keeps_instances_and_only_those() -> None:
    systems = list(all_systems())
    assert [s.name for s in systems if keeper(s) is s] == ["d6"]
    for system in systems:
        assert (keeper(system) is system) == isinstance(system, KeepsInstances)
        assert keeper(system) in (system, None)
    assert keeper(object()) is None
