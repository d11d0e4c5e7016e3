"""Message payload validation (content/embed/component limits Discord enforces)."""

from __future__ import annotations

from typing import Any

from .commands import Problem

EMBED_LIMITS = {"title": 256, "description": 4096, "footer.text": 2048, "author.name": 256}


def _embed_chars(e: dict[str, Any]) -> int:
    total = len(e.get("title") or "") + len(e.get("description") or "")
    total += len((e.get("footer") or {}).get("text") or "") + len((e.get("author") or {}).get("name") or "")
    for f in e.get("fields") or []:
        total += len(str(f.get("name") or "")) + len(str(f.get("value") or ""))
    return total


def validate_message(payload: dict[str, Any], *, n_files: int = 0, edit: bool = False) -> list[Problem]:
    problems: list[Problem] = []

    def add(path, code, msg):
        problems.append(Problem(tuple(path), code, msg))

    content = payload.get("content")
    if content is not None and not isinstance(content, str):
        add(["content"], "BASE_TYPE_STRING", "content must be a string")
    elif content and len(content) > 2000:
        add(["content"], "BASE_TYPE_MAX_LENGTH", f"content is {len(content)} characters (max 2000)")
    embeds = payload.get("embeds") or []
    if len(embeds) > 10:
        add(["embeds"], "BASE_TYPE_MAX_LENGTH", f"{len(embeds)} embeds (max 10)")
    total = 0
    for i, e in enumerate(embeds):
        if not isinstance(e, dict):
            add(["embeds", i], "DICT_TYPE_CONVERT", "embed must be an object")
            continue
        for key, limit in EMBED_LIMITS.items():
            obj: Any = e
            for part in key.split("."):
                obj = (obj or {}).get(part) if isinstance(obj, dict) else None
            if isinstance(obj, str) and len(obj) > limit:
                add(
                    ["embeds", i, *key.split(".")],
                    "BASE_TYPE_MAX_LENGTH",
                    f"embed {key} is {len(obj)} chars (max {limit})",
                )
        fields = e.get("fields") or []
        if len(fields) > 25:
            add(["embeds", i, "fields"], "BASE_TYPE_MAX_LENGTH", f"{len(fields)} embed fields (max 25)")
        for j, f in enumerate(fields):
            name, value = f.get("name"), f.get("value")
            if not isinstance(name, str) or not 1 <= len(name) <= 256:
                add(
                    ["embeds", i, "fields", j, "name"],
                    "BASE_TYPE_BAD_LENGTH",
                    f"field name must be 1-256 chars: {name!r}",
                )
            if not isinstance(value, str) or not 1 <= len(value) <= 1024:
                add(
                    ["embeds", i, "fields", j, "value"],
                    "BASE_TYPE_BAD_LENGTH",
                    f"field value must be 1-1024 chars: {str(value)[:60]!r} ({len(str(value))})",
                )
        total += _embed_chars(e)
    if total > 6000:
        add(["embeds"], "MAX_EMBED_SIZE_EXCEEDED", f"embeds total {total} characters (max 6000)")
    components = payload.get("components") or []
    flags = int(payload.get("flags") or 0)
    is_v2 = bool(flags & (1 << 15))
    if not is_v2 and len(components) > 5:
        add(["components"], "BASE_TYPE_MAX_LENGTH", f"{len(components)} action rows (max 5)")
    _validate_components(components, ["components"], add, top=True, v2=is_v2)
    if not edit:
        has_body = bool(
            content or embeds or components or n_files or payload.get("poll") or payload.get("sticker_ids")
        )
        if not has_body:
            add([], "50006", "Cannot send an empty message")
    return problems


def _validate_components(components: list, path: list, add, *, top: bool, v2: bool) -> None:
    custom_ids: set[str] = set()

    def walk(items: list, path: list, in_row: bool, at_top: bool = False) -> None:
        for i, c in enumerate(items):
            p = [*path, i]
            if not isinstance(c, dict):
                add(p, "DICT_TYPE_CONVERT", "component must be an object")
                continue
            ctype = c.get("type")
            if ctype == 1:
                kids = c.get("components") or []
                if not kids:
                    add(p, "BASE_TYPE_REQUIRED", "action row is empty")
                if len(kids) > 5:
                    add(p, "BASE_TYPE_MAX_LENGTH", f"action row holds {len(kids)} components (max 5)")
                walk(kids, [*p, "components"], True)
                continue
            if at_top and not v2 and ctype != 1:
                add(p, "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "top-level components must be action rows")
            cid = c.get("custom_id")
            if cid is not None:
                if not isinstance(cid, str) or not 1 <= len(cid) <= 100:
                    add([*p, "custom_id"], "BASE_TYPE_BAD_LENGTH", f"custom_id must be 1-100 chars: {cid!r}")
                elif cid in custom_ids:
                    add([*p, "custom_id"], "COMPONENT_CUSTOM_ID_DUPLICATED", f"duplicate custom_id {cid!r}")
                custom_ids.add(cid)
            if ctype == 2:
                label = c.get("label")
                if label is not None and len(label) > 80:
                    add([*p, "label"], "BASE_TYPE_MAX_LENGTH", f"button label is {len(label)} chars (max 80)")
                if c.get("style") == 5:
                    if not c.get("url"):
                        add([*p, "url"], "BASE_TYPE_REQUIRED", "link button needs a url")
                elif c.get("style") != 6 and not cid:
                    add([*p, "custom_id"], "BASE_TYPE_REQUIRED", "button needs a custom_id")
            if ctype in (3, 5, 6, 7, 8):
                opts = c.get("options")
                if ctype == 3 and (not opts or len(opts) > 25):
                    add([*p, "options"], "BASE_TYPE_BAD_LENGTH", "string select needs 1-25 options")
                if c.get("placeholder") and len(c["placeholder"]) > 150:
                    add([*p, "placeholder"], "BASE_TYPE_MAX_LENGTH", "placeholder max 150 chars")
                for k, o in enumerate(opts or []):
                    if not 1 <= len(str(o.get("label") or "")) <= 100:
                        add(
                            [*p, "options", k, "label"],
                            "BASE_TYPE_BAD_LENGTH",
                            "select option label must be 1-100 chars",
                        )
                    if not 1 <= len(str(o.get("value") or "")) <= 100:
                        add(
                            [*p, "options", k, "value"],
                            "BASE_TYPE_BAD_LENGTH",
                            "select option value must be 1-100 chars",
                        )
            for key in ("components",):
                if key in c and ctype != 1:
                    walk(c[key], [*p, key], False)
            if isinstance(c.get("accessory"), dict):
                walk([c["accessory"]], [*p, "accessory"], False)

    walk(components, path, False, top)


def validate_modal(data: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    title = data.get("title")
    if not isinstance(title, str) or not 1 <= len(title) <= 45:
        problems.append(
            Problem(("title",), "BASE_TYPE_BAD_LENGTH", f"modal title must be 1-45 chars: {title!r}")
        )
    cid = data.get("custom_id")
    if not isinstance(cid, str) or not 1 <= len(cid) <= 100:
        problems.append(
            Problem(("custom_id",), "BASE_TYPE_BAD_LENGTH", f"modal custom_id must be 1-100 chars: {cid!r}")
        )
    comps = data.get("components") or []
    if not 1 <= len(comps) <= 5:
        problems.append(Problem(("components",), "BASE_TYPE_BAD_LENGTH", "modal needs 1-5 components"))
    return problems
