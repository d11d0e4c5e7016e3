"""Application-command payload validation and normalisation (what Discord does on a bulk PUT).

``validate_commands(payload)`` returns a list of :class:`Problem` (path + message); an empty list means
Discord would accept the payload. ``normalise_command`` turns an accepted command into what Discord
answers (ids, application_id, version and default fields).
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

# Option types
SUB_COMMAND = 1
SUB_COMMAND_GROUP = 2
STRING = 3
INTEGER = 4
BOOLEAN = 5
USER = 6
CHANNEL = 7
ROLE = 8
MENTIONABLE = 9
NUMBER = 10
ATTACHMENT = 11
OPTION_TYPE_NAMES = {
    1: "SUB_COMMAND",
    2: "SUB_COMMAND_GROUP",
    3: "STRING",
    4: "INTEGER",
    5: "BOOLEAN",
    6: "USER",
    7: "CHANNEL",
    8: "ROLE",
    9: "MENTIONABLE",
    10: "NUMBER",
    11: "ATTACHMENT",
}

CHAT_INPUT, USER_COMMAND, MESSAGE_COMMAND, PRIMARY_ENTRY_POINT = 1, 2, 3, 4
MAX_SAFE_INT = 2**53
LOCALES = frozenset(
    "ar bg cs da de el en-GB en-US es-419 es-ES fi fr he hi hr hu id it ja ko lt nl no pl pt-BR ro ru sv-SE th tr "
    "uk vi zh-CN zh-TW".split()
)


@dataclass
class Problem:
    path: tuple[str | int, ...]
    code: str
    message: str

    def __str__(self) -> str:
        where = ".".join(str(p) for p in self.path) or "<root>"
        return f"{where}: {self.message} ({self.code})"


def _name_char_ok(c: str) -> bool:
    if c in "-_":
        return True
    cat = unicodedata.category(c)
    if cat[0] in ("L", "N"):
        return True
    # \p{sc=Deva} and \p{sc=Thai} (combining marks of those scripts are allowed too)
    cp = ord(c)
    return 0x0900 <= cp <= 0x097F or 0x0E00 <= cp <= 0x0E7F or 0xA8E0 <= cp <= 0xA8FF


def valid_chat_input_name(name: Any) -> str | None:
    """Return an error message, or None if ``name`` matches ``^[-_\\p{L}\\p{N}\\p{sc=Deva}\\p{sc=Thai}]{1,32}$``
    and is lowercase (Discord rejects characters that have a lowercase variant)."""
    if not isinstance(name, str):
        return "name must be a string"
    if not 1 <= len(name) <= 32:
        return f"name {name!r} must be 1-32 characters"
    bad = [c for c in name if not _name_char_ok(c)]
    if bad:
        return f"name {name!r} contains invalid characters {''.join(sorted(set(bad)))!r}"
    if name != name.lower():
        return f"name {name!r} must be lowercase"
    return None


def _len_ok(value: Any, lo: int, hi: int) -> bool:
    return isinstance(value, str) and lo <= len(value) <= hi


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def validate_commands(payload: Any) -> list[Problem]:
    problems: list[Problem] = []
    add = lambda path, code, msg: problems.append(Problem(tuple(path), code, msg))  # noqa: E731
    if not isinstance(payload, list):
        add([], "BASE_TYPE_LIST", "bulk overwrite body must be a JSON array")
        return problems
    counts = {CHAT_INPUT: 0, USER_COMMAND: 0, MESSAGE_COMMAND: 0, PRIMARY_ENTRY_POINT: 0}
    seen: set[tuple[int, str]] = set()
    for i, cmd in enumerate(payload):
        if not isinstance(cmd, dict):
            add([i], "DICT_TYPE_CONVERT", "command must be an object")
            continue
        ctype = cmd.get("type", CHAT_INPUT)
        if ctype not in counts:
            add([i, "type"], "BASE_TYPE_CHOICES", f"unknown command type {ctype!r}")
            continue
        counts[ctype] += 1
        name = cmd.get("name")
        key = (ctype, name if isinstance(name, str) else "")
        if key in seen:
            add([i, "name"], "APPLICATION_COMMANDS_DUPLICATE_NAME", f"duplicate command name {name!r}")
        seen.add(key)
        if ctype == CHAT_INPUT:
            err = valid_chat_input_name(name)
            if err:
                add([i, "name"], "APPLICATION_COMMAND_INVALID_NAME", err)
            if not _len_ok(cmd.get("description"), 1, 100):
                add(
                    [i, "description"],
                    "BASE_TYPE_BAD_LENGTH",
                    f"/{name}: description must be 1-100 characters, got {cmd.get('description')!r}",
                )
            _validate_options(cmd.get("options") or [], [i, "options"], add, depth=0, where=f"/{name}")
            total = _total_chars(cmd)
            if total > 4000:
                add(
                    [i],
                    "APPLICATION_COMMAND_TOO_LARGE",
                    f"/{name}: combined name/description/choices length {total} > 4000",
                )
        else:
            if not _len_ok(name, 1, 32):
                add(
                    [i, "name"], "BASE_TYPE_BAD_LENGTH", f"context-menu name {name!r} must be 1-32 characters"
                )
            if cmd.get("description") not in (None, ""):
                add(
                    [i, "description"],
                    "APPLICATION_COMMAND_INVALID_DESCRIPTION",
                    "context menus have no description",
                )
            if cmd.get("options"):
                add([i, "options"], "APPLICATION_COMMAND_OPTIONS_INVALID", "context menus take no options")
        _check_localizations(cmd, [i], add, f"/{name}", chat_input=ctype == CHAT_INPUT)
        dmp = cmd.get("default_member_permissions")
        if dmp is not None and not ((isinstance(dmp, str) and dmp.isdigit()) or (_is_int(dmp) and dmp >= 0)):
            add(
                [i, "default_member_permissions"],
                "NUMBER_TYPE_COERCE",
                f"bad default_member_permissions {dmp!r}",
            )
    if counts[CHAT_INPUT] > 100:
        add([], "APPLICATION_COMMANDS_TOO_MANY", f"{counts[CHAT_INPUT]} chat-input commands (max 100)")
    for ctype, label in ((USER_COMMAND, "user"), (MESSAGE_COMMAND, "message")):
        if counts[ctype] > 15:
            add([], "APPLICATION_COMMANDS_TOO_MANY", f"{counts[ctype]} {label} commands (max 15)")
    return problems


def _check_localizations(obj: dict[str, Any], path: list, add, where: str, *, chat_input: bool) -> None:
    for key, hi in (("name_localizations", 32), ("description_localizations", 100)):
        locs = obj.get(key)
        if locs is None:
            continue
        if not isinstance(locs, dict):
            add([*path, key], "DICT_TYPE_CONVERT", f"{where}: {key} must be an object")
            continue
        for loc, text in locs.items():
            if loc not in LOCALES:
                add([*path, key, loc], "BASE_TYPE_CHOICES", f"{where}: unknown locale {loc!r} in {key}")
            elif key == "name_localizations" and chat_input:
                err = valid_chat_input_name(text)
                if err:
                    add([*path, key, loc], "APPLICATION_COMMAND_INVALID_NAME", f"{where}: {loc} {err}")
            elif not _len_ok(text, 1, hi):
                add(
                    [*path, key, loc],
                    "BASE_TYPE_BAD_LENGTH",
                    f"{where}: {loc} {key[:-14]} must be 1-{hi} characters",
                )


def _total_chars(cmd: dict[str, Any]) -> int:
    total = len(cmd.get("name") or "") + len(cmd.get("description") or "")
    for opt in cmd.get("options") or []:
        total += _total_chars(opt)
        for ch in opt.get("choices") or []:
            total += len(str(ch.get("name", ""))) + len(str(ch.get("value", "")))
    return total


def _validate_options(options: Any, path: list, add, *, depth: int, where: str) -> None:
    if not isinstance(options, list):
        add(path, "BASE_TYPE_LIST", f"{where}: options must be a list")
        return
    if len(options) > 25:
        add(path, "BASE_TYPE_MAX_LENGTH", f"{where}: {len(options)} options (max 25)")
    names: set[str] = set()
    seen_optional = False
    kinds = set()
    for j, opt in enumerate(options):
        p = [*path, j]
        if not isinstance(opt, dict):
            add(p, "DICT_TYPE_CONVERT", f"{where}: option must be an object")
            continue
        otype = opt.get("type")
        oname = opt.get("name")
        here = f"{where} {oname}" if otype in (SUB_COMMAND, SUB_COMMAND_GROUP) else f"{where} [{oname}]"
        if otype not in OPTION_TYPE_NAMES:
            add([*p, "type"], "BASE_TYPE_CHOICES", f"{here}: unknown option type {otype!r}")
            continue
        err = valid_chat_input_name(oname)
        if err:
            add([*p, "name"], "APPLICATION_COMMAND_INVALID_NAME", f"{where}: option {err}")
        if oname in names:
            add(
                [*p, "name"],
                "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
                f"{where}: duplicate option {oname!r}",
            )
        names.add(oname)
        if not _len_ok(opt.get("description"), 1, 100):
            add(
                [*p, "description"],
                "BASE_TYPE_BAD_LENGTH",
                f"{here}: description must be 1-100 characters, got {opt.get('description')!r}",
            )
        _check_localizations(opt, p, add, here, chat_input=True)
        is_sub = otype in (SUB_COMMAND, SUB_COMMAND_GROUP)
        kinds.add(is_sub)
        if is_sub:
            if opt.get("required"):
                add(
                    [*p, "required"],
                    "APPLICATION_COMMAND_OPTION_INVALID",
                    f"{here}: subcommands cannot be required",
                )
            if otype == SUB_COMMAND_GROUP:
                if depth != 0:
                    add(
                        [*p, "type"],
                        "APPLICATION_COMMAND_SUBCOMMAND_GROUP_DEPTH",
                        f"{here}: groups only at top level",
                    )
                subs = opt.get("options") or []
                if any(isinstance(s, dict) and s.get("type") != SUB_COMMAND for s in subs):
                    add(
                        [*p, "options"],
                        "APPLICATION_COMMAND_OPTION_INVALID",
                        f"{here}: a group may only hold subcommands",
                    )
                _validate_options(subs, [*p, "options"], add, depth=depth + 1, where=here)
            else:
                if depth > 1:
                    add(
                        [*p, "type"],
                        "APPLICATION_COMMAND_SUBCOMMAND_DEPTH",
                        f"{here}: subcommand nested too deep",
                    )
                subs = opt.get("options") or []
                if any(
                    isinstance(s, dict) and s.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) for s in subs
                ):
                    add(
                        [*p, "options"],
                        "APPLICATION_COMMAND_OPTION_INVALID",
                        f"{here}: subcommands cannot nest",
                    )
                _validate_options(subs, [*p, "options"], add, depth=depth + 2, where=here)
            continue
        if depth == 1:
            add(p, "APPLICATION_COMMAND_OPTION_INVALID", f"{here}: a group may only hold subcommands")
        required = bool(opt.get("required", False))
        if required and seen_optional:
            add(
                [*p, "required"],
                "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                f"{here}: required options must be placed before non-required options",
            )
        if not required:
            seen_optional = True
        choices = opt.get("choices")
        if choices is not None:
            if otype not in (STRING, INTEGER, NUMBER):
                add(
                    [*p, "choices"],
                    "APPLICATION_COMMAND_OPTION_INVALID",
                    f"{here}: choices not allowed for this type",
                )
            elif not isinstance(choices, list):
                add([*p, "choices"], "BASE_TYPE_LIST", f"{here}: choices must be a list")
            else:
                if len(choices) > 25:
                    add([*p, "choices"], "BASE_TYPE_MAX_LENGTH", f"{here}: {len(choices)} choices (max 25)")
                for k, ch in enumerate(choices):
                    problem = check_choice(ch, otype)
                    if problem:
                        add(
                            [*p, "choices", k],
                            "APPLICATION_COMMAND_OPTION_CHOICE_INVALID",
                            f"{here}: {problem}",
                        )
            if opt.get("autocomplete") and choices:
                add(
                    [*p, "autocomplete"],
                    "APPLICATION_COMMAND_AUTOCOMPLETE_AND_CHOICES",
                    f"{here}: autocomplete cannot be combined with choices",
                )
        if opt.get("autocomplete") and otype not in (STRING, INTEGER, NUMBER):
            add(
                [*p, "autocomplete"],
                "APPLICATION_COMMAND_OPTION_INVALID",
                f"{here}: autocomplete on wrong type",
            )
        for k in ("min_value", "max_value"):
            if k in opt and opt[k] is not None:
                if otype not in (INTEGER, NUMBER):
                    add([*p, k], "APPLICATION_COMMAND_OPTION_INVALID", f"{here}: {k} only for INTEGER/NUMBER")
                elif not _is_num(opt[k]) or abs(opt[k]) > MAX_SAFE_INT:
                    add([*p, k], "NUMBER_TYPE_COERCE", f"{here}: bad {k} {opt[k]!r}")
        if (
            _is_num(opt.get("min_value"))
            and _is_num(opt.get("max_value"))
            and opt["min_value"] > opt["max_value"]
        ):
            add([*p, "min_value"], "APPLICATION_COMMAND_OPTION_INVALID", f"{here}: min_value > max_value")
        for k, lo in (("min_length", 0), ("max_length", 1)):
            if k in opt and opt[k] is not None:
                if otype != STRING:
                    add([*p, k], "APPLICATION_COMMAND_OPTION_INVALID", f"{here}: {k} only for STRING")
                elif not _is_int(opt[k]) or not lo <= opt[k] <= 6000:
                    add([*p, k], "NUMBER_TYPE_MAX", f"{here}: {k} must be {lo}-6000")
        if opt.get("channel_types") is not None and otype != CHANNEL:
            add(
                [*p, "channel_types"],
                "APPLICATION_COMMAND_OPTION_INVALID",
                f"{here}: channel_types only for CHANNEL",
            )
        if opt.get("options"):
            add(
                [*p, "options"],
                "APPLICATION_COMMAND_OPTION_INVALID",
                f"{here}: only subcommands have options",
            )
    if len(kinds) > 1:
        add(
            path,
            "APPLICATION_COMMAND_OPTION_INVALID",
            f"{where}: cannot mix subcommands/groups with other options",
        )


def check_choice(ch: Any, otype: int) -> str | None:
    if not isinstance(ch, dict):
        return "choice must be an object"
    if not _len_ok(ch.get("name"), 1, 100):
        return f"choice name must be 1-100 characters, got {ch.get('name')!r}"
    value = ch.get("value")
    if otype == STRING:
        if not _len_ok(value, 0, 100):
            return f"string choice value must be <=100 characters, got {value!r}"
    elif otype == INTEGER:
        if not _is_int(value) or abs(value) > MAX_SAFE_INT:
            return f"integer choice value expected, got {value!r}"
    elif otype == NUMBER:
        if not _is_num(value) or abs(value) > MAX_SAFE_INT:
            return f"number choice value expected, got {value!r}"
    return None


def errors_body(problems: list[Problem]) -> dict[str, Any]:
    """Discord's 400 "Invalid Form Body" shape (code 50035) for the given problems."""
    errors: dict[str, Any] = {}
    for pr in problems:
        node = errors
        for part in pr.path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": pr.code, "message": pr.message})
    return {"code": 50035, "message": "Invalid Form Body", "errors": errors}


