"""Every user-facing sentence and embed of the ``/character`` feature (``cogs.text.errors`` words the errors of
``bot.characters`` / ``bot.sheet_files`` with these). Nothing here talks to Discord except building
``discord.Embed`` values; functions take plain values and return text (≤ 2000 characters) or embeds within
Discord's limits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import discord
from discord.utils import escape_mentions

from cogs.text.common import MAX_MESSAGE, clean, fit
from rules.encounter import SheetView
from rules.errors import FieldProblem, RulesError
from rules.systems.registry import get_system, system_names

NAME_MAX = 64
IMPORT_MAX_KB = 256

# Sheet embed colours; any other system gets the neutral one.
SYSTEM_COLOURS = {"nyra": 0x7E57C2, "kaernest": 0xC0392B, "d6": 0x2E86C1}
NEUTRAL_COLOUR = 0x95A5A6

# Discord embed limits
EMBED_TITLE = 256
EMBED_FIELD_NAME = 256
EMBED_FIELD_VALUE = 1024
EMBED_FIELDS = 25
EMBED_FOOTER = 2048
EMBED_TOTAL = 6000


def code(text: object, limit: int = 60) -> str:
    """Inline code for a value a member typed (backticks removed so it cannot break out)."""
    text = " ".join(str(text).replace("`", "'").split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return f"`{text or ' '}`"


def system_title(system: str) -> str:
    """How a sheet is labelled ("D6"); a name no longer registered as itself."""
    try:
        return get_system(system).short_title
    except RulesError:
        return system


def _system_list() -> str:
    *rest, last = system_names()
    return f"{', '.join(rest)} or {last}" if rest else last


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def bold_name(name: str) -> str:
    return f"**{clean(name, NAME_MAX)}**"


# --- names ----------------------------------------------------------------------------------------------


def name_empty() -> str:
    return "A character needs a name (1 to 64 characters)."


def name_too_long(length: int) -> str:
    return f"That name is {length} characters long; a character name can have at most {NAME_MAX}."


def name_control_characters() -> str:
    return "A character name cannot contain line breaks, tabs or other control characters."


def name_not_text() -> str:
    return "needs to be text"


def name_taken(name: str, own: bool = True) -> str:
    whose = "You already have" if own else "That member already has"
    return (
        f"{whose} a character called {bold_name(name)} in this server (names ignore case). "
        "Pick another name, or change that one with `/character set`."
    )


# --- finding characters ---------------------------------------------------------------------------------


def no_characters(system: str | None = None) -> str:
    if system:
        return (
            f"You have no {system_title(system)} character in this server yet. "
            "Create one with `/character create` or bring one in with `/character import`."
        )
    return (
        "You have no character in this server yet. "
        "Create one with `/character create` or bring one in with `/character import`."
    )


def which_character(names: Sequence[str], system: str | None) -> str:
    listed = ", ".join(bold_name(n) for n in names[:20])
    more = f" and {len(names) - 20} more" if len(names) > 20 else ""
    rule = (
        f" (I only pick one by myself when you have exactly one {system_title(system)} character)"
        if system
        else ""
    )
    return fit(
        f"Which character? You have {listed}{more}. Name it in the `character` option; "
        f"the list Discord offers helps{rule}."
    )


def character_not_found(text: str, *, gm: bool) -> str:
    where = "in this server" if gm else "among your characters in this server"
    return (
        f"There is no character {code(text)} {where}. "
        "Pick one from the list Discord offers, or see them with `/character list`."
    )


def character_ambiguous(name: str, owners: Sequence[int]) -> str:
    who = ", ".join(mention(o) for o in owners[:10])
    return fit(
        f"Several members have a character called {bold_name(name)} ({who}). "
        "Pick the one you mean from the list Discord offers in the `character` option."
    )


def not_your_character(name: str) -> str:
    return f"{bold_name(name)} belongs to another member; only its owner or a GM can do that."


def character_gone() -> str:
    return "That character no longer exists (it was deleted). See yours with `/character list`."


# --- create / change ------------------------------------------------------------------------------------


def no_system_here() -> str:
    return (
        "This channel has no rule system yet, so I do not know what kind of sheet to make. "
        "Give one in the `system` option, or ask a GM to set the channel's system with `/gm system`."
    )


def created(user_id: int, name: str, system: str, unset: Sequence[str] = ()) -> str:
    todo = ""
    if unset:
        first, *rest = unset
        example = " ".join(f"{f} …" for f in rest[:2])
        todo = (
            f" Still unset: {', '.join(code(f, 30) for f in unset)}. Set several at once: "
            f"`/character set field:{first} value:… {example}`."
        )
    return fit(
        f"🆕 {mention(user_id)} created {bold_name(name)} ({system_title(system)}).{todo} "
        "Then `/character weapon` and `/character armour`; see it with `/character show`."
    )


def field_set(name: str, field: str, value: str) -> str:
    return fit(f"✏️ {bold_name(name)}: {code(field, 40)} is now {code(value, 100)}.")


def fields_set(name: str, pairs: Sequence[tuple[str, str]]) -> str:
    shown = ", ".join(f"{code(f, 40)} {code(v, 40)}" for f, v in pairs)
    return fit(f"✏️ {bold_name(name)}: set {shown}.")


def renamed(old: str, new: str) -> str:
    return fit(f"✏️ {bold_name(old)} is now called {bold_name(new)}.")


def weapon_changed(name: str, weapon: str, weapons: Sequence[str], *, remove: bool) -> str:
    verb = "put away" if remove else "now carries"
    carried = ", ".join(clean(w, 60) for w in weapons) if weapons else "nothing"
    return fit(f"⚔️ {bold_name(name)} {verb} {code(weapon, 60)}. Weapons: {carried}.")


def armour_changed(name: str, armour: str, location: str | None, *, remove: bool) -> str:
    on = f" on {code(location, 40)}" if location else ""
    if remove:
        return fit(f"🛡️ {bold_name(name)} took off {code(armour, 60)}{on}.")
    return fit(f"🛡️ {bold_name(name)} now wears {code(armour, 60)}{on}.")


def change_refused(name: str, reason: str) -> str:
    return fit(f"{bold_name(name)} was not changed: {reason}")


def fields_refused(problems: Sequence[tuple[str, str, str]]) -> str:
    """Fields set in one go, none set: each refused one with its value and the rules' reason."""
    return "nothing was set — " + "; ".join(f"`{name}` {value}: {reason}" for name, value, reason in problems)


