"""The one error handler: domain errors and check failures → ephemeral reason; bugs → incident id."""

from __future__ import annotations

import logging
import re
from typing import Any

import discord
import pytest
from discord import app_commands

from bot.errors import NotGM
from cogs.errors import classify, install, report_error
from rules.errors import InvalidInput


class FakeResponse:
    def __init__(self, owner: FakeInteraction, done: bool) -> None:
        self.owner, self._done = owner, done

    def is_done(self) -> bool:
        return self._done

    async def send_message(self, content: str, *, ephemeral: bool = False, **_: Any) -> None:
        if self.owner.broken:
            raise discord.HTTPException(_Resp(), "gone")
        self._done = True
        self.owner.sent.append(("response", content, ephemeral))


class FakeFollowup:
    def __init__(self, owner: FakeInteraction) -> None:
        self.owner = owner

    async def send(self, content: str, *, ephemeral: bool = False, **_: Any) -> None:
        self.owner.sent.append(("followup", content, ephemeral))


class _Resp:
    status = 404
    reason = "Not Found"


class FakeUser:
    id = 7


class FakeInteraction:
    def __init__(self, *, done: bool = False, broken: bool = False, expired: bool = False) -> None:
        self.sent: list[tuple[str, str, bool]] = []
        self.broken, self.expired = broken, expired
        self.response = FakeResponse(self, done)
        self.followup = FakeFollowup(self)
        self.command = None
        self.data = {"custom_id": "fray:test"}
        self.guild_id, self.channel_id, self.user = 1, 2, FakeUser()

    def is_expired(self) -> bool:
        return self.expired


def invoke_error(original: Exception) -> app_commands.CommandInvokeError:
    command = app_commands.Command(name="boom", description="x", callback=_noop)
    return app_commands.CommandInvokeError(command, original)


async def _noop(interaction: discord.Interaction) -> None: ...


async def test_rules_error_is_answered_ephemerally_through_the_response() -> None:
    interaction = FakeInteraction()
    assert await report_error(interaction, invoke_error(InvalidInput("Write 2d6, not 2x6."))) is None  # type: ignore[arg-type]
    assert interaction.sent == [("response", "Write 2d6, not 2x6.", True)]


async def test_after_a_response_it_answers_with_a_followup() -> None:
    interaction = FakeInteraction(done=True)
    await report_error(interaction, NotGM("Only a GM can do that."))  # type: ignore[arg-type]
    assert interaction.sent == [("followup", "Only a GM can do that.", True)]


async def test_unexpected_error_gets_an_incident_id_in_the_log_and_the_reply(
    caplog: pytest.LogCaptureFixture,
) -> None:
    interaction = FakeInteraction()
    with caplog.at_level(logging.ERROR, logger="cogs.errors"):
        incident = await report_error(interaction, invoke_error(ZeroDivisionError("oops")))  # type: ignore[arg-type]
    assert incident and re.fullmatch(r"[0-9a-f]{8}", incident)
    ((_kind, text, ephemeral),) = interaction.sent
    assert ephemeral and incident in text and "Sorry" in text
    record = next(r for r in caplog.records if incident in r.getMessage())
    assert record.exc_info and record.exc_info[0] is ZeroDivisionError


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (app_commands.NoPrivateMessage(), "server channel"),
        (app_commands.CheckFailure(), "cannot use that"),
        (app_commands.MissingPermissions(["manage_guild"]), "Manage Server"),
        (app_commands.CommandOnCooldown(app_commands.Cooldown(1, 10), 3.2), "try again in 3"),
    ],
)
def test_check_failures_say_what_to_do(error: Exception, expected: str) -> None:
    text, incident = classify(error)
    assert incident is None and expected in text


def test_transformer_error() -> None:
    error = app_commands.TransformerError(
        "abc", discord.AppCommandOptionType.role, app_commands.Transformer()
    )
    text, incident = classify(error)
    assert incident is None and "`abc`" in text and "a role" in text


async def test_the_handler_never_raises(caplog: pytest.LogCaptureFixture) -> None:
    interaction = FakeInteraction(broken=True)
    await report_error(interaction, InvalidInput("x"))  # type: ignore[arg-type]  # the reply fails: logged only
    assert any("error handler failed" in r.getMessage() for r in caplog.records)
    expired = FakeInteraction(expired=True)
    await report_error(expired, InvalidInput("x"))  # type: ignore[arg-type]
    assert expired.sent == []


async def test_the_tree_routes_to_report_error() -> None:
    tree: app_commands.CommandTree = app_commands.CommandTree(discord.Client(intents=discord.Intents.none()))
    install(tree)
    interaction = FakeInteraction()
    await tree.on_error(interaction, invoke_error(InvalidInput("nope")))  # type: ignore[arg-type]
    assert interaction.sent == [("response", "nope", True)]
