"""Every sentence of a refusal or a failure: the tree's error handler, permission checks, and the shell's domain
errors (``bot.errors``), which carry data and get their words here.

``describe(error)`` is what the error handler shows for a ``RulesError``: the rules' errors (and errors a cog
raised with a sentence of its own, ``worded``) keep their ``reason``; every other shell error is worded by the
describer registered for its exact class with ``@describes(ErrorClass)`` (a test checks that every
``BotError`` class of ``bot/`` has one). A shell error without one is logged and answered with a plain sentence.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from bot import errors as e
from bot.channel_rules import BadRuleValue, DiceValuesRefused, InheritOutsideThread, UnknownRule
from bot.reminder_policy import InvalidDuration
from cogs.text import characters, encounters, gm
from cogs.text.common import clean
from rules.errors import RulesError

log = logging.getLogger(__name__)

D = TypeVar("D", bound=Callable[..., str])
_DESCRIBERS: dict[type[e.BotError], Callable[[Any], str]] = {}


def describes(*classes: type[e.BotError]) -> Callable[[D], D]:
    """Register the decorated function as the sentence of each of ``classes`` (exactly those classes)."""

    def register(fn: D) -> D:
        for cls in classes:
            if cls in _DESCRIBERS:
                raise ValueError(f"{cls.__qualname__} already has a sentence")
            _DESCRIBERS[cls] = fn
        return fn

    return register


def describer_for(cls: type[e.BotError]) -> Callable[[Any], str] | None:
    return _DESCRIBERS.get(cls)


def describe(error: RulesError) -> str:
    """The sentence a member sees for ``error``."""
    if not isinstance(error, e.BotError) or error.worded:
        return error.reason
    describer = _DESCRIBERS.get(type(error))
    if describer is None:
        log.error("no sentence for the error %s (%s)", type(error).__qualname__, error.reason)
        return "That could not be done, and nothing was changed."
    return describer(error)


def not_gm(has_role: bool) -> str:
    how = "the server's GM role" if has_role else "a GM role (set with `/gm role`)"
    return f"Only a GM can do that: a member with Manage Server or {how}. Ask a GM to do it for you."


def too_late() -> str:
    return "Discord stopped waiting for this command before it could be answered, so nothing was changed. Try again."


def stopping() -> str:
    return "Fray is restarting, so that was not done and nothing was changed. Send it again in a minute."


def guild_only() -> str:
    return "That only works in a server channel, not in direct messages."


def check_failed(detail: str | None = None) -> str:
    return detail or "You cannot use that command here."


def bad_option(value: object, expected: str) -> str:
    return f"I could not read `{clean(str(value), 50)}` as {expected}. Pick a value from the list Discord offers."


def cooldown(seconds: float) -> str:
    return f"Slow down a little: try again in {seconds:.0f} s."


def commands_outdated() -> str:
    return "That command is out of date (the bot was just updated). Wait a minute and try it again."


def bot_forbidden() -> str:
    return (
        "I am missing a permission here (View Channel, Send Messages or Embed Links). "
        "Ask a server admin to give me those in this channel."
    )


def incident(incident_id: str) -> str:
    return (
        f"😵 Sorry, something went wrong on my side. "
        f"If it keeps happening, tell the bot's admin incident `{incident_id}`."
    )


# --- the shell's domain errors --------------------------------------------------------------------------


@describes(e.BotError, e.CharacterError, e.SheetFileError)
def _generic(err: e.BotError) -> str:
    return "That could not be done, and nothing was changed."


@describes(e.FieldsRefused)
def _fields_refused(err: e.FieldsRefused) -> str:
    return characters.fields_refused(err.problems)


@describes(e.NotGM)
def _not_gm(err: e.NotGM) -> str:
    return not_gm(err.has_role)


@describes(e.NotInGuild)
def _not_in_guild(err: e.NotInGuild) -> str:
    return guild_only()


@describes(e.NoSystem)
def _no_system(err: e.NoSystem) -> str:
    return encounters.no_system()


@describes(e.NoEncounter)
def _no_encounter(err: e.NoEncounter) -> str:
    return encounters.no_encounter()


@describes(e.EncounterOpen)
def _encounter_open(err: e.EncounterOpen) -> str:
    return encounters.encounter_open(err.name)


@describes(e.StaleEncounter)
def _stale(err: e.StaleEncounter) -> str:
    return encounters.stale_encounter()


@describes(e.Stale)
def _stale_row(err: e.Stale) -> str:
    return "Someone else changed that at the same moment, so nothing was saved; try again."


@describes(e.StaleChannel)
def _stale_channel(err: e.StaleChannel) -> str:
    return "This channel's settings changed at the same moment, so nothing was saved; try again."


@describes(e.StaleCharacter)
def _stale_character(err: e.StaleCharacter) -> str:
    return "This character was changed at the same moment, so nothing was saved; try again."


@describes(e.StaleReminderSettings)
def _stale_reminders(err: e.StaleReminderSettings) -> str:
    return "The reminder settings changed at the same moment, so nothing was saved; try again."


@describes(e.StaleInstance)
def _stale_instance(err: e.StaleInstance) -> str:
    return "This channel's instance changed at the same moment (another fight in it), so nothing was saved; try again."


@describes(e.NoInstances)
def _no_instances(err: e.NoInstances) -> str:
    if err.system is None:
        return encounters.no_system()
    return "Instances belong to the D6 campaign: this channel's system carries nothing from one fight to the next."


@describes(e.NotRunning)
def _not_running(err: e.NotRunning) -> str:
    return encounters.not_running()


@describes(e.OutOfRange)
def _out_of_range(err: e.OutOfRange) -> str:
    return encounters.out_of_range(err.option, err.low, err.high, err.value)


@describes(e.BadName)
def _bad_name(err: e.BadName) -> str:
    return encounters.bad_name("it is not a name this encounter can use")


NAMED = {"name": "A name", "encounter": "An encounter name", "side": "A side"}


@describes(e.MalformedName)
def _malformed_name(err: e.MalformedName) -> str:
    what = NAMED.get(err.what, "A name")
    if err.problem == "control":
        return encounters.bad_name(f"{what} may not contain control characters")
    if err.problem == "empty":
        return encounters.bad_name(f"{what} needs at least one visible character")
    return encounters.bad_name(f"{what} may have at most {err.limit} characters, not {err.length}")


@describes(e.UnknownCombatant)
def _unknown_combatant(err: e.UnknownCombatant) -> str:
    return encounters.unknown_combatant(err.typed, err.names)


@describes(e.AmbiguousCombatant)
def _ambiguous_combatant(err: e.AmbiguousCombatant) -> str:
    return encounters.ambiguous_combatant(err.typed, err.names)


@describes(e.DuplicateCombatant)
def _duplicate_combatant(err: e.DuplicateCombatant) -> str:
    return encounters.duplicate_name(err.name)


@describes(e.UndoRefused)
def _undo_refused(err: e.UndoRefused) -> str:
    return encounters.undo_too_far(err.available)


@describes(e.InvalidName)
def _invalid_name(err: e.InvalidName) -> str:
    if err.problem == "not_text":
        return f"A character name {characters.name_not_text()}."
    if err.problem == "empty":
        return characters.name_empty()
    if err.problem == "control":
        return characters.name_control_characters()
    return characters.name_too_long(err.length)


@describes(e.DuplicateName)
def _duplicate_name(err: e.DuplicateName) -> str:
    return characters.name_taken(err.name, own=err.own)


@describes(e.CharacterNotFound)
def _character_not_found(err: e.CharacterNotFound) -> str:
    return characters.character_not_found(err.wanted, gm=err.gm)


@describes(e.CharacterGone)
def _character_gone(err: e.CharacterGone) -> str:
    return characters.character_gone()


@describes(e.AmbiguousCharacter)
def _ambiguous_character(err: e.AmbiguousCharacter) -> str:
    return characters.character_ambiguous(err.name, err.owner_ids)


@describes(e.NotYourCharacter)
def _not_your_character(err: e.NotYourCharacter) -> str:
    return characters.not_your_character(err.name)


@describes(e.NoCharacterChosen)
def _no_character_chosen(err: e.NoCharacterChosen) -> str:
    if not err.names:
        return characters.no_characters()
    return characters.which_character(err.names, err.system)


@describes(e.StoredSheetInvalid)
def _stored_sheet_invalid(err: e.StoredSheetInvalid) -> str:
    return characters.stored_sheet_invalid(err.name, err.problems)


@describes(e.FileTooLarge)
def _file_too_large(err: e.FileTooLarge) -> str:
    return characters.file_too_large(err.size)


@describes(e.NotUTF8)
def _not_utf8(err: e.NotUTF8) -> str:
    return characters.file_not_utf8(err.line, err.column)


@describes(e.UnknownFormat)
def _unknown_format(err: e.UnknownFormat) -> str:
    return characters.file_unknown_format(err.filename)


@describes(e.Malformed)
def _malformed(err: e.Malformed) -> str:
    return characters.file_malformed(err.kind, err.message, err.line, err.column)


@describes(e.TooComplex)
def _too_complex(err: e.TooComplex) -> str:
    return characters.file_too_complex()


@describes(e.NotAMapping)
def _not_a_mapping(err: e.NotAMapping) -> str:
    return characters.file_not_a_mapping(err.kind)


@describes(e.ImportRefused)
def _import_refused(err: e.ImportRefused) -> str:
    return characters.import_refused(err.filename, err.problems, attached=False)


@describes(DiceValuesRefused)
def _dice_refused(err: DiceValuesRefused) -> str:
    return gm.dice_refused(err)


@describes(UnknownRule)
def _unknown_rule(err: UnknownRule) -> str:
    return gm.unknown_rule(err)


@describes(BadRuleValue)
def _bad_rule_value(err: BadRuleValue) -> str:
    return gm.bad_rule_value(err)


@describes(InheritOutsideThread)
def _inherit_outside_thread(err: InheritOutsideThread) -> str:
    return gm.inherit_outside_thread()


@describes(InvalidDuration)
def _invalid_duration(err: InvalidDuration) -> str:
    return err.reason  # the duration parser words its refusals itself, like the rules