def stored_sheet_invalid(name: str, problems: Sequence[FieldProblem]) -> str:
    listed = "\n".join(f"• {problem_line(p)}" for p in problems[:15])
    return fit(
        f"The stored sheet of {bold_name(name)} does not pass the rules any more:\n{listed}\n"
        "Export it, fix it and import it again, or ask a GM."
    )


# --- list -----------------------------------------------------------------------------------------------


def character_list(rows: Sequence[tuple[str, str, int]], *, gm: bool, total: int) -> str:
    """``rows``: (name, system, owner_id) in display order."""
    if not rows:
        if gm:
            return "Nobody has a character in this server yet. Members create them with `/character create`."
        return no_characters()
    if gm:
        head = f"📜 Characters in this server ({total}):"
        lines = [f"• {bold_name(n)} ({system_title(s)}) — {mention(o)}" for n, s, o in rows]
    else:
        head = f"📜 Your characters in this server ({total}):"
        lines = [f"• {bold_name(n)} ({system_title(s)})" for n, s, _ in rows]
    out = head
    for i, line in enumerate(lines):
        if len(out) + len(line) + 40 > MAX_MESSAGE:
            out += f"\n… and {len(lines) - i + (total - len(rows))} more."
            return out
        out += "\n" + line
    if total > len(rows):
        out += f"\n… and {total - len(rows)} more."
    return out


