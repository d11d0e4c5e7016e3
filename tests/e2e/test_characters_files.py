"""/character import and /character export through the fake Discord: the round trip for each system, and
every way a file can be refused (nothing is saved then)."""

from __future__ import annotations

import json

import pytest

from bot.characters import CharacterBook, CharacterRecord
from bot.playground.loopback import FakeMember
from bot.sheet_files import MAX_BYTES
from rules.systems.registry import get_system, system_names
from tests.e2e.conftest import Harness

SYSTEMS = system_names()
ANY_SYSTEM = system_names()[0]


def book(fray: Harness) -> CharacterBook:
    assert fray.bot is not None
    return CharacterBook(fray.bot.store)


async def stored(fray: Harness, owner: FakeMember, name: str) -> CharacterRecord | None:
    refs = await book(fray).refs(fray.guild.id, owner_id=owner.id, name=name)
    return await book(fray).get(refs[0].id) if refs else None


async def import_file(fray: Harness, member: FakeMember, filename: str, data: bytes):
    return await fray.fd.invoke(fray.channel, member, "character import", file=(filename, data))


def document(system: str, name: str = "Ana") -> dict:
    rules = get_system(system)
    sheet = rules.set_weapon(rules.new_sheet(name), rules.weapon_names()[0])
    return {"system": system, **{k: v for k, v in rules.sheet_to_dict(sheet).items() if k != "system"}}


@pytest.mark.parametrize("system", SYSTEMS)
async def test_export_then_import_gives_the_identical_sheet(fray: Harness, system: str) -> None:
    rules = get_system(system)
    fd = fray.fd
    await fd.invoke(fray.channel, fray.player, "character create", name="Ana Åström", system=system)
    await fd.invoke(
        fray.channel, fray.player, "character weapon", name=rules.weapon_names()[-1], character="Ana Åström"
    )
    await fd.invoke(
        fray.channel, fray.player, "character armour", name=rules.armour_names()[0], character="Ana Åström"
    )
    original = await stored(fray, fray.player, "Ana Åström")

    r = await fd.invoke(fray.channel, fray.player, "character export", character="ana åström")
    assert r.ephemeral and len(r.files) == 1
    exported = r.files[0]
    assert exported.filename.endswith(".json")
    doc = json.loads(exported.data)
    assert list(doc)[:2] == ["system", "name"] and doc["system"] == system and doc["name"] == "Ana Åström"

    # the sheet changes, then the file brings it back exactly
    await fd.invoke(
        fray.channel,
        fray.player,
        "character weapon",
        name=rules.weapon_names()[-1],
        remove=True,
        character="Ana Åström",
    )
    assert (await stored(fray, fray.player, "Ana Åström")).sheet != original.sheet
    r = await import_file(fray, fray.player, exported.filename, exported.data)
    assert r.ephemeral and "Updated" in r.content, r.content
    back = await stored(fray, fray.player, "Ana Åström")
    assert back.id == original.id
    assert rules.sheet_to_dict(back.load()) == rules.sheet_to_dict(original.load())
    assert back.sheet == original.sheet

    # and another member importing the same file gets a new character of their own
    r = await import_file(fray, fray.gm, exported.filename, exported.data)
    assert "as a new character" in r.content
    assert (await stored(fray, fray.gm, "Ana Åström")).sheet == original.sheet


@pytest.mark.parametrize("system", SYSTEMS)
async def test_import_yaml(fray: Harness, system: str) -> None:
    import yaml

    rules = get_system(system)
    doc = document(system, "Yamlina")
    r = await import_file(fray, fray.player, "yamlina.yml", yaml.safe_dump(doc, allow_unicode=True).encode())
    assert r.ephemeral and "as a new character" in r.content, r.content
    expected = rules.set_weapon(rules.new_sheet("Yamlina"), rules.weapon_names()[0])
    assert (await stored(fray, fray.player, "Yamlina")).sheet == rules.sheet_to_dict(expected)


