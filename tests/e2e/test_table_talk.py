"""What players read: a short fight per system through the fake Discord (no message is a ``key value;
key value`` dump or shows an internal id; the transcript is held in golden files a reviewer reads), and the
live tracker (edited in place across many changes, through a restart, re-posted when deleted or scrolled far
up)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from bot.playground.loopback import FakeMessage
from bot.playground.loopback.interactions import APPLICATION_COMMAND, DEFERRED_CHANNEL_MESSAGE
from cogs import deadline
from rules.dice import RandomDice
from rules.systems.registry import get_system, system_names
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import current, make_character, ok, setup_gm

GOLDEN = Path(__file__).parent.parent / "cogs" / "golden"
DUMP = re.compile(r"\b[a-z]+(?: [a-z]+)? -?\d+; [a-z]+(?: [a-z]+)? -?\d+")
ID_LEAK = re.compile(
    r"\b(?:combatant|who|other|target|attacker|defender|id) \d+\b|\(\d+ (?:entered|is out|died)"
)


async def short_fight(fray: Harness, system: str) -> None:
    """Vale (a PC) against two Raiders: begin, eight turns of attacks (or turn ends), GM damage and heal."""
    adapter = get_system(system)
    fray.dice.current = RandomDice(5)
    await setup_gm(fray, system)
    templates = adapter.creature_names()
    await make_character(fray, fray.player, "Vale", system, adapter.creature_sheet(templates[0], "Vale"))
    await ok(fray, fray.gm, "encounter start", name="Ambush")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter add", name="Raider", template=templates[-1], count=2, side="raiders")
    await ok(fray, fray.gm, "encounter begin")
    for _ in range(8):
        read, turn = await current(fray)
        actor = read.combatant(read.names[turn.actors[0]])
        mine = actor.name == "Vale"
        member, acting = (fray.player, {}) if mine else (fray.gm, {"as": actor.name})
        options = dict(acting)
        if system == "nyra":  # the weapons here deal more than one type: say which
            options["type"] = "P"
        if adapter.traits.declares_then_locks:
            options["lock"] = True
        await fray.fd.invoke(fray.channel, member, "attack", target="Raider 1" if mine else "Vale", **options)
        _, after = await current(fray)
        if after.key == turn.key:
            await fray.fd.invoke(fray.channel, member, "turn end", **acting)
    await fray.fd.invoke(fray.channel, fray.gm, "gm damage", target="Raider 2", amount=3)
    await fray.fd.invoke(fray.channel, fray.gm, "gm heal", target="Raider 2", amount=1)
    await fray.fd.invoke(fray.channel, fray.player, "encounter status")
    await fray.fd.invoke(fray.channel, fray.player, "encounter log", count=10)


def shown(m: FakeMessage) -> str:
    parts = [m.content]
    for e in m.embeds:
        parts += [e.get("title", ""), e.get("description", "")]
        parts += [f"{f['name']}: {f['value']}" for f in e.get("fields", [])]
    return "\n".join(p for p in parts if p)


@pytest.mark.parametrize("deferred", [False, True], ids=["answered-at-once", "every-answer-deferred"])
@pytest.mark.parametrize("system", system_names())
async def test_a_short_fight_reads_as_sentences(
    fray: Harness, system: str, deferred: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a slow machine any answer may go out after a "thinking…" acknowledgement: the channel then reads
    the same, word for word."""
    if deferred:
        monkeypatch.setattr(deadline, "DISCORD_DEADLINE", 0.003)  # acknowledge after 1 ms
    await short_fight(fray, system)
    if deferred:
        commands = [r for r in fray.fd.interactions if r.type == APPLICATION_COMMAND]
        acknowledged_first = [r for r in commands if r.callback_type == DEFERRED_CHANNEL_MESSAGE]
        assert len(acknowledged_first) > len(commands) / 2, (len(acknowledged_first), len(commands))
    shown_messages = (m for m in fray.fd.world.messages.values() if not m.deleted)
    messages = sorted(shown_messages, key=lambda m: m.id)
    assert len(messages) > 20
    for m in messages:  # public and ephemeral alike
        text = shown(m)
        assert not DUMP.search(text), text
        assert not ID_LEAK.search(text), text
        assert len(m.content) <= 2000 and sum(len(shown(e)) for e in [m]) - len(m.content) <= 6000
    public = [shown(m) for m in messages if not m.ephemeral and not m.embeds]
    transcript = "\n\n".join(re.sub(r"<@&?\d+>", "@someone", t) for t in public) + "\n"
    golden = GOLDEN / f"{system}.txt"
    if os.environ.get("FRAY_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(transcript)
    assert golden.read_text() == transcript, f"regenerate with FRAY_GOLDEN=1 and review {golden}"


def trackers(fray: Harness) -> list[FakeMessage]:
    """The live tracker messages the bot posted in the channel (not an interaction's reply)."""
    return [
        m
        for m in sorted(fray.fd.world.messages.values(), key=lambda m: m.id)
        if m.channel_id == fray.channel.id and m.embeds and m.interaction_id is None
    ]


async def stored_tracker_id(fray: Harness) -> int | None:
    read, _ = await current(fray)
    return read.encounter.tracker_message_id


async def end_turns(fray: Harness, n: int) -> None:
    for _ in range(n):
        await ok(fray, fray.gm, "gm next")


async def test_the_live_tracker_is_edited_in_place_survives_a_restart_and_is_reposted(fray: Harness) -> None:
    fray.dice.current = RandomDice(3)
    await setup_gm(fray, "nyra")
    nyra = get_system("nyra")
    await make_character(fray, fray.player, "Vale", "nyra", nyra.creature_sheet("Duelist", "Vale"))
    await ok(fray, fray.gm, "encounter start", name="Ford")
    await ok(fray, fray.player, "encounter join")
    await ok(fray, fray.gm, "encounter add", name="Wolf", template="Wolf")
    assert trackers(fray) == []  # posted when the fight begins
    await ok(fray, fray.gm, "encounter begin")
    (tracker,) = trackers(fray)
    assert await stored_tracker_id(fray) == tracker.id and "Ford" in tracker.embeds[0]["title"]
    await end_turns(fray, 6)
    await ok(fray, fray.gm, "gm damage", target="Wolf", amount=2, location="Head")
    await ok(fray, fray.gm, "gm heal", target="Wolf", amount=1)
    await ok(fray, fray.gm, "gm condition", target="Vale", condition="prone")
    await ok(fray, fray.gm, "gm condition", target="Vale", condition="prone", remove=True)
    assert trackers(fray) == [tracker] and len(tracker.history) >= 10  # ten changes, one message
    assert "Head" in tracker.embeds[0]["description"]

    await fray.restart()
    edits = len(tracker.history)
    await end_turns(fray, 1)
    assert trackers(fray) == [tracker] and len(tracker.history) == edits + 1

    await fray.fd.delete_message(tracker)
    await end_turns(fray, 1)
    (new,) = [m for m in trackers(fray) if not m.deleted]
    assert new.id != tracker.id and await stored_tracker_id(fray) == new.id
    edits = len(tracker.history)
    await end_turns(fray, 1)
    assert len(tracker.history) == edits and len(new.history) == 1  # the old one is left alone

    for i in range(30):  # the table talks: the tracker scrolls far up
        await fray.fd.post_message(fray.channel, fray.player, f"chatter {i}")
    await end_turns(fray, 1)
    latest = [m for m in trackers(fray) if not m.deleted]
    assert len(latest) == 2 and await stored_tracker_id(fray) == latest[-1].id
    assert fray.fd.channel_messages(fray.channel)[-1].id in {latest[-1].id} or any(
        c.startswith("fray:end-turn:") for c in fray.fd.channel_messages(fray.channel)[-1].custom_ids
    )


async def two_wolves(fray: Harness) -> FakeMessage:
    """A running D6 fight of two wolves (random dice); its tracker."""
    fray.dice.current = RandomDice(3)
    await setup_gm(fray, "d6")
    await ok(fray, fray.gm, "encounter start", name="Ford")
    await ok(fray, fray.gm, "encounter add", name="Wolf", template="wolf", count=2, side="wolves")
    await ok(fray, fray.gm, "encounter begin")
    (tracker,) = trackers(fray)
    return tracker


async def test_the_tracker_counts_the_messages_below_it_instead_of_asking_each_change(fray: Harness) -> None:
    """Each change edits the tracker once; the channel's history is read only when the count is unknown."""
    tracker = await two_wolves(fray)
    first = len(fray.fd.requests)
    edits = len(tracker.history)
    await end_turns(fray, 10)
    asked = [
        path for method, path in fray.fd.requests[first:] if method == "GET" and path.endswith("/messages")
    ]
    assert len(tracker.history) == edits + 10 and len(asked) <= 1, asked


async def test_a_change_the_tracker_does_not_show_leaves_it_unedited(fray: Harness) -> None:
    """An edit that would send the tracker as it already reads is not made (no API call, no "(edited)"
    churn); the next change that alters what it shows is edited at once."""
    tracker = await two_wolves(fray)
    await end_turns(fray, 1)
    edits = len(tracker.history)
    first = len(fray.fd.requests)
    await ok(fray, fray.gm, "gm set", target="Wolf 1", field="side", value="hills")  # sides are not shown
    await fray.idle()
    patched = [
        p for m, p in fray.fd.requests[first:] if m == "PATCH" and p.endswith(f"/messages/{tracker.id}")
    ]
    assert len(tracker.history) == edits and patched == []
    await ok(fray, fray.gm, "gm condition", target="Wolf 1", condition="prone")
    await fray.idle()
    assert len(tracker.history) == edits + 1 and "prone" in tracker.embeds[0]["description"]


async def test_status_is_private_unless_public(fray: Harness) -> None:
    await setup_gm(fray, "d6")
    await ok(fray, fray.gm, "encounter start", name="Road")
    private = await fray.fd.invoke(fray.channel, fray.player, "encounter status")
    assert private.ephemeral and "Road" in private.embeds[0]["title"]
    public = await ok(fray, fray.player, "encounter status", public=True)
    assert "Road" in public.embeds[0]["title"]


def test_the_kaernest_tracker_runs_in_time_order() -> None:
    from cogs.text.encounters import in_play_order
    from rules.encounter import CombatantView, TrackerView

    rows = (
        CombatantView("1", "Izuki", "a", True, initiative=17, next_segment="2:17"),
        CombatantView("2", "Andretti", "b", True, initiative=12, pending="attack on Izuki, lands 1:08"),
        CombatantView("3", "Mico", "c", True, initiative=9, next_segment="1:09"),
    )
    view = TrackerView(system="kaernest", begun=True, minute=1, segment=10, order=rows)
    assert [r.name for r in in_play_order(view)] == ["Mico", "Andretti", "Izuki"]
