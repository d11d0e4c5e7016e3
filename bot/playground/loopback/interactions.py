"""Interactions: building INTERACTION_CREATE payloads from the synced command tree, tracking the bot's
answers (callback, @original edits, followups) and the result object tests assert on."""

# The README contract takes timeout= arguments (every wait is bounded by them).
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import math
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .commands import (
    ATTACHMENT,
    BOOLEAN,
    CHANNEL,
    INTEGER,
    MENTIONABLE,
    NUMBER,
    OPTION_TYPE_NAMES,
    ROLE,
    STRING,
    SUB_COMMAND,
    SUB_COMMAND_GROUP,
    USER,
)
from .world import (
    ADMINISTRATOR,
    FakeAttachment,
    FakeChannel,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
)

if TYPE_CHECKING:
    from .server import FakeDiscord

APPLICATION_COMMAND, MESSAGE_COMPONENT, AUTOCOMPLETE, MODAL_SUBMIT = 2, 3, 4, 5
# Callback types
PONG, CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE = 1, 4, 5, 6, 7
AUTOCOMPLETE_RESULT, MODAL = 8, 9


class CommandNotFound(LookupError):
    """The test asked for a command/option the bot did not sync (or that Discord would not offer)."""


class CommandNotAvailable(PermissionError):
    """Discord would not let this member use the command (default_member_permissions)."""


