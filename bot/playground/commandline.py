"""What Discord's client checks before it sends a slash command, against the commands the bot synced.

A command line from the page (``"character import"`` and ``{"option": raw value}``) becomes the options
``FakeDiscord.invoke`` sends, or a ``Refusal`` in the words a member would read in Discord's command box. Raw
values are what the page has: text, numbers, true/false, and ``{"filename", "data" (base64), "content_type"}``
for a picked file. Nothing here reaches the bot: Discord's client never sends what it refuses.
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.playground.loopback.commands import (
    ATTACHMENT,
    BOOLEAN,
    CHANNEL,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    ROLE,
    STRING,
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    USER,
)
from bot.playground.table import Table

MAX_STRING = 6000
MAX_FILE_BYTES = 8 * 1024 * 1024


class Refusal(Exception):
    """The client would not send this command; ``str(err)`` is what the member reads."""


@dataclass(frozen=True)
class CommandLine:
    path: str  # "character import"
    options: dict[str, Any]  # ready for FakeDiscord.invoke


def _subcommands(options: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [o for o in options if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]


def leaf_options(
    commands: Sequence[Mapping[str, Any]], words: Sequence[str]
) -> tuple[str, list[Mapping[str, Any]]]:
    """The command at ``words`` (``["gm", "system"]``) and its options; refuses unknown or partial paths."""
    words = [w.strip().lstrip("/").lower() for w in words if w.strip().lstrip("/")]
    if not words:
        raise Refusal("Type / and pick a command.")
    top = next((c for c in commands if c.get("name") == words[0] and c.get("type", 1) == 1), None)
    if top is None:
        raise Refusal(f"/{words[0]} is not a command in this server. Type / to see the ones it has.")
    options: Sequence[Mapping[str, Any]] = top.get("options") or []
    walked = [words[0]]
    for word in words[1:]:
        sub = next((o for o in _subcommands(options) if o.get("name") == word), None)
        if sub is None:
            names = ", ".join(o["name"] for o in _subcommands(options))
            where = "/" + " ".join(walked)
            raise Refusal(
                f"{where} has no subcommand {word}."
                + (f" Pick one of: {names}." if names else f" {where} takes options, not subcommands.")
            )
        walked.append(word)
        options = sub.get("options") or []
    subs = _subcommands(options)
    if subs:
        names = ", ".join(o["name"] for o in subs)
        raise Refusal(f"/{' '.join(walked)} needs a subcommand: {names}.")
    return " ".join(walked), list(options)


def parse_command(
    commands: Sequence[Mapping[str, Any]], table: Table, words: Sequence[str], raw: Mapping[str, Any]
) -> CommandLine:
    path, decls = leaf_options(commands, words)
    by_name = {d["name"]: d for d in decls}
    unknown = [name for name in raw if name not in by_name]
    if unknown:
        raise Refusal(f"/{path} has no option {unknown[0]}. Its options: {', '.join(by_name) or 'none'}.")
    given = {name: value for name, value in raw.items() if not _blank(value)}
    missing = [d["name"] for d in decls if d.get("required") and d["name"] not in given]
    if missing:
        raise Refusal(f"The option {missing[0]} is required.")
    options = {name: _value(by_name[name], value, table) for name, value in given.items()}
    return CommandLine(path, options)


def focused_options(
    commands: Sequence[Mapping[str, Any]], words: Sequence[str], raw: Mapping[str, Any], focused: str
) -> tuple[str, dict[str, Any]]:
    """For autocomplete: the typed options as they are (Discord sends partial input unchecked)."""
    path, decls = leaf_options(commands, words)
    by_name = {d["name"]: d for d in decls}
    decl = by_name.get(focused)
    if decl is None or not decl.get("autocomplete"):
        raise Refusal(f"/{path} offers no suggestions for {focused}.")
    options: dict[str, Any] = {}
    for name, value in raw.items():
        d = by_name.get(name)
        if d is None or _blank(value) or d["type"] == ATTACHMENT:
            continue
        if name == focused or d["type"] == STRING:
            options[name] = str(value)
            continue
        try:  # other options go as their type, or are left out like an unfinished pill
            options[name] = _value(d, value, None)
        except Refusal:
            continue
    options.setdefault(focused, "")
    return path, options


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _value(decl: Mapping[str, Any], value: Any, table: Table | None) -> Any:
    name, kind = decl["name"], decl["type"]
    choices = decl.get("choices")
    if choices:
        for choice in choices:
            if value == choice["value"] or str(value).strip().casefold() in (
                str(choice["name"]).casefold(),
                str(choice["value"]).casefold(),
            ):
                return choice["value"]
        raise Refusal(f"{name} must be one of: {', '.join(str(c['name']) for c in choices)}.")
    if kind == STRING:
        text = str(value)
        low, high = decl.get("min_length"), decl.get("max_length")
        if low is not None and len(text) < low:
            raise Refusal(f"{name} must be at least {low} characters long.")
        if len(text) > (high if high is not None else MAX_STRING):
            raise Refusal(
                f"{name} must be at most {high if high is not None else MAX_STRING} characters long."
            )
        return text
    if kind in (INTEGER, NUMBER):
        return _number(decl, value)
    if kind == BOOLEAN:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "on"):
            return True
        if text in ("false", "no", "off"):
            return False
        raise Refusal(f"{name} must be True or False.")
    if kind == ATTACHMENT:
        return _file(name, value)
    if table is None:
        raise Refusal(f"{name} cannot be suggested for.")
    return _mention(decl, value, table)


def _number(decl: Mapping[str, Any], value: Any) -> int | float:
    name, integer = decl["name"], decl["type"] == INTEGER
    text = str(value).strip()
    try:
        number = float(text) if not isinstance(value, bool) else math.nan
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or (integer and not number.is_integer()):
        raise Refusal(f"{name} must be {'a whole number' if integer else 'a number'}.")
    low, high = decl.get("min_value"), decl.get("max_value")
    if low is not None and number < low:
        raise Refusal(f"{name} must be at least {low}.")
    if high is not None and number > high:
        raise Refusal(f"{name} must be at most {high}.")
    return int(number) if integer else number


def _file(name: str, value: Any) -> tuple[str, bytes, str]:
    if not isinstance(value, Mapping) or not value.get("filename"):
        raise Refusal(f"{name} needs a file: press the paperclip and pick one.")
    try:
        data = base64.b64decode(str(value.get("data") or ""), validate=True)
    except (binascii.Error, ValueError):
        raise Refusal(f"{name}: the file could not be read.") from None
    if len(data) > MAX_FILE_BYTES:
        raise Refusal(f"{name}: files can be at most {MAX_FILE_BYTES // (1024 * 1024)} MB here.")
    filename = str(value["filename"]).replace("/", "_").replace("\\", "_")[:100]
    return filename, data, str(value.get("content_type") or "application/octet-stream")


def _mention(decl: Mapping[str, Any], value: Any, table: Table) -> Any:
    name, kind = decl["name"], decl["type"]
    text = str(value).strip().lstrip("@#").strip("<>@&!#")
    guild = table.guild
    if kind in (USER, MENTIONABLE):
        for member in guild.members.values():
            if text in (str(member.id), member.name) or text.casefold() == member.name.casefold():
                return member
    if kind in (ROLE, MENTIONABLE):
        for role in guild.roles.values():
            if text in (str(role.id), role.name) or text.casefold() == role.name.casefold():
                return role
    if kind == CHANNEL:
        for channel in (*guild.channels.values(), *guild.threads.values()):
            if text in (str(channel.id), channel.name):
                return channel
    what = {USER: "a member", ROLE: "a role", MENTIONABLE: "a member or role", CHANNEL: "a channel"}
    raise Refusal(f"{name} must be {what.get(kind, 'something else')} of this server.")
