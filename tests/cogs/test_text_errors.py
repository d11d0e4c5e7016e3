"""Every domain error class of the shell has a sentence, and every sentence survives any instance of its class."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bot
from bot.channel_rules import BadRuleValue, UnknownRule
from bot.errors import BotError, NoEncounter, NotGM
from bot.reminder_policy import InvalidDuration
from cogs.text.errors import describe, describer_for
from rules.errors import InvalidInput
from rules.systems.registry import all_systems

for module in pkgutil.walk_packages(bot.__path__, "bot."):
    if not module.name.startswith("bot.migrations"):
        importlib.import_module(module.name)


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    for sub in cls.__subclasses__():
        found |= {sub, *_subclasses(sub)}
    return found


ERROR_CLASSES = sorted(
    (c for c in {BotError, *_subclasses(BotError)} if c.__module__.startswith("bot.")),
    key=lambda c: (c.__module__, c.__qualname__),
)
# Built by hand: their fields are a system's own objects, or (durations) the parser words its refusal itself.
SYSTEM = all_systems()[0]
SAMPLES: dict[type, list[BotError]] = {
    InvalidDuration: [InvalidDuration("`after` must be longer than zero, like `6h`.")],
    UnknownRule: [UnknownRule("explode", SYSTEM, ("a", "b"))],
    BadRuleValue: [
        BadRuleValue(info, "nope", "not one of the choices", thread=thread)
        for info in SYSTEM.describe_house(SYSTEM.house_from_dict({}))[:2]
        for thread in (False, True)
    ],
}


def _id(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def test_the_enumeration_sees_the_shell_errors() -> None:
    assert {BotError, NotGM, NoEncounter, UnknownRule} <= set(ERROR_CLASSES)


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=_id)
def test_every_shell_error_class_has_a_sentence(cls: type[BotError]) -> None:
    assert describer_for(cls) is not None, (
        f"no sentence for {_id(cls)}: add one with @describes({cls.__name__})"
    )


@pytest.mark.parametrize("cls", ERROR_CLASSES, ids=_id)
def test_every_sentence_renders_any_instance_of_its_class(cls: type[BotError]) -> None:
    if cls in SAMPLES:
        for sample in SAMPLES[cls]:
            assert describe(sample).strip()
        return

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.builds(cls))
    def worded(error: BotError) -> None:
        said = describe(error)
        assert said.strip() and type(error).__name__ not in said  # a sentence, not the technical summary

    worded()


def test_a_sentence_a_cog_chose_is_kept_and_rules_errors_keep_their_reason() -> None:
    assert describe(NotGM("Only a GM can do that.")) == "Only a GM can do that."
    assert describe(InvalidInput("Write 2d6, not 2x6.")) == "Write 2d6, not 2x6."
    assert describe(NoEncounter()).startswith("There is no open encounter here.")