class InteractionRecord:
    """Everything the fake knows about one interaction and how the bot answered it."""

    def __init__(self, fd: FakeDiscord, *, type: int, guild, channel, member, data, message=None, label=""):
        self.fd = fd
        self.id = fd.world.next_id()
        self.token = "aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48)
        self.type = type
        self.guild = guild
        self.channel: FakeChannel = channel
        self.member: FakeMember = member
        self.data: dict[str, Any] = data
        self.message: FakeMessage | None = message  # the message a component sits on
        self.component: dict[str, Any] | None = None  # the component clicked, as it was then
        self.label = label
        self.payload: dict[str, Any] = {}
        self.created = asyncio.get_running_loop().time()
        self.callback_type: int | None = None
        self.callback_data: dict[str, Any] | None = None
        self.original: FakeMessage | None = None
        self.answer: FakeMessage | None = None  # the message that answered (after a deferral: its first fill)
        self.followups: list[FakeMessage] = []
        self.choices: list[dict[str, Any]] | None = None
        self.modal: dict[str, Any] | None = None
        self.last_activity = self.created
        self.problems: list[str] = []  # what Discord would have rejected in the bot's answers
        self.locale = "en-US"
        self.focused_type = STRING  # autocomplete: type of the focused option
        self._changed = asyncio.Event()

    def __repr__(self) -> str:
        return f"<Interaction {self.label} id={self.id} callback={self.callback_type}>"

    def touch(self) -> None:
        self.last_activity = asyncio.get_running_loop().time()
        self._changed.set()
        self._changed = asyncio.Event()

    @property
    def answered(self) -> bool:
        ct = self.callback_type
        if ct is None:
            return False
        if ct == DEFERRED_CHANNEL_MESSAGE:
            return bool(self.original is not None and not self.original.loading) or bool(self.followups)
        return True

    def missing(self) -> str:
        if self.callback_type is None:
            return "no interaction callback (did the command raise? see the bot's log / tree.on_error)"
        if self.callback_type == DEFERRED_CHANNEL_MESSAGE:
            return "deferred, but @original was never edited and no followup was sent"
        return "nothing"

    async def wait_for(self, predicate: Callable[[], bool], timeout: float, what: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(f"{self.label}: timed out after {timeout}s waiting for {what}")
            ev = self._changed
            try:
                await asyncio.wait_for(ev.wait(), remaining)
            except TimeoutError:
                continue

    async def settle(self, quiet: float, timeout: float) -> None:
        """Wait until neither this interaction nor the REST API saw activity for ``quiet`` seconds (bounded)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            now = loop.time()
            wait = max(self.last_activity, self.fd.last_rest_activity) + quiet - now
            if wait <= 0 or now >= deadline:
                return
            await asyncio.sleep(min(wait, deadline - now))


class InteractionResult:
    """What a test sees after ``fd.invoke``/``fd.click``. Live: it reflects later followups/edits too."""

    def __init__(self, record: InteractionRecord) -> None:
        self.interaction = record

    def __repr__(self) -> str:
        return (
            f"<InteractionResult {self.interaction.label} type={self.type} ephemeral={self.ephemeral} "
            f"content={self.content!r} embeds={len(self.embeds)} followups={len(self.followups)}>"
        )

    @property
    def type(self) -> int | None:
        """Callback type the bot used (4 message, 5 deferred, 6 deferred update, 7 update, 8, 9)."""
        return self.interaction.callback_type

    @property
    def response(self) -> FakeMessage | None:
        """The answer the member sees: the @original message (for component updates: the clicked message
        after the update); after a deferral, whichever first filled it in: an edit of @original or a
        followup (which, once a deferred "thinking…" was deleted, is a message of its own)."""
        return self.interaction.answer or self.interaction.original

    message = response

    @property
    def content(self) -> str:
        return self.response.content if self.response else ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.response.embeds if self.response else []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.response.components if self.response else []

    @property
    def custom_ids(self) -> list[str]:
        return self.response.custom_ids if self.response else []

    @property
    def flags(self) -> int:
        return self.response.flags if self.response else 0

    @property
    def ephemeral(self) -> bool:
        return bool(self.response and self.response.ephemeral)

    @property
    def deferred(self) -> bool:
        return self.interaction.callback_type in (DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE)

    @property
    def followups(self) -> list[FakeMessage]:
        """The followup messages besides the answer (``response``), so a result reads the same whether the
        bot answered at once or deferred first."""
        answer = self.response
        return [m for m in self.interaction.followups if m is not answer]

    @property
    def messages(self) -> list[FakeMessage]:
        out: list[FakeMessage] = []
        for m in [self.response, *self.interaction.followups]:
            if m is not None and all(m is not o for o in out):
                out.append(m)
        return out

    @property
    def files(self) -> list[FakeAttachment]:
        return [a for m in self.messages for a in m.attachments]

    @property
    def text(self) -> str:
        return "\n".join(m.text for m in self.messages)

    @property
    def choices(self) -> list[dict[str, Any]] | None:
        return self.interaction.choices

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.interaction.modal

    async def wait_followups(self, n: int = 1, timeout: float = 10.0) -> list[FakeMessage]:
        """Wait (bounded) until at least ``n`` followups exist."""
        await self.interaction.wait_for(
            lambda: len(self.followups) >= n, timeout, f"{n} followup(s), have {len(self.followups)}"
        )
        return self.followups


# -- building options -------------------------------------------------------------------------------


def resolve_path(command: dict[str, Any], path: list[str], label: str) -> tuple[list[dict], list[dict]]:
    """Walk ``path`` (subcommand group / subcommand names) below ``command``.

    Returns (chain of option dicts walked, leaf option declarations)."""
    chain: list[dict] = []
    options = command.get("options") or []
    for part in path:
        sub = next(
            (
                o
                for o in options
                if o.get("name") == part and o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)
            ),
            None,
        )
        if sub is None:
            names = [o["name"] for o in options if o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP)]
            raise CommandNotFound(f"{label}: no subcommand {part!r} (synced: {names})")
        chain.append(sub)
        options = sub.get("options") or []
    if any(o.get("type") in (SUB_COMMAND, SUB_COMMAND_GROUP) for o in options):
        names = [o["name"] for o in options]
        raise CommandNotFound(f"{label}: is a group, pick a subcommand from {names}")
    return chain, options


def build_options(
    fd: FakeDiscord,
    record_ctx: dict[str, Any],
    decls: list[dict[str, Any]],
    values: dict[str, Any],
    *,
    label: str,
    focused: str | None = None,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Coerce ``values`` against the declared options; returns (options, resolved)."""
    resolved: dict[str, dict[str, Any]] = {}
    by_name = {d["name"]: d for d in decls}
    values = dict(values)
    # ``file=`` shortcut: goes to the single attachment option when no option is called "file".
    if "file" in values and "file" not in by_name:
        att = [d["name"] for d in decls if d["type"] == ATTACHMENT]
        if len(att) != 1:
            raise CommandNotFound(f"{label}: file= given but the command has attachment options {att}")
        values[att[0]] = values.pop("file")
    unknown = [k for k in values if k not in by_name]
    if unknown:
        raise CommandNotFound(f"{label}: unknown option(s) {unknown}; synced options: {list(by_name)}")
    if focused is None:
        missing = [d["name"] for d in decls if d.get("required") and values.get(d["name"]) is None]
        if missing:
            raise CommandNotFound(
                f"{label}: required option(s) {missing} missing (Discord would not send this)"
            )
    out: list[dict[str, Any]] = []
    for decl in decls:  # Discord sends options in declaration order
        name = decl["name"]
        if name not in values or values[name] is None:
            continue
        value = values[name]
        otype = decl["type"]
        if name == focused:
            out.append(
                {
                    "name": name,
                    "type": otype,
                    "value": value if otype != STRING else str(value),
                    "focused": True,
                }
            )
            continue
        coerced = coerce_value(fd, record_ctx, decl, value, resolved, label=label)
        out.append({"name": name, "type": otype, "value": coerced})
    return out, resolved


def coerce_value(fd, ctx, decl, value, resolved, *, label: str):
    otype = decl["type"]
    name = decl["name"]
    where = f"{label} [{name}] ({OPTION_TYPE_NAMES.get(otype)})"
    choices = decl.get("choices")
    if choices:
        vals = [c["value"] for c in choices]
        if value not in vals:
            by_label = {c["name"]: c["value"] for c in choices}
            if value in by_label:
                value = by_label[value]
            else:
                raise CommandNotFound(f"{where}: {value!r} is not one of the choices {vals}")
    if otype == STRING:
        value = str(value)
        if decl.get("min_length") is not None and len(value) < decl["min_length"]:
            raise CommandNotFound(f"{where}: shorter than min_length {decl['min_length']}")
        if decl.get("max_length") is not None and len(value) > decl["max_length"]:
            raise CommandNotFound(f"{where}: longer than max_length {decl['max_length']}")
        if len(value) > 6000:
            raise CommandNotFound(f"{where}: Discord caps string options at 6000 characters")
        return value
    if otype in (INTEGER, NUMBER):
        if isinstance(value, bool):
            raise CommandNotFound(f"{where}: got a bool")
        try:
            num = int(value) if otype == INTEGER else float(value)
        except (TypeError, ValueError):
            raise CommandNotFound(f"{where}: {value!r} is not a number") from None
        if otype == INTEGER and isinstance(value, float) and not value.is_integer():
            raise CommandNotFound(f"{where}: {value!r} is not an integer")
        if otype == NUMBER and not math.isfinite(num):
            raise CommandNotFound(f"{where}: {value!r} is not finite")
        if decl.get("min_value") is not None and num < decl["min_value"]:
            raise CommandNotFound(f"{where}: {num} < min_value {decl['min_value']}")
        if decl.get("max_value") is not None and num > decl["max_value"]:
            raise CommandNotFound(f"{where}: {num} > max_value {decl['max_value']}")
        return num
    if otype == BOOLEAN:
        if not isinstance(value, bool):
            raise CommandNotFound(f"{where}: expected True/False, got {value!r}")
        return value
    guild = ctx["guild"]
    member: FakeMember = ctx["member"]
    if otype in (USER, MENTIONABLE) and isinstance(value, FakeMember | FakeUser | int):
        if isinstance(value, int):
            found = guild.members.get(value) or fd.world.users.get(value)
            if found is None:
                raise CommandNotFound(f"{where}: no user {value}")
            value = found
        if isinstance(value, FakeMember):
            resolved.setdefault("users", {})[str(value.id)] = value.user.to_dict()
            resolved.setdefault("members", {})[str(value.id)] = value.to_dict(
                with_user=False, with_permissions=True
            )
        else:
            resolved.setdefault("users", {})[str(value.id)] = value.to_dict()
        return str(value.id)
    if otype in (ROLE, MENTIONABLE) and isinstance(value, FakeRole):
        resolved.setdefault("roles", {})[str(value.id)] = value.to_dict()
        return str(value.id)
    if otype == CHANNEL and isinstance(value, FakeChannel):
        types = decl.get("channel_types")
        if types and value.type not in types:
            raise CommandNotFound(f"{where}: channel type {value.type} not in {types}")
        perms = guild.channel_permissions(member, value)
        resolved.setdefault("channels", {})[str(value.id)] = value.to_dict(permissions=perms)
        return str(value.id)
    if otype == ATTACHMENT:
        att = value if isinstance(value, FakeAttachment) else fd.make_attachment(*value, ephemeral=True)
        resolved.setdefault("attachments", {})[str(att.id)] = att.to_dict()
        return str(att.id)
    raise CommandNotFound(f"{where}: cannot use {value!r} here")


def member_may_use(command: dict[str, Any], member: FakeMember) -> bool:
    dmp = command.get("default_member_permissions")
    if dmp is None:
        return True
    perms = member.permissions
    if perms & ADMINISTRATOR:
        return True
    need = int(dmp)
    if need == 0:
        return False
    return perms & need == need


def modal_submission(modal: dict[str, Any], values: dict[str, Any]) -> list[dict[str, Any]]:
    """Mirror a modal's component tree with the submitted values (action rows or labels)."""
    used: set[str] = set()

    def answer(c: dict[str, Any]) -> dict[str, Any]:
        cid = c.get("custom_id")
        out: dict[str, Any] = {"type": c.get("type"), "custom_id": cid}
        if "id" in c:
            out["id"] = c["id"]
        if cid in values:
            used.add(cid)
        v = values.get(cid)
        if c.get("type") == 4:
            out["value"] = "" if v is None else str(v)
        else:
            out["values"] = [] if v is None else [str(x) for x in (v if isinstance(v, list | tuple) else [v])]
        return out

    out = []
    for top in modal.get("components") or []:
        if top.get("type") == 1:
            out.append({"type": 1, "components": [answer(c) for c in top.get("components") or []]})
        elif top.get("type") == 18 and isinstance(top.get("component"), dict):
            item = {"type": 18, "component": answer(top["component"])}
            if "id" in top:
                item["id"] = top["id"]
            out.append(item)
    unknown = set(values) - used
    if unknown:
        raise CommandNotFound(f"modal {modal.get('custom_id')!r} has no input(s) {sorted(unknown)}")
    return out
