"""One tracker refresh at a time per encounter: requests made while one runs are folded into one more pass,
which starts after the last of them (so the tracker ends showing every change)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from cogs import tracker
from cogs.tracker import LiveTrackers


@pytest.fixture
def passes(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, float]]:
    seen: list[tuple[int, float]] = []

    async def slow_refresh(bot: Any, channel_id: int, guild_id: int, encounter_id: int, keeper: Any) -> bool:
        seen.append((encounter_id, asyncio.get_running_loop().time()))
        await asyncio.sleep(0.05)  # an edit Discord takes its time over
        return True

    monkeypatch.setattr(tracker, "_refresh_once", slow_refresh)
    return seen


async def test_requests_during_a_refresh_fold_into_one_more_pass(passes: list[tuple[int, float]]) -> None:
    keeper = LiveTrackers()
    loop = asyncio.get_running_loop()
    first = asyncio.create_task(keeper.refresh(None, 1, 1, 7))
    await asyncio.sleep(0.01)
    asked = []
    for _ in range(11):
        asked.append(loop.time())
        await keeper.refresh(None, 1, 1, 7)  # returns at once: the running refresh will show it
    await asyncio.wait_for(first, timeout=5)
    assert len(passes) == 2 and passes[1][1] >= max(asked)
    await asyncio.wait_for(keeper.refresh(None, 1, 1, 7), timeout=5)  # a later change gets its own pass
    assert len(passes) == 3


async def test_encounters_refresh_side_by_side(passes: list[tuple[int, float]]) -> None:
    keeper = LiveTrackers()
    await asyncio.wait_for(asyncio.gather(*(keeper.refresh(None, 1, 1, e) for e in (1, 2, 3))), timeout=5)
    assert sorted(e for e, _ in passes) == [1, 2, 3]


async def test_a_resting_tracker_shows_what_changed_meanwhile_in_one_edit(
    passes: list[tuple[int, float]],
) -> None:
    keeper = LiveTrackers(every=0.3)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.wait_for(keeper.refresh(None, 1, 1, 7), timeout=5)  # the first change: edited at once
    assert len(passes) == 1
    for _ in range(5):
        await asyncio.wait_for(keeper.refresh(None, 1, 1, 7), timeout=1)  # returns at once: it rests
    assert len(passes) == 1
    for _ in range(100):  # bounded: the rest ends 0.3 s after the edit
        if len(passes) == 2:
            break
        await asyncio.sleep(0.02)
    assert len(passes) == 2 and passes[1][1] - started >= 0.3
    await asyncio.sleep(0.5)
    assert len(passes) == 2  # nothing was asked during the second rest: no third edit


async def test_a_rest_holds_no_caller_and_ends_with_the_cog(passes: list[tuple[int, float]]) -> None:
    keeper = LiveTrackers(every=30.0)
    await asyncio.wait_for(keeper.refresh(None, 1, 1, 7), timeout=5)
    await asyncio.wait_for(keeper.refresh(None, 1, 1, 7), timeout=1)
    resting = list(keeper._cooling.values())
    assert len(resting) == 1 and not resting[0].done()
    await keeper.cog_unload()
    await asyncio.sleep(0)
    assert resting[0].cancelled() and len(passes) == 1


async def test_a_pass_that_sent_nothing_leaves_no_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    """A change that leaves the tracker reading as it does sends nothing, so the tracker does not rest:
    the next change that alters it is shown at once."""
    sent = iter([False, True])
    passes: list[bool] = []

    async def refresh_once(bot: Any, channel_id: int, guild_id: int, encounter_id: int, keeper: Any) -> bool:
        passes.append(next(sent))
        return passes[-1]

    monkeypatch.setattr(tracker, "_refresh_once", refresh_once)
    keeper = LiveTrackers(every=30.0)
    await asyncio.wait_for(keeper.refresh(None, 1, 1, 7), timeout=5)
    assert passes == [False] and not keeper._cooling
    await asyncio.wait_for(keeper.refresh(None, 1, 1, 7), timeout=5)
    assert passes == [False, True] and len(keeper._cooling) == 1
    await keeper.cog_unload()


class _Http:
    """Discord's REST as the tracker uses it to post: a new message's id, and deletions."""

    def __init__(self) -> None:
        self.posted: list[int] = []
        self.deleted: list[tuple[int, int]] = []

    async def send_message(self, channel_id: int, *, params: Any) -> dict[str, Any]:
        assert params.payload["embeds"][0]["title"] == "Fight"
        self.posted.append(channel_id)
        return {"id": "555", "channel_id": str(channel_id)}

    async def delete_message(self, channel_id: int, message_id: int) -> None:
        self.deleted.append((channel_id, message_id))


class _PostingBot:
    allowed_mentions = None

    def __init__(self) -> None:
        self.http = _Http()

    def get_channel(self, _channel_id: int) -> None:
        return None

    def get_partial_messageable(self, channel_id: int, *, guild_id: int) -> object:
        return object()


@pytest.mark.parametrize("stored", [True, False])
async def test_a_new_tracker_is_kept_or_taken_back(monkeypatch: pytest.MonkeyPatch, stored: bool) -> None:
    """A tracker posted anew is stored as the encounter's; when another change stored one first, the new
    message is deleted again, so the channel keeps one tracker."""
    import discord

    monkeypatch.setattr(tracker.text, "tracker_embed", lambda name, *_: discord.Embed(title=name))
    asked: list[tuple[int, int | None]] = []

    async def set_tracker_message(_bot: Any, channel_id: int, encounter_id: int, new: int, old: Any) -> bool:
        asked.append((new, old))
        return stored

    monkeypatch.setattr(tracker, "set_tracker_message", set_tracker_message)
    bot, keeper = _PostingBot(), LiveTrackers()
    shot = tracker.Shot("Fight", None, None, "running", 3, None)  # type: ignore[arg-type]
    assert await tracker._refresh_once(bot, 10, 1, 7, None, shot)
    assert bot.http.posted == [10] and asked == [(555, None)]
    assert bot.http.deleted == ([] if stored else [(10, 555)])
    keeper._latest[7] = shot
    await tracker._refresh_once(bot, 10, 1, 7, keeper)
    assert keeper._posted.get(7) == (555 if stored else None)
