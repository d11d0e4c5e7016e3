"""The shell's domain errors: what went wrong, as data. The tree's error handler (``cogs.errors``) answers them
ephemerally with the sentence ``cogs.text.errors.describe`` makes from their fields.

``reason`` (every ``RulesError`` has one) is a short technical summary for logs, built from the fields; a cog
that raises a ``BotError`` with a sentence of its own (``BotError(text.something())``) keeps that sentence
(``worded``). The rules' own errors keep their ``reason`` text.

``NotGM`` and ``NotInGuild`` are also ``app_commands.CheckFailure``s so they can be raised from command checks
(discord.py only routes ``AppCommandError``s raised by checks to the tree's error handler).

Nothing here touches the database, so the text layer can import these classes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from discord import app_commands

from rules.errors import FieldProblem, NotAllowed, NotFound, RulesError


class BotError(RulesError):
    """An error a member can cause in the shell (not in the rules)."""

    def __init__(self, reason: str = "") -> None:
        self.worded = bool(reason)
        super().__init__(reason or self._summary())

    def _summary(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if k != "worded")
        return f"{type(self).__name__}({fields})"


class NotGM(BotError, NotAllowed, app_commands.CheckFailure):
    """The member is not a GM here (no Manage Server, not the GM role, not running the encounter)."""

    def __init__(self, reason: str = "", *, has_role: bool = False) -> None:
        self.has_role = has_role
        super().__init__(reason)


class NoSystem(BotError):
    """The channel (and its parent) has no rule system yet; a GM sets one with ``/gm system``."""


class NotInGuild(BotError, app_commands.CheckFailure):
    """The command needs a server channel."""


# --- encounters -----------------------------------------------------------------------------------------


class NoEncounter(BotError):
    """No open encounter in this channel or thread."""


class EncounterOpen(BotError):
    """A second encounter in one channel; ``name`` is the open one."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__()


class Stale(BotError):
    """A row changed between load and save (another process, or a change this one did not serialise with):
    nothing was saved, and trying again works on the new state."""


class StaleEncounter(Stale):
    """The encounter's version changed between load and save: nothing was saved."""


class StaleChannel(Stale):
    """The channel's settings changed between load and save."""


class StaleInstance(Stale):
    """The channel's instance changed between load and save (another fight in the same instance saved)."""


class NoInstances(BotError):
    """The channel's system keeps no instances between encounters (only the D6 campaign does); ``system``
    is None when the channel has no system yet."""

    def __init__(self, system: str | None) -> None:
        self.system = system
        super().__init__()


class StaleReminderSettings(Stale):
    """The channel's reminder settings changed between load and save: nothing was saved."""


class NotRunning(BotError):
    """The command needs a running fight."""


class OutOfRange(BotError):
    """A number option outside ``low..high``."""

    def __init__(self, option: str, low: int, high: int, value: int) -> None:
        self.option, self.low, self.high, self.value = option, low, high, value
        super().__init__()


class BadName(BotError):
    """An unknown, ambiguous, duplicate or malformed combatant name."""


NameProblem = Literal["control", "empty", "too_long"]
NamedThing = Literal["name", "encounter", "side"]


class MalformedName(BadName):
    """A name (of a combatant, an encounter or a side: ``what``) that cannot be used; ``length`` when too long."""

    def __init__(
        self, problem: NameProblem, what: NamedThing = "name", length: int = 0, limit: int = 0
    ) -> None:
        self.problem, self.what, self.length, self.limit = problem, what, length, limit
        super().__init__()


class UnknownCombatant(BadName):
    def __init__(self, typed: str, names: Sequence[str]) -> None:
        self.typed, self.names = typed, tuple(names)
        super().__init__()


class AmbiguousCombatant(BadName):
    def __init__(self, typed: str, names: Sequence[str]) -> None:
        self.typed, self.names = typed, tuple(names)
        super().__init__()


class DuplicateCombatant(BadName):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__()


