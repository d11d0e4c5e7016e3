"""bot.characters: names, the one-transaction changes, resolving the ``character`` option, import saves."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot import sheet_files as sf
from bot.characters import (
    AmbiguousCharacter,
    CharacterBook,
    CharacterError,
    CharacterNotFound,
    DuplicateName,
    InvalidName,
    NoCharacterChosen,
    NotYourCharacter,
    check_name,
    name_key,
    name_problem,
    set_fields,
)
from bot.db import create_engine, migrate, session_factory
from bot.errors import FieldsRefused
from bot.models import Character
from bot.settings import Settings
from bot.store import Store
from cogs.text.errors import describe
from rules.errors import RulesError
from rules.systems.registry import get_system, system_names

GUILD, OTHER_GUILD = 1, 2
PIA, GERD = 100, 200


SYSTEMS = system_names()
ANY_SYSTEM = system_names()[0]


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 5, 6, 7, 8, 9, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=1)
        return self.now


@pytest.fixture
async def book(bot_settings: Settings):
    engine = create_engine(bot_settings.database_url, database_path=bot_settings.database_path)
    await migrate(engine)
    yield CharacterBook(Store(session_factory(engine), Clock()))
    await engine.dispose()


# --- names ----------------------------------------------------------------------------------------------


def test_names_are_trimmed_and_bounded() -> None:
    assert check_name("  Ana  ") == "Ana"
    assert check_name("x" * 64) == "x" * 64
    for bad in ("", "   ", "x" * 65, "Ana\nBo", "Ana\tBo", "A\x00", "A\u2028B"):
        with pytest.raises(InvalidName):
            check_name(bad)
    assert name_problem(5) is not None
    assert name_key("ANA") == name_key("ana") == name_key(" Ana ")
    assert name_key("Straße") == name_key("STRASSE")


# --- create / duplicate ---------------------------------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
async def test_create_stores_the_systems_new_sheet(book: CharacterBook, system: str) -> None:
    record = await book.create(GUILD, PIA, "  Ana ", system)
    rules = get_system(system)
    assert record.name == "Ana" and record.system == system and record.owner_id == PIA
    assert dict(record.sheet) == rules.sheet_to_dict(rules.new_sheet("Ana"))
    assert record.created_at == record.updated_at
    assert await book.get(record.id) == record


async def test_names_are_unique_per_server_and_owner_ignoring_case(book: CharacterBook) -> None:
    await book.create(GUILD, PIA, "Ana", ANY_SYSTEM)
    with pytest.raises(DuplicateName) as err:
        await book.create(GUILD, PIA, "ANA", ANY_SYSTEM)
    assert "already have" in describe(err.value)
    await book.create(GUILD, GERD, "Ana", ANY_SYSTEM)  # another owner
    await book.create(OTHER_GUILD, PIA, "Ana", ANY_SYSTEM)  # another server
    assert len(await book.refs(GUILD)) == 2
    assert await book.count(GUILD) == 2 and await book.count(GUILD, owner_id=PIA) == 1


async def test_concurrent_creates_of_one_name_make_one_character(book: CharacterBook) -> None:
    results = await asyncio.gather(
        *(book.create(GUILD, PIA, f"Ana{'' if i % 2 else ' '}", ANY_SYSTEM) for i in range(6)),
        return_exceptions=True,
    )
    assert sum(not isinstance(r, BaseException) for r in results) == 1
    assert all(isinstance(r, DuplicateName) for r in results if isinstance(r, BaseException))


# --- resolve --------------------------------------------------------------------------------------------


async def test_resolve_by_name_id_and_default(book: CharacterBook) -> None:
    systems = list(system_names())
    ana = await book.create(GUILD, PIA, "Ana", systems[0])
    assert (await book.resolve(GUILD, PIA, "ana")).id == ana.id
    assert (await book.resolve(GUILD, PIA, f"#{ana.id}")).id == ana.id
    assert (await book.resolve(GUILD, PIA, None, system=systems[0])).id == ana.id
    assert (await book.resolve(GUILD, PIA, None)).id == ana.id  # no system here: the only one
    with pytest.raises(NoCharacterChosen):
        await book.resolve(GUILD, GERD, None)
    await book.create(GUILD, PIA, "Bo", systems[0])
    with pytest.raises(NoCharacterChosen) as err:
        await book.resolve(GUILD, PIA, None, system=systems[0])
    assert "Ana" in describe(err.value) and "Bo" in describe(err.value)
    if len(systems) > 1:
        cid = await book.create(GUILD, PIA, "Cy", systems[1])
        assert (await book.resolve(GUILD, PIA, None, system=systems[1])).id == cid.id
    with pytest.raises(CharacterNotFound):
        await book.resolve(GUILD, PIA, "Nobody")


async def test_members_reach_only_their_own_and_gms_everyones(book: CharacterBook) -> None:
    ana = await book.create(GUILD, PIA, "Ana", ANY_SYSTEM)
    with pytest.raises(CharacterNotFound):
        await book.resolve(GUILD, GERD, "Ana")
    with pytest.raises(NotYourCharacter):
        await book.resolve(GUILD, GERD, f"#{ana.id}")
    assert (await book.resolve(GUILD, GERD, "Ana", gm=True)).id == ana.id
    assert (await book.resolve(GUILD, GERD, f"#{ana.id}", gm=True)).id == ana.id
    with pytest.raises(CharacterNotFound):  # another server's id is nothing here
        await book.resolve(OTHER_GUILD, PIA, f"#{ana.id}", gm=True)
    # a GM's own character of that name wins; two others of that name are ambiguous
    await book.create(GUILD, 300, "Ana", ANY_SYSTEM)
    with pytest.raises(AmbiguousCharacter):
        await book.resolve(GUILD, GERD, "ana", gm=True)
    own = await book.create(GUILD, GERD, "Ana", ANY_SYSTEM)
    assert (await book.resolve(GUILD, GERD, "ana", gm=True)).id == own.id


async def test_suggest_filters_and_limits(book: CharacterBook) -> None:
    for i in range(30):
        await book.create(GUILD, PIA, f"Zed {i:02d}", ANY_SYSTEM)
    await book.create(GUILD, PIA, "Ada", ANY_SYSTEM)
    await book.create(GUILD, PIA, "Bada", ANY_SYSTEM)
    await book.create(GUILD, GERD, "Adam", ANY_SYSTEM)
    assert len(await book.suggest(GUILD, "", owner_id=PIA)) == 25
    assert [r.name for r in await book.suggest(GUILD, "ad", owner_id=PIA)] == ["Ada", "Bada"]
    assert [r.name for r in await book.suggest(GUILD, "ad")] == ["Ada", "Adam", "Bada"]
    assert await book.suggest(GUILD, "%", owner_id=PIA) == []
    assert await book.suggest(GUILD, "_", owner_id=PIA) == []


# --- changes --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
async def test_change_saves_in_one_go_and_errors_save_nothing(book: CharacterBook, system: str) -> None:
    rules = get_system(system)
    ana = await book.create(GUILD, PIA, "Ana", system)
    weapon = rules.weapon_names()[0]
    change = await book.change(ana, lambda r, s: r.set_weapon(s, weapon))
    assert change.before.sheet == ana.sheet
    assert weapon in rules.sheet_weapons(change.after.load())
    assert change.after.updated_at > ana.updated_at
    with pytest.raises(RulesError):
        await book.change(ana, lambda r, s: r.set_weapon(s, "No Such Weapon"))
    assert (await book.get(ana.id)) == change.after


@pytest.mark.parametrize("system", SYSTEMS)
def test_fields_in_one_go_refused_carry_each_problem_as_data(system: str) -> None:
    rules = get_system(system)
    sheet = rules.new_sheet("Ana")
    field = rules.sheet_fields()[0]
    with pytest.raises(FieldsRefused) as err:
        set_fields(rules, sheet, [(field, "lots"), (field, "ever so many")])
    assert [(name, value) for name, value, _ in err.value.problems] == [
        (field, "lots"),
        (field, "ever so many"),
    ]
    assert all(reason for _, _, reason in err.value.problems)
    said = describe(err.value)
    assert "ever so many" in said and "FieldsRefused" not in said


async def test_rename_keeps_names_unique(book: CharacterBook) -> None:
    ana = await book.create(GUILD, PIA, "Ana", ANY_SYSTEM)
    await book.create(GUILD, PIA, "Bo", ANY_SYSTEM)
    with pytest.raises(DuplicateName):
        await book.rename(ana, "bo")
    with pytest.raises(InvalidName):
        await book.rename(ana, "x" * 65)
    change = await book.rename(ana, " Anabel ")
    assert change.after.name == "Anabel"
    assert get_system(ANY_SYSTEM).sheet_name(change.after.load()) == "Anabel"
    assert (await book.resolve(GUILD, PIA, "ANABEL")).id == ana.id
    renamed_case = await book.rename(change.after, "ANABEL")  # same key, new spelling
    assert renamed_case.after.name == "ANABEL"


async def test_a_deleted_character_cannot_be_changed(book: CharacterBook) -> None:
    ana = await book.create(GUILD, PIA, "Ana", ANY_SYSTEM)
    assert (await book.delete(ana.id, owner_id=GERD)) is None  # not Gerd's
    gone = await book.delete(ana.id)
    assert gone is not None and gone.name == "Ana"
    assert await book.delete(ana.id) is None
    with pytest.raises(CharacterNotFound):
        await book.change(ana, lambda r, s: s)


async def test_a_stored_sheet_that_no_longer_validates_says_so(book: CharacterBook) -> None:
    ana = await book.create(GUILD, PIA, "Ana", ANY_SYSTEM)
    async with book.sessions() as session, session.begin():
        row = await session.get(Character, ana.id)
        row.sheet = {**row.sheet, "bogus_field": 1}
    record = await book.get(ana.id)
    with pytest.raises(CharacterError) as err:
        record.load()
    assert "bogus_field" in describe(err.value)


# --- import / export at the function level --------------------------------------------------------------


@pytest.mark.parametrize("system", SYSTEMS)
async def test_export_import_round_trip(book: CharacterBook, system: str) -> None:
    rules = get_system(system)
    ana = await book.create(GUILD, PIA, "Ana", system)
    ana = (await book.change(ana, lambda r, s: r.set_weapon(s, r.weapon_names()[-1]))).after
    ana = (await book.change(ana, lambda r, s: r.set_armour(s, r.armour_names()[0]))).after
    data = sf.export_bytes(system, ana.load())
    # change the stored sheet, then import the exported file over it
    await book.change(ana, lambda r, s: r.set_weapon(s, r.weapon_names()[-1], remove=True))
    imported = sf.read_sheet("Ana.json", data)
    saved, before = await book.save_import(GUILD, PIA, imported.system, imported.sheet)
    assert before is not None and saved.id == ana.id
    assert dict(saved.sheet) == dict(ana.sheet)
    assert rules.sheet_to_dict(saved.load()) == rules.sheet_to_dict(ana.load())
    # someone else importing it gets their own new character
    other, before = await book.save_import(GUILD, GERD, imported.system, imported.sheet)
    assert before is None and other.id != ana.id and other.owner_id == GERD


async def test_import_may_change_the_system_of_a_sheet(book: CharacterBook) -> None:
    systems = list(system_names())
    if len(systems) < 2:
        pytest.skip("needs two systems")
    ana = await book.create(GUILD, PIA, "Ana", systems[0])
    rules = get_system(systems[1])
    saved, before = await book.save_import(GUILD, PIA, systems[1], rules.new_sheet("ANA"))
    assert saved.id == ana.id and saved.system == systems[1] and saved.name == "ANA"
    assert before is not None and before.system == systems[0]


# --- the sheet embed stays within Discord's limits ------------------------------------------------------


def test_a_huge_sheet_fits_in_one_embed() -> None:
    from cogs.text.characters import sheet_embed
    from rules.encounter import SheetView

    pairs = tuple((f"Skill {i} " + "x" * 50, "value " + "y" * 300) for i in range(200))
    view = SheetView(
        "N" * 300, (("Skills", pairs), ("Empty", ()), *((f"S{i}", pairs[:3]) for i in range(30)))
    )
    embed = sheet_embed(view, "d6", PIA).to_dict()
    fields = embed["fields"]
    assert len(embed["title"]) <= 256 and len(fields) <= 25
    assert all(1 <= len(f["name"]) <= 256 and 1 <= len(f["value"]) <= 1024 for f in fields)
    total = len(embed["title"]) + len(embed["description"]) + len(embed["footer"]["text"])
    total += sum(len(f["name"]) + len(f["value"]) for f in fields)
    assert total <= 6000
    assert fields[-1]["name"] == "…"  # says it was cut
    small = sheet_embed(SheetView("Ana", (("Stats", (("STR", "5"),)), ("Skills", ()))), "nyra", PIA).to_dict()
    assert [f["value"] for f in small["fields"]] == ["**STR**: 5", "—"]