@pytest.mark.parametrize("system", [s for s in SYSTEMS if s != "nyra"])  # nyra sheets hold nulls
async def test_import_toml(fray: Harness, system: str) -> None:
    import tomli_w

    rules = get_system(system)
    doc = {k: v for k, v in document(system, "Tomasz").items() if v is not None}  # TOML has no null
    r = await import_file(fray, fray.player, "tomasz.toml", tomli_w.dumps(doc).encode())
    assert r.ephemeral and "as a new character" in r.content, r.content
    expected = rules.set_weapon(rules.new_sheet("Tomasz"), rules.weapon_names()[0])
    assert (await stored(fray, fray.player, "Tomasz")).sheet == rules.sheet_to_dict(expected)


async def test_an_invalid_sheet_lists_every_problem_and_saves_nothing(fray: Harness) -> None:
    system = ANY_SYSTEM
    doc = document(system)
    doc["bogus"] = 1
    doc["also_bogus"] = {"x": 1}
    doc["name"] = ""
    r = await import_file(fray, fray.player, "ana.json", json.dumps(doc).encode())
    assert r.ephemeral and "nothing was saved" in r.content
    assert "`bogus`" in r.content and "`also_bogus`" in r.content and "`name`" in r.content
    assert await book(fray).refs(fray.guild.id) == []

    # an existing sheet stays as it was
    await fray.fd.invoke(fray.channel, fray.player, "character create", name="Ana", system=system)
    before = await stored(fray, fray.player, "Ana")
    doc["name"] = "Ana"
    r = await import_file(fray, fray.player, "ana.json", json.dumps(doc).encode())
    assert r.ephemeral and "`bogus`" in r.content
    assert await stored(fray, fray.player, "Ana") == before


async def test_many_problems_come_as_an_attached_list(fray: Harness) -> None:
    doc = document(ANY_SYSTEM)
    for i in range(120):
        doc[f"unknown_field_number_{i:03d}"] = i
    r = await import_file(fray, fray.player, "ana.json", json.dumps(doc).encode())
    assert r.ephemeral and "more" in r.content and len(r.content) <= 2000
    listing = [f for f in r.files if f.filename == "problems.txt"]
    assert listing and all(f"unknown_field_number_{i:03d}" in listing[0].data.decode() for i in range(120))


@pytest.mark.parametrize(
    ("filename", "data", "expected"),
    [
        ("big.json", b'{"name": "' + b"x" * MAX_BYTES + b'"}', "at most 256 KB"),
        ("latin1.json", '{"system": "d6", "name": "Zoë"}'.encode("latin-1"), "not UTF-8"),
        ("broken.json", b'{\n  "system": "d6",\n  "name": "Ana",,\n}', "line 3"),
        ("broken.yaml", b"system: d6\nname: [Ana\n", "line 3"),
        ("broken.toml", b'system = "d6"\nname = \n', "line 2"),
        ("sheet.txt", b'{"system": "d6", "name": "Ana"}', ".json"),
        ("sheet.json", b'{"system": "gurps", "name": "Ana"}', "not a rule system"),
        ("sheet.json", b'{"name": "Ana"}', "`system`"),
        ("sheet.json", b"[1, 2, 3]", "top level"),
    ],
)
async def test_files_that_cannot_be_imported(
    fray: Harness, filename: str, data: bytes, expected: str
) -> None:
    r = await import_file(fray, fray.player, filename, data)
    assert r.ephemeral and expected in r.content, r.content
    assert await book(fray).refs(fray.guild.id) == []


async def test_export_is_for_owners_and_gms(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.player, "character create", name="Ana", system=ANY_SYSTEM)
    r = await fray.fd.invoke(fray.channel, fray.gm, "character export", character="Ana")
    assert r.ephemeral and not r.files
    r = await fray.fd.invoke(fray.channel, fray.owner, "character export", character="Ana")
    assert r.ephemeral and r.files and json.loads(r.files[0].data)["name"] == "Ana"