class UndoRefused(BotError):
    """Undo past the encounter's start: only ``available`` changes can be undone."""

    def __init__(self, available: int) -> None:
        self.available = available
        super().__init__()


# --- characters -----------------------------------------------------------------------------------------


class CharacterError(BotError):
    """Base of the character feature's refusals."""


class FieldsRefused(CharacterError):
    """Several fields set in one go (`/character set`, the create form): none was set. ``problems``: each
    refused field with the value given and the rules' reason."""

    def __init__(self, problems: Sequence[tuple[str, str, str]] = ()) -> None:
        self.problems = tuple(problems)
        super().__init__()


CharacterNameProblem = Literal["not_text", "empty", "control", "too_long"]


class InvalidName(CharacterError):
    def __init__(self, problem: CharacterNameProblem, length: int = 0) -> None:
        self.problem, self.length = problem, length
        super().__init__()


class DuplicateName(CharacterError):
    """``own``: the member already has a character of that name (else the member the GM acted for)."""

    def __init__(self, name: str, *, own: bool = True) -> None:
        self.name, self.own = name, own
        super().__init__()


class CharacterNotFound(CharacterError, NotFound):
    """No character ``wanted`` (among the member's own, or for a GM in the whole server)."""

    def __init__(self, wanted: str, *, gm: bool = False) -> None:
        self.wanted, self.gm = wanted, gm
        super().__init__()


class CharacterGone(CharacterNotFound):
    """The character was deleted in between."""

    def __init__(self) -> None:
        super().__init__("")


class AmbiguousCharacter(CharacterError):
    def __init__(self, name: str, owner_ids: Sequence[int]) -> None:
        self.name, self.owner_ids = name, tuple(owner_ids)
        super().__init__()


class NotYourCharacter(CharacterError, NotAllowed):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__()


class NoCharacterChosen(CharacterError):
    """The ``character`` option was left out and the member has none (``names`` empty), or several."""

    def __init__(self, names: Sequence[str] = (), system: str | None = None) -> None:
        self.names, self.system = tuple(names), system
        super().__init__()


class StaleCharacter(CharacterError, Stale):
    """The character changed between load and save: nothing was saved."""


class StoredSheetInvalid(CharacterError):
    """A stored sheet no longer passes the rules."""

    def __init__(self, name: str, problems: Sequence[FieldProblem]) -> None:
        self.name, self.problems = name, tuple(problems)
        super().__init__()


# --- sheet files ----------------------------------------------------------------------------------------


class SheetFileError(BotError):
    """The file cannot be read at all (too large, not UTF-8, unknown format, malformed, not a table)."""


class FileTooLarge(SheetFileError):
    def __init__(self, size: int, limit_kb: int) -> None:
        self.size, self.limit_kb = size, limit_kb
        super().__init__()


class NotUTF8(SheetFileError):
    def __init__(self, line: int, column: int) -> None:
        self.line, self.column = line, column
        super().__init__()


class UnknownFormat(SheetFileError):
    def __init__(self, filename: str) -> None:
        self.filename = filename
        super().__init__()


class Malformed(SheetFileError):
    """``kind`` (JSON, YAML, TOML) could not be parsed: the parser's ``message`` and where."""

    def __init__(self, kind: str, message: str, line: int | None = None, column: int | None = None) -> None:
        self.kind, self.message, self.line, self.column = kind, message, line, column
        super().__init__()


class TooComplex(Malformed):
    """Nested too deeply, or too many entries, to be a sheet."""

    def __init__(self, kind: str = "") -> None:
        super().__init__(kind, "too complex")


class NotAMapping(Malformed):
    """The top level is not a table of fields."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind, "not a table")


class ImportRefused(BotError):
    """The file was read but its content is not a valid sheet: every problem, each with its path."""

    def __init__(self, filename: str, problems: Sequence[FieldProblem]) -> None:
        self.filename = filename
        self.problems: tuple[FieldProblem, ...] = tuple(problems)
        super().__init__()
