"""REST side of the fake: a small router over ``/api/v10`` plus the handlers the bot uses.

Every JSON reply carries ``Content-Type: application/json`` exactly (discord.py compares the header
string; aiohttp's ``json_response`` would add ``; charset=utf-8`` and break it). Unknown routes are
recorded in ``fd.problems`` and answered 404 like Discord.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .commands import Problem, check_choice, errors_body, validate_commands
from .interactions import (
    APPLICATION_COMMAND,
    AUTOCOMPLETE,
    AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE,
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    MESSAGE_COMPONENT,
    MODAL,
    MODAL_SUBMIT,
    PONG,
    UPDATE_MESSAGE,
    InteractionRecord,
)
from .messages import validate_message, validate_modal
from .world import EPHEMERAL, LOADING, FakeMessage, iso

if TYPE_CHECKING:
    from .server import FakeDiscord

Handler = Callable[["FakeDiscord", web.Request, dict[str, str]], Awaitable[web.StreamResponse]]
API_PREFIX = "/api/v10"


def json_response(data: Any, status: int = 200) -> web.Response:
    return web.Response(
        body=json.dumps(data, separators=(",", ":")).encode(),
        status=status,
        headers={"Content-Type": "application/json"},
    )


def no_content() -> web.Response:
    return web.Response(status=204)


def error(status: int, code: int, message: str, **extra: Any) -> web.Response:
    return json_response({"code": code, "message": message, **extra}, status=status)


def invalid_form(fd: FakeDiscord, what: str, problems: list[Problem], rec=None) -> web.Response:
    for p in problems:
        fd.problem(f"{what}: {p}", rec=rec)
    return json_response(errors_body(problems), status=400)


class Body:
    """A request body: JSON, or multipart (payload_json + files[n])."""

    def __init__(self, payload: Any, files: list[tuple[str, str, bytes, str | None]]) -> None:
        self.payload = payload
        self.files = files  # (field name, filename, data, content type)


async def read_body(request: web.Request) -> Body:
    ctype = request.headers.get("Content-Type", "")
    if ctype.startswith("multipart/"):
        payload: Any = {}
        files = []
        reader = await request.multipart()
        for _ in range(64):  # bounded: discord allows 10 files
            part = await reader.next()
            if part is None:
                break
            data = await part.read()
            if part.name == "payload_json":
                payload = json.loads(data.decode())
            else:
                files.append(
                    (part.name or "", part.filename or "file", bytes(data), part.headers.get("Content-Type"))
                )
        return Body(payload, files)
    raw = await request.read()
    if not raw:
        return Body(None, [])
    return Body(json.loads(raw.decode()), [])


class Router:
    def __init__(self) -> None:
        self.routes: list[tuple[str, re.Pattern[str], Handler, bool]] = []

    def add(self, method: str, pattern: str, *, auth: bool = True) -> Callable[[Handler], Handler]:
        regex = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", pattern) + "$")

        def deco(fn: Handler) -> Handler:
            self.routes.append((method, regex, fn, auth))
            return fn

        return deco

    def match(self, method: str, path: str) -> tuple[Handler, dict[str, str], bool] | None:
        for m, regex, fn, auth in self.routes:
            if m == method:
                found = regex.match(path)
                if found:
                    return fn, found.groupdict(), auth
        return None


router = Router()
route = router.add


async def api_handler(fd: FakeDiscord, request: web.Request) -> web.StreamResponse:
    path = request.path[len(API_PREFIX) :] or "/"
    fd.requests.append((request.method, path))
    found = router.match(request.method, path)
    if found is None:
        fd.problem(f"REST: unimplemented route {request.method} {API_PREFIX}{path}")
        return error(404, 0, "404: Not Found")
    fn, params, auth = found
    if auth:
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bot ") or len(header) < 8:
            fd.problem(f"REST: {request.method} {path} without 'Authorization: Bot <token>'")
            return error(401, 0, "401: Unauthorized")
    try:
        return await fn(fd, request, params)
    except json.JSONDecodeError as exc:
        fd.problem(f"REST: {request.method} {path}: invalid JSON body ({exc})")
        return error(400, 50109, "The request body contains invalid JSON.")


# -- identity / gateway -----------------------------------------------------------------------------


@route("GET", "/gateway", auth=False)
async def get_gateway(fd, request, p):
    return json_response({"url": fd.gateway_url})


@route("GET", "/gateway/bot")
async def get_gateway_bot(fd, request, p):
    return json_response(
        {
            "url": fd.gateway_url,
            "shards": fd.recommended_shards,
            "session_start_limit": {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1},
        }
    )


@route("GET", "/users/@me")
async def get_me(fd, request, p):
    return json_response({**fd.world.bot_user.to_dict(), "verified": True, "mfa_enabled": False, "bot": True})


@route("GET", "/users/{user_id}")
async def get_user(fd, request, p):
    user = fd.world.users.get(int(p["user_id"])) if p["user_id"].isdigit() else None
    if user is None:
        return error(404, 10013, "Unknown User")
    return json_response(user.to_dict())


async def _app_info(fd, request, p):
    w = fd.world
    return json_response(
        {
            "id": str(w.application_id),
            "name": w.bot_user.name,
            "icon": None,
            "description": "Fray (fake Discord)",
            "summary": "",
            "type": None,
            "hook": True,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": w.application_flags,
            "owner": w.owner_user.to_dict(),
            "team": None,
            "bot": w.bot_user.to_dict(),
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "install_params": {
                "scopes": ["bot", "applications.commands"],
                "permissions": str(w.bot_permissions),
            },
            "integration_types_config": {"0": {}},
            "approximate_guild_count": len(w.guilds),
        }
    )


route("GET", "/applications/@me")(_app_info)
route("GET", "/oauth2/applications/@me")(_app_info)


# -- application commands ---------------------------------------------------------------------------


def _check_app(fd, p) -> web.Response | None:
    if p["app"] != str(fd.world.application_id):
        fd.problem(f"REST: application id {p['app']} is not the bot's ({fd.world.application_id})")
        return error(404, 10002, "Unknown Application")
    return None


async def _put_commands(fd: FakeDiscord, request, p, guild_id: int | None):
    bad = _check_app(fd, p)
    if bad:
        return bad
    if guild_id is not None and guild_id not in fd.world.guilds:
        fd.problem(f"REST: command sync for unknown guild {guild_id}")
        return error(404, 10004, "Unknown Guild")
    body = await read_body(request)
    scope = "global" if guild_id is None else guild_id
    fd.sync_calls.append((scope, body.payload))
    problems = validate_commands(body.payload)
    if problems:
        return invalid_form(fd, f"command sync ({scope})", problems)
    stored = fd.store_commands(guild_id, body.payload)
    return json_response(stored)


@route("PUT", "/applications/{app}/commands")
async def put_global_commands(fd, request, p):
    return await _put_commands(fd, request, p, None)


@route("PUT", "/applications/{app}/guilds/{guild}/commands")
async def put_guild_commands(fd, request, p):
    return await _put_commands(fd, request, p, int(p["guild"]))


@route("GET", "/applications/{app}/commands")
async def get_global_commands(fd, request, p):
    return _check_app(fd, p) or json_response(fd.global_commands)


@route("GET", "/applications/{app}/guilds/{guild}/commands")
async def get_guild_commands(fd, request, p):
    return _check_app(fd, p) or json_response(fd.guild_commands.get(int(p["guild"]), []))


@route("GET", "/applications/{app}/guilds/{guild}/commands/permissions")
async def get_command_permissions(fd, request, p):
    return _check_app(fd, p) or json_response([])


# -- interactions -----------------------------------------------------------------------------------


def _truthy(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true", "yes")


@route("POST", "/interactions/{iid}/{token}/callback", auth=False)
async def interaction_callback(fd: FakeDiscord, request, p):
    rec = fd._interactions_by_token.get(p["token"])
    body = await read_body(request)
    if rec is None or str(rec.id) != p["iid"]:
        fd.problem(f"callback for unknown interaction {p['iid']}")
        return error(404, 10062, "Unknown interaction")
    elapsed = fd._now() - rec.created
    if fd.callback_deadline is not None and elapsed > fd.callback_deadline:
        fd.problem(
            f"{rec.label}: callback after {elapsed:.2f}s (Discord allows {fd.callback_deadline}s) -> 10062",
            rec=rec,
        )
        return error(404, 10062, "Unknown interaction")
    if rec.callback_type is not None:
        fd.problem(
            f"{rec.label}: interaction acknowledged twice (second callback type {body.payload!r:.80})",
            rec=rec,
        )
        return error(400, 40060, "Interaction has already been acknowledged.")
    payload = body.payload if isinstance(body.payload, dict) else {}
    ctype = payload.get("type")
    data = payload.get("data") or {}
    allowed = {
        APPLICATION_COMMAND: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, MODAL},
        MESSAGE_COMPONENT: {
            CHANNEL_MESSAGE,
            DEFERRED_CHANNEL_MESSAGE,
            DEFERRED_UPDATE_MESSAGE,
            UPDATE_MESSAGE,
            MODAL,
        },
        AUTOCOMPLETE: {AUTOCOMPLETE_RESULT},
        MODAL_SUBMIT: {CHANNEL_MESSAGE, DEFERRED_CHANNEL_MESSAGE, DEFERRED_UPDATE_MESSAGE, UPDATE_MESSAGE},
    }[rec.type]
    if ctype not in allowed or ctype == PONG:
        fd.problem(f"{rec.label}: callback type {ctype} not valid for interaction type {rec.type}", rec=rec)
        return error(
            400, 50035, "Invalid Form Body", errors={"type": {"_errors": [{"code": "BASE_TYPE_CHOICES"}]}}
        )
    if ctype in (UPDATE_MESSAGE, DEFERRED_UPDATE_MESSAGE) and rec.message is None:
        fd.problem(f"{rec.label}: callback type {ctype} on an interaction without a message", rec=rec)
        return error(400, 40060, "Interaction has no message")
    if ctype in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
        problems = validate_message(data, n_files=len(body.files), edit=ctype == UPDATE_MESSAGE)
        if problems:
            return invalid_form(fd, f"{rec.label}: callback message", problems, rec=rec)
    if ctype == MODAL:
        problems = validate_modal(data)
        if problems:
            return invalid_form(fd, f"{rec.label}: modal", problems, rec=rec)
    if ctype == AUTOCOMPLETE_RESULT:
        problems = _validate_choices(rec, data)
        if problems:
            return invalid_form(fd, f"{rec.label}: autocomplete result", problems, rec=rec)

    rec.callback_type = ctype
    rec.callback_data = data
    message: FakeMessage | None = None
    if ctype == CHANNEL_MESSAGE:
        message = await fd.create_interaction_message(rec, data, body.files)
        rec.original = rec.answer = message
    elif ctype == DEFERRED_CHANNEL_MESSAGE:
        flags = LOADING | (int(data.get("flags") or 0) & EPHEMERAL)
        message = await fd.create_interaction_message(rec, {"content": "", "flags": flags}, [])
        rec.original = message
    elif ctype == DEFERRED_UPDATE_MESSAGE:
        rec.original = rec.message
    elif ctype == UPDATE_MESSAGE:
        assert rec.message is not None
        await fd.edit_message(rec.message, data, body.files)
        rec.original = rec.answer = message = rec.message
    elif ctype == AUTOCOMPLETE_RESULT:
        rec.choices = list(data.get("choices") or [])
    elif ctype == MODAL:
        rec.modal = data
    rec.touch()

    if not _truthy(request.query.get("with_response")):
        fd.stats["callbacks_without_response"] += 1
        return no_content()
    interaction: dict[str, Any] = {
        "id": str(rec.id),
        "type": rec.type,
        "channel_id": str(rec.channel.id),
        "guild_id": str(rec.guild.id),
    }
    if message is not None:
        interaction.update(
            response_message_id=str(message.id),
            response_message_loading=message.loading,
            response_message_ephemeral=message.ephemeral,
        )
    body_out: dict[str, Any] = {"interaction": interaction}
    if message is not None and ctype in (CHANNEL_MESSAGE, UPDATE_MESSAGE):
        # The spec's resource is oneOf CREATE_MESSAGE(4) / UPDATE_MESSAGE(7) / LAUNCH_ACTIVITY(12).
        body_out["resource"] = {"type": ctype, "message": fd.message_payload(message)}
    return json_response(body_out)


def _validate_choices(rec: InteractionRecord, data: dict[str, Any]) -> list[Problem]:
    choices = data.get("choices")
    if not isinstance(choices, list):
        return [
            Problem(("data", "choices"), "BASE_TYPE_REQUIRED", "autocomplete result needs a choices list")
        ]
    problems = []
    if len(choices) > 25:
        problems.append(
            Problem(("data", "choices"), "BASE_TYPE_MAX_LENGTH", f"{len(choices)} choices (max 25)")
        )
    otype = rec.focused_type
    for i, ch in enumerate(choices):
        err = check_choice(ch, otype)
        if err:
            problems.append(Problem(("data", "choices", i), "APPLICATION_COMMAND_OPTION_CHOICE_INVALID", err))
    return problems


def _webhook_record(fd: FakeDiscord, p) -> InteractionRecord | web.Response:
    rec = fd._interactions_by_token.get(p["token"])
    if rec is None or p["app"] != str(fd.world.application_id):
        fd.problem(f"webhook {p['app']}/{p['token'][:12]}... is unknown")
        return error(404, 10015, "Unknown Webhook")
    return rec


def _webhook_message(fd: FakeDiscord, rec: InteractionRecord, mid: str) -> FakeMessage | web.Response:
    if mid == "@original":
        if rec.original is None or rec.original.deleted:
            fd.problem(f"{rec.label}: @original requested but there is no response message", rec=rec)
            return error(404, 10008, "Unknown Message")
        return rec.original
    msg = fd.world.messages.get(int(mid)) if mid.isdigit() else None
    if msg is None or msg.deleted or (msg is not rec.original and msg not in rec.followups):
        fd.problem(f"{rec.label}: webhook message {mid} is not one of this interaction's messages", rec=rec)
        return error(404, 10008, "Unknown Message")
    return msg


@route("POST", "/webhooks/{app}/{token}", auth=False)
async def execute_webhook(fd: FakeDiscord, request, p):
    rec = _webhook_record(fd, p)
    if isinstance(rec, web.Response):
        return rec
    body = await read_body(request)
    data = body.payload if isinstance(body.payload, dict) else {}
    if rec.callback_type is None:
        fd.problem(f"{rec.label}: followup sent before the interaction was acknowledged", rec=rec)
        return error(404, 10015, "Unknown Webhook")
    problems = validate_message(data, n_files=len(body.files))
    if problems:
        return invalid_form(fd, f"{rec.label}: followup", problems, rec=rec)
    orig = rec.original
    if (
        rec.callback_type == DEFERRED_CHANNEL_MESSAGE
        and orig is not None
        and orig.loading
        and not orig.deleted
    ):
        # Discord: the first followup after a deferred response replaces the "thinking" message;
        # it keeps the defer's ephemerality.
        data = {**data, "flags": (int(data.get("flags") or 0) & ~EPHEMERAL) | (orig.flags & EPHEMERAL)}
        await fd.edit_message(orig, data, body.files, followup=True)
        message = orig
    else:
        message = await fd.create_interaction_message(rec, data, body.files, followup=True)
    rec.followups.append(message)
    rec.answer = rec.answer or message
    rec.touch()
    if _truthy(request.query.get("wait")):
        return json_response(fd.message_payload(message))
    return no_content()


@route("GET", "/webhooks/{app}/{token}/messages/{mid}", auth=False)
async def get_webhook_message(fd, request, p):
    rec = _webhook_record(fd, p)
    if isinstance(rec, web.Response):
        return rec
    msg = _webhook_message(fd, rec, p["mid"])
    if isinstance(msg, web.Response):
        return msg
    return json_response(fd.message_payload(msg))


@route("PATCH", "/webhooks/{app}/{token}/messages/{mid}", auth=False)
async def edit_webhook_message(fd, request, p):
    rec = _webhook_record(fd, p)
    if isinstance(rec, web.Response):
        return rec
    msg = _webhook_message(fd, rec, p["mid"])
    if isinstance(msg, web.Response):
        return msg
    body = await read_body(request)
    data = body.payload if isinstance(body.payload, dict) else {}
    problems = validate_message(data, n_files=len(body.files), edit=True)
    if problems:
        return invalid_form(fd, f"{rec.label}: edit", problems, rec=rec)
    await fd.edit_message(msg, data, body.files)
    if msg is rec.original:
        rec.answer = rec.answer or msg
    rec.touch()
    return json_response(fd.message_payload(msg))


@route("DELETE", "/webhooks/{app}/{token}/messages/{mid}", auth=False)
async def delete_webhook_message(fd, request, p):
    rec = _webhook_record(fd, p)
    if isinstance(rec, web.Response):
        return rec
    msg = _webhook_message(fd, rec, p["mid"])
    if isinstance(msg, web.Response):
        return msg
    await fd.delete_message(msg)
    rec.touch()
    return no_content()


# -- channels and messages --------------------------------------------------------------------------


def _channel(fd: FakeDiscord, cid: str):
    ch = fd.world.channel(int(cid)) if cid.isdigit() else None
    if ch is None:
        fd.problem(f"REST: unknown channel {cid}")
        return error(404, 10003, "Unknown Channel")
    return ch


def _channel_message(fd: FakeDiscord, ch, mid: str) -> FakeMessage | web.Response:
    msg = fd.world.messages.get(int(mid)) if mid.isdigit() else None
    if msg is not None and msg.deleted and msg.channel_id == ch.id:
        # A deleted message is a normal runtime 404 (someone removed it), not a bot bug.
        fd.not_found.append(("message", int(mid)))
        return error(404, 10008, "Unknown Message")
    if msg is None or msg.channel_id != ch.id or msg.ephemeral:
        fd.problem(f"REST: unknown message {mid} in channel {ch.id}")
        return error(404, 10008, "Unknown Message")
    return msg


@route("GET", "/channels/{cid}")
async def get_channel(fd, request, p):
    ch = _channel(fd, p["cid"])
    if isinstance(ch, web.Response):
        return ch
    return json_response(ch.to_dict())


@route("POST", "/channels/{cid}/messages")
async def create_message(fd: FakeDiscord, request, p):
    ch = _channel(fd, p["cid"])
    if isinstance(ch, web.Response):
        return ch
    body = await read_body(request)
    data = body.payload if isinstance(body.payload, dict) else {}
    problems = validate_message(data, n_files=len(body.files))
    if problems:
        return invalid_form(fd, f"message in #{ch.name}", problems)
    if data.get("flags") and int(data["flags"]) & EPHEMERAL:
        fd.problem(f"message in #{ch.name}: EPHEMERAL flag is only valid on interaction responses")
    msg = await fd.create_channel_message(ch, data, body.files)
    return json_response(fd.message_payload(msg))


@route("GET", "/channels/{cid}/messages")
async def list_messages(fd: FakeDiscord, request, p):
    ch = _channel(fd, p["cid"])
    if isinstance(ch, web.Response):
        return ch
    limit = max(1, min(100, int(request.query.get("limit", "50"))))
    msgs = fd.channel_messages(ch)
    if "before" in request.query:
        msgs = [m for m in msgs if m.id < int(request.query["before"])]
    if "after" in request.query:
        msgs = [m for m in msgs if m.id > int(request.query["after"])]
        msgs = msgs[:limit]
    msgs = list(reversed(msgs))[:limit]  # newest first, like Discord
    return json_response([fd.message_payload(m) for m in msgs])


@route("GET", "/channels/{cid}/messages/{mid}")
async def get_message(fd, request, p):
    ch = _channel(fd, p["cid"])
    if isinstance(ch, web.Response):
        return ch
    msg = _channel_message(fd, ch, p["mid"])
    if isinstance(msg, web.Response):
        return msg
    return json_response(fd.message_payload(msg))


@route("PATCH", "/channels/{cid}/messages/{mid}")
async def edit_message(fd: FakeDiscord, request, p):
    ch = _channel(fd, p["cid"])
    if isinstance(ch, web.Response):
        return ch
    msg = _channel_message(fd, ch, p["mid"])
    if isinstance(msg, web.Response):
        return msg
    body = await read_body(request)
    data = body.payload if isinstance(body.payload, dict) else {}
    if msg.author.get("id") != str(fd.world.bot_user.id):
        only_flags = set(data) <= {"flags"}
        if not only_flags:
            fd.problem(f"REST: bot tried to edit message {msg.id} authored by someone else")
            return error(403, 50005, "Cannot edit a message authored by another user")
    problems = validate_message(data, n_files=len(body.files), edit=True)
    if problems:
        return invalid_form(fd, f"edit of message {msg.id}", problems)
    await fd.edit_message(msg, data, body.files)
    return json_response(fd.message_payload(msg))


@route("DELETE", "/channels/{cid}/messages/{mid}")
async def delete_message(fd, request, p):
    ch = _channel(fd, p["cid"])
    if isinstance(ch, web.Response):
        return ch
    msg = _channel_message(fd, ch, p["mid"])
    if isinstance(msg, web.Response):
        return msg
    await fd.delete_message(msg)
    return no_content()


@route("POST", "/channels/{cid}/typing")
async def typing(fd, request, p):
    ch = _channel(fd, p["cid"])
    return ch if isinstance(ch, web.Response) else no_content()


@route("PUT", "/channels/{cid}/messages/{mid}/reactions/{emoji}/@me")
async def add_reaction(fd: FakeDiscord, request, p):
    ch = _channel(fd, p["cid"])
    if isinstance(ch, web.Response):
        return ch
    msg = _channel_message(fd, ch, p["mid"])
    if isinstance(msg, web.Response):
        return msg
    fd.reactions.setdefault(msg.id, []).append(p["emoji"])
    return no_content()


async def _create_thread(fd: FakeDiscord, request, p, from_message: bool):
    ch = _channel(fd, p["cid"])
    if isinstance(ch, web.Response):
        return ch
    if ch.is_thread:
        fd.problem(f"REST: cannot create a thread inside thread {ch.id}")
        return error(400, 50024, "Cannot execute action on this channel type")
    body = await read_body(request)
    data = body.payload if isinstance(body.payload, dict) else {}
    name = data.get("name")
    if not isinstance(name, str) or not 1 <= len(name) <= 100:
        return invalid_form(
            fd, "thread", [Problem(("name",), "BASE_TYPE_BAD_LENGTH", f"thread name {name!r}")]
        )
    private = not from_message and data.get("type", 12) == 12
    th = ch.guild.add_thread(ch, name, private=private, owner=ch.guild.bot_member)
    return json_response({**th.to_dict(), "newly_created": True})


@route("POST", "/channels/{cid}/threads")
async def create_thread(fd, request, p):
    return await _create_thread(fd, request, p, from_message=False)


@route("POST", "/channels/{cid}/messages/{mid}/threads")
async def create_thread_from_message(fd, request, p):
    return await _create_thread(fd, request, p, from_message=True)


# -- guilds -----------------------------------------------------------------------------------------


def _guild(fd: FakeDiscord, gid: str):
    g = fd.world.guilds.get(int(gid)) if gid.isdigit() else None
    if g is None:
        fd.problem(f"REST: unknown guild {gid}")
        return error(404, 10004, "Unknown Guild")
    return g


@route("GET", "/guilds/{gid}")
async def get_guild(fd, request, p):
    g = _guild(fd, p["gid"])
    return g if isinstance(g, web.Response) else json_response(g.to_dict())


@route("GET", "/guilds/{gid}/channels")
async def get_guild_channels(fd, request, p):
    g = _guild(fd, p["gid"])
    return g if isinstance(g, web.Response) else json_response([c.to_dict() for c in g.channels.values()])


@route("GET", "/guilds/{gid}/roles")
async def get_guild_roles(fd, request, p):
    g = _guild(fd, p["gid"])
    return g if isinstance(g, web.Response) else json_response([r.to_dict() for r in g.roles.values()])


@route("GET", "/guilds/{gid}/members/{uid}")
async def get_member(fd, request, p):
    g = _guild(fd, p["gid"])
    if isinstance(g, web.Response):
        return g
    m = g.members.get(int(p["uid"])) if p["uid"].isdigit() else None
    if m is None:
        return error(404, 10007, "Unknown Member")
    return json_response(m.to_dict())


@route("GET", "/guilds/{gid}/threads/active")
async def get_active_threads(fd, request, p):
    g = _guild(fd, p["gid"])
    if isinstance(g, web.Response):
        return g
    return json_response(
        {"threads": [t.to_dict() for t in g.threads.values() if not t.archived], "members": []}
    )


__all__ = ["API_PREFIX", "api_handler", "error", "iso", "json_response", "router"]
