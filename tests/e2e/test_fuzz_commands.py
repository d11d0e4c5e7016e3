"""A bounded, seeded fuzzer over the whole synced command surface (no hypothesis: plain ``random.Random``).

``test_fuzz_every_command`` (per system): a fight sits in the channel — the player's PC and two template
NPCs; set up but not begun for the first round, begun for the others. The synced command tree
(``fd.global_commands``, recursing into groups) is walked and every chat-input command is invoked ``ROUNDS``
times in a shuffled order, as the player or the GM (now and then in the thread, where no fight runs). Half
of the invocations send edge values: strings (empty, whitespace, 100-character junk, emoji, RTL, zero-width
and combining marks, control characters, ``@everyone``/``<@&1>`` mentions, backticks and markdown, very long
numbers, digits ``int()`` cannot read, ``#123``, SQL-ish quotes, real names in odd case), integers at the
declared bounds or huge/negative where none are declared, every declared choice, the GM role or the bot's
role, sheet files for ``/character import`` (random bytes, too large, too deep, wrong extension, wrong
types, real sheets with mutated values). The other half send what a member picking from Discord's lists
would (autocomplete choices, the member whose turn it is, ``as`` the actor, small numbers) so the fuzzer also
gets past the first refusal. Autocomplete is asked for every option that declares it (≤ 25 choices, never
a failure), the buttons the bot posted are clicked by a stranger and by the table, buttons on private
answers by their member, and ``/gm set`` is swept over every field with edge values.

Checked after every interaction: it was answered (``fd.invoke`` returned, no ``TimeoutError``), no message
of it says "incident", nothing was logged at ERROR (an incident, a swallowed exception, a failed background
task), ``fd.problems`` stays empty, and a refusal (the error handler answered a domain error) left the
stored encounter and every character exactly as they were. A command that ended the fight or removed the PC
is followed by a fresh fight (with the GM's dice queue emptied); one that changed the GM role or the
system, by the owner putting it back.

Without Discord, and so exhaustively: every leaf of every template sheet swapped for a look-alike value must
import or be refused with its problems, and every sheet field, weapon, armour and house rule must take
every edge text or refuse it with a ``RulesError``.

``FRAY_FUZZ_SEED`` / ``FRAY_FUZZ_ROUNDS`` explore further (the suite runs seed 0, 6 rounds); ``FRAY_FUZZ_DEBUG=1``
prints every answer (with ``-s``).
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from typing import Any

import pytest
from sqlalchemy import select

from bot.encounter_reads import load_encounter
from bot.models import Character
from bot.playground.loopback import FakeMember
from cogs import errors as bot_tree
from rules.dice import RandomDice
from rules.systems.registry import get_system
from tests.e2e.conftest import Harness
from tests.e2e.test_encounters import SYSTEMS, db_state, here, make_character, ok, setup_gm

SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER, ATTACHMENT = 3, 4, 5, 6, 7, 8, 9, 10, 11
DISCORD_INT = 2**53  # Discord's integer options are within ±2^53

SEED = int(os.environ.get("FRAY_FUZZ_SEED", "0"))  # another seed explores further; the suite runs 0
ROUNDS = int(os.environ.get("FRAY_FUZZ_ROUNDS", "6"))  # invocations per command per system
PLAY_STEPS = 40  # sane actions per system after the rounds
CLICKS = 21  # button clicks per system (3 a round, 21 at the end)

EDGE_STRINGS = [
    "",
    " ",
    " \t\n ",
    "Ω" * 100,
    "".join(chr(0x61 + (i * 7) % 26) for i in range(100)),
    "🗡️🔥💀👨‍👩‍👧",
    "\u202eevil\u202c",
    "مرحبا بالعالم",
    "a\u200bb\u200dc\ufeff",
    "e\u0301\u0302\u0303\u0304\u0305",
    "\x00\x01\x07\x1b[31mred",
    "line1\nline2\r\n",
    "@everyone",
    "@here",
    "<@&1>",
    "<@1>",
    "<#1>",
    "```",
    "`x`",
    "**bold** __u__ ~~s~~ ||spoiler|| > quote",
    "# heading",
    "[link](https://example.com)",
    "9" * 60,
    "-" + "9" * 40,
    "1e309",
    "NaN",
    "inf",
    "-0",
    "²",
    "①",
    "--3",
    "٣",
    "0",
    "-1",
    "3",
    "#123",
    "'; DROP TABLE characters; --",
    '" OR 1=1 --',
    "%s %d {0} {name}",
    "\\",
    "/",
    "..",
    "None",
    "null",
    "true",
]

# Realistic values by option name (so the fuzzer also reaches past the first parse).
BY_NAME: dict[str, list[str]] = {
    "expression": [
        "2d6+3",
        "d20",
        "4D+2",
        "1d1",
        "0d6",
        "1d0",
        "100d100",
        "99999d99999",
        "2d6*3",
        "d",
        "1d6!",
    ],
    "values": ["3 4", "6 6 6", "1,2,3", "0", "-1", "7", "99999999999", " ".join(["6"] * 300)],
    "after": ["10m", "1h", "0s", "2d", "99999d", "5 minutes", "never"],
    "repeat": ["10m", "1h", "0m", "30s", "1000000h"],
    "value": [
        "3",
        "0",
        "-5",
        "10",
        "3D+2",
        "0D",
        "100D+99",
        "1.5",
        "99999999999",
        "yes",
        "off",
        "on",
        "auto",
        "1-3",
    ],
    "difficulty": ["10", "15", "easy", "moderate", "heroic", "-5", "99999", "0"],
    "name": ["Goblin", "Vale", "Short Sword", "Chain", "Club, War", "Sword, Short"],
    "location": ["Head", "Chest", "Left Arm", "torso", "all"],
    "side": ["one", "two", "raiders", "pcs"],
    "attackers": ["one", "raiders", "pcs"],
    "reason": ["because", ""],
}


def clamp_text(text: str, decl: dict[str, Any]) -> str:
    lo, hi = decl.get("min_length"), decl.get("max_length")
    if hi is not None:
        text = text[:hi]
    if lo is not None and len(text) < lo:
        text = text + "x" * (lo - len(text))
    return text


def leaves(commands: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every chat-input command and subcommand as ("gm set", options)."""
    found: list[tuple[str, list[dict[str, Any]]]] = []

    def walk(node: dict[str, Any], path: str) -> None:
        subs = [o for o in node.get("options") or [] if o["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP)]
        if subs:
            for sub in subs:
                walk(sub, f"{path} {sub['name']}")
        else:
            found.append((path, list(node.get("options") or [])))

    for command in commands:
        if command.get("type", 1) == 1:
            walk(command, command["name"])
    return found


class Fuzzer:
    def __init__(self, fray: Harness, system: str, caplog: pytest.LogCaptureFixture, seed: int) -> None:
        self.fray = fray
        self.fd = fray.fd
        self.system = system
        self.adapter = get_system(system)
        self.caplog = caplog
        self.rng = random.Random(seed)
        self.generation = 0
        self.names: list[str] = []
        self.actor: str | None = None
        self.begun = True  # False: the fight in the channel is still being set up (not begun)
        self.actor_owner: int | None = None
        self.stranger = fray.guild.add_member("stan")
        self.invocations = 0
        self.autocompletes = 0
        self.clicks = 0
        self.refusals = 0
        self.commands: set[str] = set()
        self.refused: list[str] = []  # every reason the error handler answered (see ``watch_refusals``)

    # --- the fight ----------------------------------------------------------------------------------------

    async def ensure_fight(self) -> None:
        """A running encounter of this system in the channel (a fresh one after /encounter end & co)."""
        assert self.fray.bot is not None
        read = await load_encounter(self.fray.bot, here(self.fray))
        if (
            read is not None
            and read.encounter.status == ("running" if self.begun else "setup")
            and read.encounter.system == self.system
            and len(read.combatants) >= 2
            and any(c.owner_id == self.fray.player.id for c in read.combatants)
        ):
            self.names = [c.name for c in read.combatants]
            turn = read.turn() if self.begun else None
            actor = read.combatant(read.names[turn.actors[0]]) if turn and turn.actors else None
            self.actor = actor.name if actor is not None else None
            self.actor_owner = actor.owner_id if actor is not None else None
            return
        fray = self.fray
        self.generation += 1
        # The owner (Manage Server) puts the GM role and the system back; a stale fight is ended first.
        await fray.fd.invoke(fray.channel, fray.owner, "gm role", role=fray.gm_role)
        await fray.fd.invoke(
            fray.channel, fray.owner, "gm dice", values="clear"
        )  # dice a fuzzed /gm dice queued
        if read is not None:
            await fray.fd.invoke(fray.channel, fray.owner, "encounter end")
        if self.generation == 1:
            await setup_gm(fray, self.system)
        else:
            await fray.fd.invoke(fray.channel, fray.owner, "gm system", system=self.system)
        templates = self.adapter.creature_names()
        pc = f"Vale {self.generation}" if self.generation > 1 else "Vale"
        await make_character(
            fray, fray.player, pc, self.system, self.adapter.creature_sheet(templates[0], pc)
        )
        await ok(fray, fray.gm, "encounter start", name=f"Fuzz {self.generation}")
        await ok(fray, fray.player, "encounter join", character=pc, side="pcs")
        await ok(
            fray, fray.gm, "encounter add", name="Raider", template=templates[-1], count=2, side="raiders"
        )
        if self.begun:
            await ok(fray, fray.gm, "encounter begin")
        read = await load_encounter(fray.bot, here(fray))
        assert read is not None and read.encounter.status == ("running" if self.begun else "setup")
        self.check("set-up")
        await self.ensure_fight()

    # --- values -------------------------------------------------------------------------------------------

    def odd_case(self, name: str) -> str:
        return self.rng.choice([name.upper(), name.lower(), name.swapcase(), f"  {name}  ", name[:-1], name])

    def text(self, decl: dict[str, Any]) -> str:
        r = self.rng.random()
        if r < 0.25 and self.names:
            value = self.odd_case(self.rng.choice(self.names))
        elif r < 0.5 and decl["name"] in BY_NAME:
            value = self.rng.choice(BY_NAME[decl["name"]])
        else:
            value = self.rng.choice(EDGE_STRINGS)
        return clamp_text(value, decl)

    def integer(self, decl: dict[str, Any]) -> int:
        lo, hi = decl.get("min_value"), decl.get("max_value")
        if lo is not None or hi is not None:
            lo = -DISCORD_INT if lo is None else lo
            hi = DISCORD_INT if hi is None else hi
            return self.rng.choice([lo, hi, lo, hi, self.rng.randint(lo, hi)])
        return self.rng.choice(
            [
                0,
                1,
                2,
                3,
                -1,
                -2,
                5,
                10,
                99,
                101,
                1000,
                2**31 - 1,
                2**31,
                2**63 // 2**10,
                DISCORD_INT,
                -DISCORD_INT,
            ]
        )

    def sheet_file(self) -> tuple[str, bytes]:
        rng = self.rng
        real = json.loads(
            json.dumps(
                {"system": self.system, "name": "Imp", **self.adapter.sheet_to_dict(self.sample_sheet())}
            )
        )
        kind = rng.randrange(9)
        if kind == 0:
            return "junk.json", bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
        if kind == 1:
            return "huge.json", b"[" + b"1," * 200_000 + b"1]"
        if kind == 2:
            return "deep.json", b"[" * 5000 + b"]" * 5000
        if kind == 3:
            return rng.choice(["sheet.exe", "sheet", ".json", "s.JSON", "s.yml"]), json.dumps(real).encode()
        if kind == 4:
            return "types.json", json.dumps({"system": 5, "name": ["x"], "stats": "abc"}).encode()
        if kind == 5:
            return "s.yaml", b"system: !!python/object:os.system\nname: [unclosed\n"
        if kind == 6:
            return "s.toml", b'system = "nyra"\nname = 1979-05-27T07:32:00Z\n[stats]\nSTR = "x"\n'
        # A real sheet with a few values of the wrong type (or absurd ones) somewhere inside.
        mutated = real
        for _ in range(rng.randint(1, 3)):
            mutated = self.mutate(mutated) if rng.random() < 0.5 else self.swap_leaf(mutated)
        return rng.choice(["m.json", "m.yaml"]), json.dumps(mutated, ensure_ascii=False).encode()

    def sample_sheet(self) -> Any:
        templates = self.adapter.creature_names()
        return self.adapter.creature_sheet(self.rng.choice(templates), "Imp")

    def swap_leaf(self, doc: Any) -> Any:
        """``doc`` with one of its leaves (a number, a text …) replaced by a look-alike that is not one."""
        rng = self.rng
        if isinstance(doc, dict) and doc:
            key = rng.choice(list(doc))
            return {**doc, key: self.swap_leaf(doc[key])}
        if isinstance(doc, list) and doc:
            i = rng.randrange(len(doc))
            return [*doc[:i], self.swap_leaf(doc[i]), *doc[i + 1 :]]
        return rng.choice(["²", "+-3", "٣", " 7 ", "-7", "1e3", "7.0", 7.5, -(10**20), "", None, "D", "3D+"])

    def mutate(self, doc: Any, depth: int = 0) -> Any:
        rng = self.rng
        junk = [
            None,
            -1,
            0,
            10**30,
            1.5,
            -1e308,
            "",
            "x" * 300,
            [],
            {},
            [1, "a"],
            {"a": {"b": []}},
            True,
            "🗡️",
        ]
        junk += ["²", "+-3", "٣", "7", "-7", "1e3"]  # numbers as text, some that int() cannot read
        if isinstance(doc, dict) and doc:
            key = rng.choice(list(doc))
            out = dict(doc)
            if key not in ("system",) or rng.random() < 0.2:
                out[key] = self.mutate(doc[key], depth + 1) if rng.random() < 0.6 else rng.choice(junk)
            if rng.random() < 0.2:
                out[rng.choice(["", "zzz", "🗡️", key.upper()])] = rng.choice(junk)
            return out
        if isinstance(doc, list) and doc:
            out = list(doc)
            i = rng.randrange(len(out))
            out[i] = self.mutate(out[i], depth + 1) if rng.random() < 0.6 else rng.choice(junk)
            return out
        return rng.choice(junk)

    async def value(
        self, path: str, decl: dict[str, Any], member: FakeMember, so_far: dict[str, Any], sane: bool
    ) -> Any:
        """A value for ``decl``; ``sane`` ones are what a member picking from Discord's lists would send (so
        the fuzzer also gets past the first refusal), the others are edge values."""
        t = decl["type"]
        if decl.get("choices"):
            return self.rng.choice(decl["choices"])["value"]
        if t == STRING:
            if decl.get("autocomplete") and self.rng.random() < (0.9 if sane else 0.4):
                offered = await self.autocomplete(path, decl, member, so_far, typed="" if sane else None)
                if offered:
                    return clamp_text(str(self.rng.choice(offered)["value"]), decl)
                if sane and not decl.get("required"):
                    return None  # nothing to pick from: a member leaves the option out
            if sane and decl["name"] in BY_NAME:
                return clamp_text(self.rng.choice(BY_NAME[decl["name"]]), decl)
            if sane and self.names:
                return clamp_text(self.rng.choice(self.names), decl)
            return self.text(decl)
        if t == INTEGER:
            if sane:
                lo, hi = decl.get("min_value", 0), decl.get("max_value", 6)
                big = self.rng.choice([12, 30, 100])  # enough damage to drop someone
                return self.rng.choice(
                    [self.rng.randint(lo, max(lo, min(hi, lo + 6))), max(lo, min(hi, big))]
                )
            return self.integer(decl)
        if t == NUMBER:
            return self.rng.choice([0.0, -1.5, 0.1, 1e15, -1e15])
        if t == BOOLEAN:
            return self.rng.random() < 0.5
        if t == ROLE:
            return self.rng.choice([self.fray.gm_role, self.fray.gm_role, self.fray.guild.bot_role])
        if t in (USER, MENTIONABLE):
            return self.rng.choice([self.fray.player, self.fray.gm, self.stranger])
        if t == CHANNEL:
            return self.rng.choice([self.fray.channel, self.fray.thread])
        if t == ATTACHMENT:
            return self.sheet_file()
        raise AssertionError(f"{path}: option type {t} has no generator")

    # --- checks -------------------------------------------------------------------------------------------

    def check(self, what: str, texts: list[str] = ()) -> None:
        for text in texts:
            assert "incident" not in text.lower(), f"{what} → {text}"
        errors = [r for r in self.caplog.records if r.levelno >= logging.ERROR]
        assert not errors, f"{what} logged: " + "\n".join(
            r.getMessage() + ("\n" + r.exc_text if r.exc_text else "") for r in errors
        )
        assert not self.fd.problems, f"{what}: {self.fd.problems}"

    async def stored(self) -> Any:
        """The channel's open encounter as stored (rows, log, version) and every character of the server."""
        assert self.fray.bot is not None
        read = await load_encounter(self.fray.bot, here(self.fray))
        encounter = await db_state(self.fray, read.encounter.id or 0) if read is not None else None
        async with self.fray.bot.sessions() as session:
            rows = (await session.exec(select(Character).order_by(Character.id))).scalars().all()  # type: ignore[arg-type]
            characters = [(c.id, c.owner_id, c.name, c.system, c.sheet) for c in rows]
        return encounter, characters

    def refused_unchanged(self, what: str, refusals: int, before: Any, after: Any) -> None:
        """A refusal (the error handler answered a domain error) changed nothing: not the encounter, not a
        character."""
        if len(self.refused) > refusals:
            assert after == before, f"{what} was refused ({self.refused[-1]!r}) but changed what is stored"

    # --- interactions -------------------------------------------------------------------------------------

    async def autocomplete(
        self,
        path: str,
        decl: dict[str, Any],
        member: FakeMember,
        so_far: dict[str, Any],
        typed: str | None = None,
    ) -> list[dict[str, Any]]:
        if typed is None:
            typed = self.text(decl) if self.rng.random() < 0.7 else ""
        # (an option named "value" cannot be passed alongside: the fake's ``value=`` is the typed text)
        options = {
            k: v for k, v in so_far.items() if not isinstance(v, tuple) and k not in ("value", decl["name"])
        }
        what = f"/{path} [{decl['name']}={typed!r}] autocomplete as {member.name} with {options}"
        choices = await self.fd.autocomplete(
            self.fray.channel, member, path, focused=decl["name"], value=typed, **options
        )
        self.autocompletes += 1
        assert len(choices) <= 25, what
        self.check(what)
        return choices

    async def invoke(self, path: str, decls: list[dict[str, Any]], *, sane: bool | None = None) -> None:
        await self.ensure_fight()
        rng = self.rng
        member = rng.choice([self.fray.player, self.fray.gm])
        sane = rng.random() < 0.5 if sane is None else sane
        channel = self.fray.thread if rng.random() < 0.08 and not sane else self.fray.channel
        if sane and path.split()[0] in ("gm", "encounter"):
            member = self.fray.gm
        elif sane and self.actor is not None:  # the member whose turn it is (the GM for NPCs)
            member = self.fray.player if self.actor_owner == self.fray.player.id else self.fray.gm
        options: dict[str, Any] = {}
        for decl in decls:
            if sane and decl["name"] == "as":  # the GM acts for the actor; a player never sends it
                if member is self.fray.gm and self.actor is not None:
                    options["as"] = self.actor
                continue
            if decl.get("required") or rng.random() < (0.4 if sane else 0.6):
                value = await self.value(path, decl, member, options, sane)
                if value is not None:
                    options[decl["name"]] = value
        for decl in decls:  # autocomplete on every option that declares it, with what was picked so far
            if decl.get("autocomplete") and rng.random() < 0.25:
                await self.autocomplete(path, decl, member, options)
        shown = {k: (v[0], len(v[1])) if isinstance(v, tuple) else v for k, v in options.items()}
        what = (
            f"/{path} {shown!r} as {member.name} in {'thread' if channel is self.fray.thread else 'channel'}"
        )
        await self.fray.idle()  # what the command before does after its answer is not this one's doing
        before, refusals = await self.stored(), len(self.refused)
        r = await self.fd.invoke(channel, member, path, **options)
        await self.fray.idle()
        self.refused_unchanged(what, refusals, before, await self.stored())
        self.invocations += 1
        self.commands.add(path)
        self.refusals += r.ephemeral
        if os.environ.get("FRAY_FUZZ_DEBUG"):
            print(
                "DBG",
                path,
                member.name,
                sane,
                "|",
                ("R " if r.ephemeral else "OK ") + (r.content or r.text)[:90].replace("\n", " "),
            )
        self.check(what, [m.text for m in r.messages])
        private = [(m, c) for m in r.messages if m.ephemeral for c in m.custom_ids]
        if private and rng.random() < 0.7:  # a button on the private answer (a delete confirmation …)
            message, custom_id = rng.choice(private)
            what = f"click {custom_id!r} on the private answer to {what}"
            before, refusals = await self.stored(), len(self.refused)
            clicked = await self.fd.click(message, member, custom_id)
            self.refused_unchanged(what, refusals, before, await self.stored())
            self.clicks += 1
            self.check(what, [m.text for m in clicked.messages])
        if path == "gm role":  # put the table back as it was (the owner has Manage Server)
            await self.fd.invoke(self.fray.channel, self.fray.owner, "gm role", role=self.fray.gm_role)
        elif path == "gm system":
            await self.fd.invoke(self.fray.channel, self.fray.owner, "gm system", system=self.system)
            await self.fd.invoke(self.fray.thread, self.fray.owner, "gm system", system=self.system)

    async def play(self, commands: list[tuple[str, list[dict[str, Any]]]], steps: int) -> None:
        """A fight played on: mostly what the member whose turn it is would do (sane values), so the
        resolutions, knock-outs, Last Gasps and turn changes are rendered too."""
        by_path = dict(commands)
        weights = {
            "attack": 6,
            "lockin": 4,
            "turn end": 3,
            "defend": 1,
            "move": 1,
            "grapple": 1,
            "heal": 1,
            "disengage": 1,
            "stealth": 1,
            "deathsave": 1,
            "check": 1,
            "gm next": 1,
            "gm damage": 2,
        }
        paths = [p for p in weights if p in by_path]
        for _ in range(steps):
            path = self.rng.choices(paths, [weights[p] for p in paths])[0]
            await self.invoke(path, by_path[path], sane=True)

    async def sweep_gm_set(self, values_per_field: int) -> None:
        """``/gm set`` on every field the system offers (placeholders filled in), with edge values."""
        fields = [
            f.replace("<location>", self.rng.choice(["Head", "Left Arm", "Torso"])).replace(
                "<weapon>", self.rng.choice(["Short Sword", "Talons", "Club, War"])
            )
            for f in self.adapter.gm_fields()
        ]
        values = [v for v in LOOK_ALIKES + EDGE_STRINGS if isinstance(v, str) and len(v) <= 200]
        for field in fields:
            for value in self.rng.sample(values, values_per_field):
                await self.ensure_fight()
                target = self.rng.choice(self.names)
                what = f"/gm set target={target!r} field={field!r} value={value!r}"
                r = await self.fd.invoke(
                    self.fray.channel, self.fray.gm, "gm set", target=target, field=field, value=value
                )
                self.invocations += 1
                self.refusals += r.ephemeral
                self.check(what, [m.text for m in r.messages])

    async def click_buttons(self, count: int) -> None:
        """Click buttons on the bot's public messages: mostly as a stranger, sometimes as the table."""
        for _ in range(count):
            await self.ensure_fight()
            posted = [
                (m, cid)
                for channel in (self.fray.channel, self.fray.thread)
                for m in self.fd.channel_messages(channel)
                if not m.deleted
                for cid in m.custom_ids
            ]
            if not posted:
                return
            message, custom_id = self.rng.choice(posted[-30:])
            member = self.rng.choice([self.stranger, self.stranger, self.fray.player, self.fray.gm])
            what = f"click {custom_id!r} on {message.id} as {member.name}"
            before, refusals = await self.stored(), len(self.refused)
            r = await self.fd.click(message, member, custom_id)
            self.refused_unchanged(what, refusals, before, await self.stored())
            self.clicks += 1
            self.check(what, [m.text for m in r.messages])


def watch_refusals(monkeypatch: pytest.MonkeyPatch, fuzz: Fuzzer) -> None:
    """Record each refusal the one error handler answers (a domain error, not an incident)."""
    classify = bot_tree.classify

    def recording(error: BaseException) -> tuple[str, str | None]:
        text, incident = classify(error)
        if incident is None:
            fuzz.refused.append(text)
        return text, incident

    monkeypatch.setattr(bot_tree, "classify", recording)


@pytest.mark.parametrize("system", SYSTEMS)
async def test_fuzz_every_command(
    fray: Harness, system: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.WARNING)
    started = time.monotonic()
    fray.dice.current = RandomDice(1234)
    fray.fd.settle = 0.005  # late followups are still checked: by the next invocation and by the log
    fuzz = Fuzzer(fray, system, caplog, seed=SEED + sum(map(ord, system)))
    watch_refusals(monkeypatch, fuzz)
    await fuzz.ensure_fight()
    commands = leaves(fray.fd.global_commands)
    assert len(commands) > 30, [p for p, _ in commands]
    for round_ in range(ROUNDS):
        fuzz.begun = round_ > 0  # the first round meets a fight that is set up but not begun
        fuzz.rng.shuffle(commands)
        for path, decls in commands:
            await fuzz.invoke(path, decls)
        await fuzz.click_buttons(CLICKS // ROUNDS + 1)
    await fuzz.click_buttons(CLICKS)
    await fuzz.play(commands, steps=PLAY_STEPS)
    await fuzz.sweep_gm_set(values_per_field=6)
    fuzz.check("the end")
    assert len(fuzz.refused) > fuzz.invocations // 4, "the refusal watch saw (almost) nothing"
    assert fuzz.commands == {p for p, _ in commands}
    elapsed = time.monotonic() - started
    print(
        f"{system}: {fuzz.invocations} invocations ({fuzz.refusals} ephemeral, {len(fuzz.refused)} refusals), {fuzz.autocompletes} autocompletes,"
        f" {fuzz.clicks} clicks, {fuzz.generation} fights, {elapsed:.1f}s"
    )


LOOK_ALIKES: list[Any] = [
    "²",
    "①",
    "+-3",
    "٣",
    " 7 ",
    "-7",
    "1e3",
    "7.0",
    7.5,
    -(10**20),
    10**20,
    "",
    " ",
    None,
]
LOOK_ALIKES += [True, "D", "3D+", "0D", "99D", [], {}, "🗡️", "x" * 300, "\x00", "NaN"]


def leaf_paths(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in leaf_paths(v, (*path, k))] + ([path] if not doc else [])
    if isinstance(doc, list):
        return [p for i, v in enumerate(doc) for p in leaf_paths(v, (*path, i))] + ([path] if not doc else [])
    return [path]


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(doc, dict):
        return {**doc, head: replaced(doc[head], rest, value)}
    return [*doc[:head], replaced(doc[head], rest, value), *doc[head + 1 :]]


@pytest.mark.parametrize("system", ["nyra", "kaernest", "d6"])
def test_every_leaf_of_every_template_sheet_swapped_for_a_look_alike_is_refused_cleanly(
    system: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The sheet files ``/character import`` reads, without Discord (so exhaustively): each template sheet
    with one leaf (a stat, a skill level, a weapon field …) replaced by a value that is not what the field
    takes reads as a sheet or is refused with its problems — never an unexpected error (which
    ``sheet_files`` would log and answer vaguely)."""
    from bot import sheet_files

    caplog.set_level(logging.ERROR)
    rules = get_system(system)
    tried = 0
    for template in rules.creature_names():
        document = json.loads(sheet_files.export_bytes(system, rules.creature_sheet(template, "Imp")))
        for path in leaf_paths(document):
            for value in LOOK_ALIKES:
                data = json.dumps(replaced(document, path, value), ensure_ascii=False).encode()
                try:
                    sheet_files.read_sheet("fuzz.json", data)
                except (sheet_files.SheetFileError, sheet_files.ImportRefused):
                    pass
                tried += 1
                errors = [r.getMessage() + "\n" + (r.exc_text or "") for r in caplog.records]
                assert not errors, f"{template}: {path} = {value!r}\n" + "\n".join(errors)
    assert tried > 100


TEXT_LOOK_ALIKES = [v for v in LOOK_ALIKES if isinstance(v, str)] + EDGE_STRINGS


def sheet_edits(rules: Any, sheet: Any) -> list[tuple[str, Any]]:
    """(what, apply(text)) for every way ``/character set|weapon|armour`` and ``/gm rules`` change things."""
    house = rules.default_house()
    return [
        *((f"set {f}", lambda v, f=f: rules.set_sheet_field(sheet, f, v)) for f in rules.sheet_fields()),
        ("weapon", lambda v: rules.set_weapon(sheet, v)),
        ("weapon remove", lambda v: rules.set_weapon(sheet, v, remove=True)),
        ("armour", lambda v: rules.set_armour(sheet, v)),
        ("armour remove", lambda v: rules.set_armour(sheet, v, remove=True)),
        ("armour on", lambda v: rules.set_armour(sheet, rules.armour_names()[0], location=v)),
        *(
            (f"rule {i.name}", lambda v, n=i.name: rules.set_house_rule(house, n, v))
            for i in rules.describe_house(house)
        ),
    ]


@pytest.mark.parametrize("system", ["nyra", "kaernest", "d6"])
def test_every_sheet_field_and_house_rule_with_edge_text_is_set_or_refused(system: str) -> None:
    """What ``/character set|weapon|armour`` and ``/gm rules`` hand the rules, exhaustively without Discord:
    every field of two template sheets, every house rule, with every edge text — a new value or a
    ``RulesError`` (the reason the member reads), nothing else."""
    from rules.errors import RulesError

    rules = get_system(system)
    templates = rules.creature_names()
    for template in {templates[0], templates[-1]}:
        for what, edit in sheet_edits(rules, rules.creature_sheet(template, "Imp")):
            for value in TEXT_LOOK_ALIKES:
                try:
                    edit(value)
                except RulesError:
                    pass
                except Exception as err:
                    raise AssertionError(f"{template}: {what} {value!r} raised {err!r}") from err