def normalise_option(opt: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": opt["type"],
        "name": opt["name"],
        "name_localizations": opt.get("name_localizations") or None,
        "description": opt.get("description", ""),
        "description_localizations": opt.get("description_localizations") or None,
    }
    if opt["type"] in (SUB_COMMAND, SUB_COMMAND_GROUP):
        out["options"] = [normalise_option(o) for o in opt.get("options") or []]
        return out
    if opt.get("required"):
        out["required"] = True
    for k in ("choices", "channel_types", "min_value", "max_value", "min_length", "max_length"):
        if opt.get(k) is not None:
            out[k] = opt[k]
    if opt.get("autocomplete"):
        out["autocomplete"] = True
    return out


def normalise_command(
    cmd: dict[str, Any], *, command_id: int, application_id: int, version: int, guild_id: int | None
) -> dict[str, Any]:
    ctype = cmd.get("type", CHAT_INPUT)
    out: dict[str, Any] = {
        "id": str(command_id),
        "application_id": str(application_id),
        "version": str(version),
        "default_member_permissions": None
        if cmd.get("default_member_permissions") is None
        else str(cmd["default_member_permissions"]),
        "type": ctype,
        "name": cmd["name"],
        "name_localizations": cmd.get("name_localizations") or None,
        "description": cmd.get("description", "") if ctype == CHAT_INPUT else "",
        "description_localizations": cmd.get("description_localizations") or None,
        "dm_permission": cmd.get("dm_permission", True),
        "contexts": cmd.get("contexts"),
        "integration_types": cmd.get("integration_types") or [0],
        "nsfw": bool(cmd.get("nsfw", False)),
    }
    if ctype == CHAT_INPUT:
        out["options"] = [normalise_option(o) for o in cmd.get("options") or []]
    if guild_id is not None:
        out["guild_id"] = str(guild_id)
        out.pop("dm_permission")
    return out
