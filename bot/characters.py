"""Characters: the queries and changes behind ``/character …`` (and what encounters need from sheets).

``CharacterBook(store)`` is cheap to build (the cog builds one; anyone may build another over the same
store). Every change goes through the store's change path (``Store.change(characters_key(server, owner))``:
that member's lock, one transaction) and saves with a version check (``StaleCharacter``: someone else saved
the sheet in between, nothing is saved), so two changes to one member's sheets never interleave or overwrite
each other; the database's unique (guild, owner, name_key) constraint is the last word on names.

Records handed out are plain frozen values (``CharacterRef`` for lists and autocomplete, ``CharacterRecord``
with the stored sheet), never live ORM rows.

Addressing a character (``resolve``), the rule the cogs follow:
- ``#<id>`` (what autocomplete sends) names that character exactly;
- otherwise the text is a name (case-insensitive): the member's own character of that name first; a GM who has
  none of that name gets the server's only character of that name (several → "pick from the list");
- left out: the member's only character of the channel's system (or, in a channel without a system, their
  only character); otherwise they are asked which one.
Members act on their own characters only; a GM (``cogs._checks.is_gm``) on anyone's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from bot.errors import AmbiguousCharacter as AmbiguousCharacter
from bot.errors import CharacterError as CharacterError
from bot.errors import (
    CharacterGone,
    CharacterNameProblem,
    CharacterNotFound,
    DuplicateName,
    FieldsRefused,
    InvalidName,
    NoCharacterChosen,
    NotYourCharacter,
    StaleCharacter,
    StoredSheetInvalid,
)
from bot.models import Character
from bot.store import Store, characters_key, versioned_delete, versioned_update, write_turn
from rules.encounter import System
from rules.errors import RulesError, ValidationError
from rules.systems.registry import get_system, system_names

NAME_MAX = 64
ID_REFERENCE = re.compile(r"#([0-9]{1,19})")


# --- names ----------------------------------------------------------------------------------------------


def name_problem(raw: object) -> CharacterNameProblem | None:
    """Why ``raw`` cannot be a character name (after trimming), or ``None`` when it can."""
    if not isinstance(raw, str):
        return "not_text"
    name = raw.strip()
    if not name:
        return "empty"
    if any(unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") for ch in name):
        return "control"
    if len(name) > NAME_MAX:
        return "too_long"
    return None


def check_name(raw: str) -> str:
    """The trimmed name, or ``InvalidName`` (1..64 characters, no control characters)."""
    problem = name_problem(raw)
    if problem is not None:
        raise InvalidName(problem, len(raw.strip()) if isinstance(raw, str) else 0)
    return raw.strip()


_VALUE = re.compile(r"^(?:[+-]?\d+|\d+D(?:[+-]\d+)?)$", re.IGNORECASE)


def is_value(token: str) -> bool:
    """A field's value as `/character set` reads it in a list: a number or a die code."""
    return bool(_VALUE.match(token))


def field_pairs(field: str, value: str) -> list[tuple[str, str]]:
    """``/character set field:STR value:7 AGI 6 Swords 7`` as pairs ``[(STR, 7), (AGI, 6), (Swords, 7)]``:
    after the first value, names (one or more words) alternate with values (a number or a die code). A value
    that does not read so is one value for one field, as before."""
    tokens = value.split()
    if len(tokens) < 3 or not _VALUE.match(tokens[0]):
        return [(field, value.strip())]
    pairs = [(field, tokens[0])]
    name: list[str] = []
    for token in tokens[1:]:
        if _VALUE.match(token) and name:
            pairs.append((" ".join(name), token))
            name = []
        else:
            name.append(token)
    if name:  # a name left without its value: not a list of pairs after all
        return [(field, value.strip())]
    return pairs


def set_fields(rules: Any, sheet: Any, pairs: Sequence[tuple[str, str]]) -> Any:
    """All the fields or none: every problem is listed (``FieldsRefused``), nothing is set when one fails."""
    problems: list[tuple[str, str, str]] = []
    for name, val in pairs:
        try:
            sheet = rules.set_sheet_field(sheet, name, val)
        except RulesError as err:
            problems.append((name, val, err.reason))
    if problems:
        raise FieldsRefused(problems)
    return sheet


