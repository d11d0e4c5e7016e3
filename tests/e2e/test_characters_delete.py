"""/character delete: the Delete/Keep buttons, who may press them, stale and repeated clicks, restarts."""

from __future__ import annotations

from bot.characters import CharacterBook
from rules.systems.registry import system_names
from tests.e2e.conftest import Harness

ANY_SYSTEM = system_names()[0]


def book(fray: Harness) -> CharacterBook:
    assert fray.bot is not None
    return CharacterBook(fray.bot.store)


async def names(fray: Harness) -> list[str]:
    return [r.name for r in await book(fray).refs(fray.guild.id)]


async def ask_delete(fray: Harness, member, character: str):
    r = await fray.fd.invoke(fray.channel, member, "character delete", character=character)
    assert not r.ephemeral, r.content
    confirm = next(c for c in r.custom_ids if c.startswith("fray:char-del:"))
    cancel = next(c for c in r.custom_ids if c.startswith("fray:char-keep:"))
    return r, confirm, cancel


async def test_delete_after_confirm(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.player, "character create", name="Ana", system=ANY_SYSTEM)
    r, confirm, _ = await ask_delete(fray, fray.player, "ana")
    ref = (await book(fray).refs(fray.guild.id))[0]
    assert confirm.startswith(f"fray:char-del:{ref.id}:{fray.player.id}")
    assert "Ana" in r.content and await names(fray) == ["Ana"]  # nothing happens before the click
    clicked = await fray.fd.click(r, fray.player, confirm)
    assert "was deleted" in clicked.content
    assert await names(fray) == []
    assert not fray.fd.world.messages[r.response.id].components  # the buttons are gone


async def test_cancel_keeps_the_character(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.player, "character create", name="Ana", system=ANY_SYSTEM)
    r, _, cancel = await ask_delete(fray, fray.player, "Ana")
    clicked = await fray.fd.click(r, fray.player, cancel)
    assert "kept" in clicked.content
    assert await names(fray) == ["Ana"]


async def test_only_the_owner_or_a_gm_may_confirm(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.player, "character create", name="Ana", system=ANY_SYSTEM)
    r, confirm, cancel = await ask_delete(fray, fray.player, "Ana")
    for custom_id in (confirm, cancel):
        refused = await fray.fd.click(r, fray.gm, custom_id)  # not a GM yet
        assert refused.ephemeral and "owner or a GM" in refused.content
    assert await names(fray) == ["Ana"]
    clicked = await fray.fd.click(r, fray.owner, confirm)  # Manage Server: a GM
    assert "was deleted" in clicked.content and await names(fray) == []


async def test_a_player_cannot_ask_to_delete_someone_elses(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.owner, "character create", name="Olga's NPC", system=ANY_SYSTEM)
    r = await fray.fd.invoke(fray.channel, fray.player, "character delete", character="Olga's NPC")
    assert r.ephemeral and not r.custom_ids
    ref = (await book(fray).refs(fray.guild.id))[0]
    r = await fray.fd.invoke(fray.channel, fray.player, "character delete", character=ref.reference)
    assert r.ephemeral and "belongs to another member" in r.content
    assert await names(fray) == ["Olga's NPC"]


async def test_a_second_confirm_answers_politely(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.player, "character create", name="Ana", system=ANY_SYSTEM)
    first, confirm1, _ = await ask_delete(fray, fray.player, "Ana")
    second, confirm2, _ = await ask_delete(fray, fray.player, "Ana")
    third, confirm3, _ = await ask_delete(fray, fray.player, "Ana")
    await fray.fd.click(first, fray.player, confirm1)
    again = await fray.fd.click(second, fray.player, confirm2)
    assert "already deleted" in again.content
    assert not fray.fd.world.messages[second.response.id].components
    # a new character of the same name (SQLite may even give it the same id) is not touched by an old button
    await fray.fd.invoke(fray.channel, fray.player, "character create", name="Ana", system=ANY_SYSTEM)
    stale = await fray.fd.click(third, fray.player, confirm3)
    assert "already deleted" in stale.content
    assert await names(fray) == ["Ana"]


async def test_buttons_work_after_a_restart(fray: Harness) -> None:
    await fray.fd.invoke(fray.channel, fray.player, "character create", name="Ana", system=ANY_SYSTEM)
    r, confirm, _ = await ask_delete(fray, fray.player, "Ana")
    await fray.restart()
    clicked = await fray.fd.click(r.response.id, fray.player, confirm)
    assert "was deleted" in clicked.content
    assert await names(fray) == []