# --- show -----------------------------------------------------------------------------------------------


def _chunks(lines: Iterable[str], limit: int) -> list[str]:
    chunks: list[str] = []
    current = ""
    for line in lines:
        line = fit(line, limit)
        if current and len(current) + 1 + len(line) > limit:
            chunks.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    if current:
        chunks.append(current)
    return chunks


def _sheet_line(label: str, value: str) -> str:
    if not label.strip() or label.strip() in ("—", "-"):
        return clean(value, 900)
    return f"**{clean(label, 80)}**: {clean(value, 900)}"


def sheet_embed(view: SheetView, system: str, owner_id: int) -> discord.Embed:
    """The sheet as an embed within Discord's limits (long sections continue in further fields)."""
    embed = discord.Embed(
        title=fit(clean(view.title, EMBED_TITLE - 20) + f" · {system_title(system)}", EMBED_TITLE),
        colour=SYSTEM_COLOURS.get(system, NEUTRAL_COLOUR),
    )
    footer = f"{system_title(system)} sheet · see /character show · change with /character set"
    embed.set_footer(text=footer)
    embed.description = f"Owner: {mention(owner_id)}"
    total = len(embed.title or "") + len(footer) + len(embed.description)
    fields: list[tuple[str, str]] = []
    for section, pairs in view.sections:
        lines = [_sheet_line(label, value) for label, value in pairs] or ["—"]
        for i, chunk in enumerate(_chunks(lines, EMBED_FIELD_VALUE)):
            name = clean(section, 200) or "—"
            fields.append((name if i == 0 else f"{name} (cont.)", chunk))
    truncated = False
    for name, value in fields:
        if len(embed.fields) >= EMBED_FIELDS - 1 or total + len(name) + len(value) > EMBED_TOTAL - 120:
            truncated = True
            break
        embed.add_field(name=name, value=value, inline=False)
        total += len(name) + len(value)
    if truncated:
        embed.add_field(name="…", value="The sheet is too long to show whole; export it to see everything.")
    return embed


# --- import / export ------------------------------------------------------------------------------------


def _rules_text(reason: str, limit: int = 300) -> str:
    """A reason written by the rules (its markdown is meant), made one line, bounded and mention-safe."""
    reason = " ".join(reason.split())
    if len(reason) > limit:
        reason = reason[: limit - 1] + "…"
    return escape_mentions(reason)


def problem_line(problem: FieldProblem) -> str:
    path = f"`{' '.join(problem.path.replace('`', chr(39)).split())[:120]}`: " if problem.path else ""
    return f"{path}{_rules_text(problem.problem)}"


def file_too_large(size: int) -> str:
    return (
        f"That file is {size / 1024:.0f} KB; a sheet file can be at most {IMPORT_MAX_KB} KB. "
        "Is it the right file?"
    )


def file_not_utf8(line: int, column: int) -> str:
    return (
        f"That file is not UTF-8 text (the first bad byte is on line {line}, byte {column} of the line). "
        "Save it as UTF-8 and try again."
    )


def file_unknown_format(filename: str) -> str:
    return (
        f"I cannot tell what kind of file {code(filename, 80)} is. "
        "Send a `.json`, `.yaml` (or `.yml`) or `.toml` file — `/character export` makes a `.json` one."
    )


def file_malformed(kind: str, message: str, line: int | None, column: int | None) -> str:
    where = ""
    if line is not None:
        where = f" at line {line}" + (f", column {column}" if column is not None else "")
    return fit(
        f"That {kind} file could not be read{where}: {clean(message, 300)}. Fix it and import it again."
    )


def file_too_complex() -> str:
    return "That file is nested too deeply or has too many entries to be a character sheet."


def file_not_a_mapping(kind: str) -> str:
    return (
        f"That {kind} file does not hold a sheet: the top level must be a table of fields "
        '(like `{"system": "d6", "name": "Ana", …}`).'
    )