def name_key(name: str) -> str:
    """What makes two names the same: trimmed, case-folded, NFKC-normalised."""
    return unicodedata.normalize("NFKC", name.strip()).casefold()


# --- records --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CharacterRef:
    """A character without its sheet (lists, autocomplete, confirmation buttons)."""

    id: int
    guild_id: int
    owner_id: int
    name: str
    system: str
    created_at: datetime

    @property
    def reference(self) -> str:
        """The exact ``character`` option value (what autocomplete sends)."""
        return f"#{self.id}"


@dataclass(frozen=True, slots=True)
class CharacterRecord:
    """A character with its stored sheet (``System.sheet_to_dict`` output)."""

    id: int
    guild_id: int
    owner_id: int
    name: str
    system: str
    sheet: Mapping[str, Any]
    created_at: datetime
    updated_at: datetime
    version: int = 0

    @property
    def ref(self) -> CharacterRef:
        return CharacterRef(self.id, self.guild_id, self.owner_id, self.name, self.system, self.created_at)

    @property
    def rules(self) -> System:
        return get_system(self.system)

    def load(self) -> Any:
        """The system's sheet object. A stored sheet that no longer validates raises ``CharacterError``."""
        try:
            return self.rules.sheet_from_dict(self.sheet)
        except ValidationError as err:
            raise StoredSheetInvalid(self.name, err.problems) from err


def _record(row: Character) -> CharacterRecord:
    assert row.id is not None
    return CharacterRecord(
        id=row.id,
        guild_id=row.guild_id,
        owner_id=row.owner_id,
        name=row.name,
        system=row.system,
        sheet=dict(row.sheet or {}),
        created_at=row.created_at,
        updated_at=row.updated_at,
        version=row.version,
    )


_REF_COLUMNS = (
    Character.id,
    Character.guild_id,
    Character.owner_id,
    Character.name,
    Character.system,
    Character.created_at,
)


def _ref(row: Sequence[Any]) -> CharacterRef:
    return CharacterRef(int(row[0]), int(row[1]), int(row[2]), str(row[3]), str(row[4]), row[5])


def _like_escape(typed: str) -> str:
    return typed.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


SheetChange = Callable[[System, Any], Any]


@dataclass(frozen=True, slots=True)
class Change:
    """What ``CharacterBook.change`` did: the record before and after."""

    before: CharacterRecord
    after: CharacterRecord


# --- the book -------------------------------------------------------------------------------------------


async def _insert(
    session: AsyncSession,
    guild_id: int,
    owner_id: int,
    name: str,
    key: str,
    rules: System,
    sheet: Any,
    now: datetime,
) -> CharacterRecord:
    """A new character row (its unique name key decides a race); the record as stored."""
    row = Character(
        guild_id=guild_id,
        owner_id=owner_id,
        name=name,
        name_key=key,
        system=rules.name,
        sheet=rules.sheet_to_dict(sheet),
        created_at=now,
        updated_at=now,
    )
    await write_turn(session)
    session.add(row)
    await session.flush()
    return _record(row)


class CharacterBook:
    def __init__(self, store: Store) -> None:
        self.store = store
        self.sessions = store.sessions
        self.clock = store.clock

    # -- reads (no locks) ----------------------------------------------------------------------------

    async def get(self, character_id: int) -> CharacterRecord | None:
        async with self.sessions() as session:
            row = await session.get(Character, character_id)
            return _record(row) if row is not None else None

    async def refs(
        self,
        guild_id: int,
        *,
        owner_id: int | None = None,
        system: str | None = None,
        name: str | None = None,
        typed: str | None = None,
        limit: int | None = None,
    ) -> list[CharacterRef]:
        """Characters of a server (optionally one owner's, one system's, one name's, or matching ``typed``),
        ordered by name then owner."""
        query = sa.select(*_REF_COLUMNS).where(Character.guild_id == guild_id)
        if owner_id is not None:
            query = query.where(Character.owner_id == owner_id)
        if system is not None:
            query = query.where(Character.system == system)
        if name is not None:
            query = query.where(Character.name_key == name_key(name))
        if typed:
            query = query.where(
                col(Character.name_key).like(f"%{_like_escape(name_key(typed))}%", escape="\\")
            )
        query = query.order_by(Character.name_key, Character.owner_id, Character.id)
        if limit is not None:
            query = query.limit(limit)
        async with self.sessions() as session:
            result = await session.exec(query)  # type: ignore[call-overload]
            return [_ref(row) for row in result.all()]

    async def count(self, guild_id: int, *, owner_id: int | None = None) -> int:
        query = sa.select(sa.func.count()).select_from(Character).where(Character.guild_id == guild_id)
        if owner_id is not None:
            query = query.where(Character.owner_id == owner_id)
        async with self.sessions() as session:
            return int((await session.exec(query)).one()[0])  # type: ignore[call-overload]

    async def suggest(
        self, guild_id: int, typed: str, *, owner_id: int | None = None, limit: int = 25
    ) -> list[CharacterRef]:
        """Autocomplete: names containing ``typed`` (those starting with it first), at most ``limit``."""
        refs = await self.refs(guild_id, owner_id=owner_id, typed=typed.strip() or None, limit=200)
        key = name_key(typed)
        refs.sort(key=lambda r: (not name_key(r.name).startswith(key), name_key(r.name), r.owner_id))
        return refs[:limit]

    async def resolve(
        self,
        guild_id: int,
        member_id: int,
        wanted: str | None,
        *,
        gm: bool = False,
        system: str | None = None,
    ) -> CharacterRecord:
        """The character a command means (see the module docstring), or a ``CharacterError`` saying why not.

        ``system``: the channel's system, used only when ``wanted`` is left out.
        """
        if wanted is None or not wanted.strip():
            return await self._default(guild_id, member_id, system)
        wanted = wanted.strip()
        match = ID_REFERENCE.fullmatch(wanted)
        if match:
            record = await self.get(int(match[1]))
            if record is not None and record.guild_id == guild_id:
                if record.owner_id == member_id or gm:
                    return record
                raise NotYourCharacter(record.name)
        own = await self.refs(guild_id, owner_id=member_id, name=wanted)
        if own:
            return await self._must_get(own[0].id)
        if gm:
            everyone = await self.refs(guild_id, name=wanted)
            if len(everyone) == 1:
                return await self._must_get(everyone[0].id)
            if len(everyone) > 1:
                raise AmbiguousCharacter(everyone[0].name, [r.owner_id for r in everyone])
        raise CharacterNotFound(wanted, gm=gm)

    async def _default(self, guild_id: int, member_id: int, system: str | None) -> CharacterRecord:
        mine = await self.refs(guild_id, owner_id=member_id)
        if not mine:
            raise NoCharacterChosen()
        fitting = [r for r in mine if r.system == system] if system else mine
        if len(fitting) == 1:
            return await self._must_get(fitting[0].id)
        raise NoCharacterChosen([r.name for r in mine], system)

    async def _must_get(self, character_id: int) -> CharacterRecord:
        record = await self.get(character_id)
        if record is None:
            raise CharacterGone()
        return record

    # -- changes (one transaction each) --------------------------------------------------------------

    async def _name_taken(
        self, session: AsyncSession, guild_id: int, owner_id: int, key: str, *, besides: int | None = None
    ) -> Character | None:
        query = select(Character).where(
            Character.guild_id == guild_id, Character.owner_id == owner_id, Character.name_key == key
        )
        row = (await session.exec(query)).first()
        if row is not None and row.id != besides:
            return row
        return None

    async def create(self, guild_id: int, owner_id: int, name: str, system: str) -> CharacterRecord:
        """A new sheet (``System.new_sheet``). ``InvalidName``/``DuplicateName`` refuse."""
        name = check_name(name)
        rules = get_system(system)
        sheet = rules.new_sheet(name)
        return await self._insert(guild_id, owner_id, rules, sheet)

    async def _insert(self, guild_id: int, owner_id: int, rules: System, sheet: Any) -> CharacterRecord:
        name = check_name(rules.sheet_name(sheet))
        key = name_key(name)
        now = self.clock()
        try:
            async with self.store.change(characters_key(guild_id, owner_id)) as session:
                if await self._name_taken(session, guild_id, owner_id, key):
                    raise DuplicateName(name)
                return await _insert(session, guild_id, owner_id, name, key, rules, sheet, now)
        except IntegrityError as err:  # another process won the race for the name
            raise DuplicateName(name) from err

    async def _save(self, session: AsyncSession, before: CharacterRecord, **values: Any) -> CharacterRecord:
        """Write ``values`` over the row ``before`` was loaded from, version-checked; the record after."""
        version = await versioned_update(
            session, Character, before.id, before.version, values, stale=StaleCharacter
        )
        shown = {k: v for k, v in values.items() if k in CharacterRecord.__dataclass_fields__}
        return replace(before, **shown, version=version)

    async def change(self, character: CharacterRef | CharacterRecord, change: SheetChange) -> Change:
        """Load the sheet, apply ``change(system, sheet) -> new sheet`` (rules errors pass through and nothing
        is saved), save it. A new name (``rename_sheet``, or a ``name`` field) is checked and kept unique."""
        ref = character.ref if isinstance(character, CharacterRecord) else character
        try:
            async with self.store.change(characters_key(ref.guild_id, ref.owner_id)) as session:
                row = await session.get(Character, ref.id)
                if row is None or row.owner_id != ref.owner_id or row.guild_id != ref.guild_id:
                    raise CharacterGone()
                before = _record(row)
                rules = get_system(row.system)
                new_sheet = change(rules, before.load())
                name, key = before.name, row.name_key
                new_name = rules.sheet_name(new_sheet)
                if new_name != row.name:
                    name = check_name(new_name)
                    if name != new_name:
                        new_sheet = rules.rename_sheet(new_sheet, name)
                    key = name_key(name)
                    if await self._name_taken(session, row.guild_id, row.owner_id, key, besides=row.id):
                        raise DuplicateName(name, own=True)
                after = await self._save(
                    session,
                    before,
                    name=name,
                    name_key=key,
                    sheet=rules.sheet_to_dict(new_sheet),
                    updated_at=self.clock(),
                )
                return Change(before, after)
        except IntegrityError as err:
            raise DuplicateName(ref.name) from err

    async def rename(self, character: CharacterRef | CharacterRecord, new_name: str) -> Change:
        cleaned = check_name(new_name)
        return await self.change(character, lambda rules, sheet: rules.rename_sheet(sheet, cleaned))

    async def save_import(
        self, guild_id: int, owner_id: int, system: str, sheet: Any
    ) -> tuple[CharacterRecord, CharacterRecord | None]:
        """Create the owner's sheet, or replace the owner's sheet of the same name (its system may change).
        Returns (the saved record, the record it replaced or ``None`` when created)."""
        rules = get_system(system)
        name = check_name(rules.sheet_name(sheet))
        if name != rules.sheet_name(sheet):
            sheet = rules.rename_sheet(sheet, name)
        key = name_key(name)
        now = self.clock()
        try:
            async with self.store.change(characters_key(guild_id, owner_id)) as session:
                row = await self._name_taken(session, guild_id, owner_id, key)
                if row is None:
                    return await _insert(session, guild_id, owner_id, name, key, rules, sheet, now), None
                before = _record(row)
                after = await self._save(
                    session,
                    before,
                    name=name,
                    system=rules.name,
                    sheet=rules.sheet_to_dict(sheet),
                    updated_at=now,
                )
                return after, before
        except IntegrityError as err:
            raise DuplicateName(name) from err

    async def delete(self, character_id: int, *, owner_id: int | None = None) -> CharacterRecord | None:
        """Delete and return the character, or ``None`` when it is already gone (or not ``owner_id``'s)."""
        record = await self.get(character_id)
        if record is None or (owner_id is not None and record.owner_id != owner_id):
            return None
        async with self.store.change(characters_key(record.guild_id, record.owner_id)) as session:
            row = await session.get(Character, character_id)
            if row is None or row.owner_id != record.owner_id:
                return None
            gone = _record(row)
            await versioned_delete(session, Character, character_id, gone.version, stale=StaleCharacter)
            return gone


def known_system(name: str | None) -> str | None:
    key = (name or "").strip().lower()
    return key if key in system_names() else None