def file_download_failed() -> str:
    return "I could not download that attachment from Discord. Try again in a moment."


def problem_missing_system() -> str:
    return f"is missing: say which rule system the sheet is for ({_system_list()})"


def problem_unknown_system(value: object) -> str:
    return f"{code(value, 40)} is not a rule system here; use {_system_list()}"


def problem_missing_name() -> str:
    return "is missing: the character's name"


def problem_bad_value(kind: str) -> str:
    return f"{kind} is not allowed in a sheet; write it as text in quotes, or as a number"


def problem_key_not_text(key: object) -> str:
    return f"the key {code(key, 40)} is not text"


def problem_duplicate_key(key: str) -> str:
    return f"the key {code(key, 40)} appears more than once"


def problem_unreadable() -> str:
    return "the sheet could not be read by the rules (the bot logged why); check its fields"


def _import_head(filename: str) -> str:
    return f"📥 {code(filename, 80)} was not imported; nothing was saved. Fix these and import it again:"


def import_fits(filename: str, problems: Sequence[FieldProblem]) -> bool:
    """Whether every problem fits in one message (else the full list goes in an attached file)."""
    lines = [_import_head(filename)] + [f"• {problem_line(p)}" for p in problems]
    return len("\n".join(lines)) <= MAX_MESSAGE


def import_refused(filename: str, problems: Sequence[FieldProblem], *, attached: bool) -> str:
    out = _import_head(filename)
    lines = [f"• {problem_line(p)}" for p in problems]
    for i, line in enumerate(lines):
        if len(out) + 1 + len(line) + 90 > MAX_MESSAGE:
            more = " (all of them are in the attached file)" if attached else ""
            return out + f"\n… and {len(lines) - i} more{more}."
        out += "\n" + line
    return out


def problems_text(filename: str, problems: Sequence[FieldProblem]) -> str:
    """The full list as a plain-text attachment (when it does not fit in a message)."""
    lines = [f"Problems in {filename} (nothing was saved):", ""]
    lines += [str(p) for p in problems]
    return "\n".join(lines) + "\n"


def imported(name: str, system: str, *, created: bool, system_changed_from: str | None = None) -> str:
    if created:
        return fit(
            f"📥 Imported {bold_name(name)} ({system_title(system)}) as a new character. "
            "See it with `/character show`."
        )
    was = (
        f" (it was a {system_title(system_changed_from)} sheet)"
        if system_changed_from and system_changed_from != system
        else ""
    )
    return fit(
        f"📥 Updated {bold_name(name)} ({system_title(system)}) from the file{was}. "
        "See it with `/character show`."
    )


def exported(name: str, system: str) -> str:
    return fit(
        f"📤 {bold_name(name)} ({system_title(system)}) as a file. "
        "Edit it and bring it back with `/character import`."
    )


# --- delete ---------------------------------------------------------------------------------------------

CONFIRM_LABEL = "Delete"
CANCEL_LABEL = "Keep"


def delete_prompt(user_id: int, name: str, owner_id: int) -> str:
    whose = "" if user_id == owner_id else f" (owned by {mention(owner_id)})"
    return fit(
        f"🗑️ {mention(user_id)} asked to delete {bold_name(name)}{whose}. This cannot be undone. "
        "Its owner or a GM can confirm."
    )


def deleted(user_id: int, name: str) -> str:
    return fit(f"🗑️ {bold_name(name)} was deleted by {mention(user_id)}.")


def delete_cancelled(user_id: int, name: str | None) -> str:
    what = bold_name(name) if name else "The character"
    return fit(f"↩️ {what} was kept ({mention(user_id)} cancelled the deletion).")


def delete_already_gone() -> str:
    return "That character was already deleted; there is nothing left to delete."


def delete_refused() -> str:
    return "Only the character's owner or a GM can answer this."
