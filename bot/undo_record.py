"""Compact undo records: what a change's log row keeps so that ``/gm undo`` puts the encounter back exactly.

A record is the reverse patch from the encounter's snapshot after the change to its snapshot before it
(``bot.encounters.snapshot``: the encounter row, its combatant rows, its grapple rows), so it holds only what
the change touched: a few hundred bytes where the whole snapshot, with every combatant's sheet in the state,
is over 10 KB. Undoing N changes starts from the encounter as stored now and applies the records of the
last N changes, newest first. Rows written before records were compact hold the whole snapshot; those are
taken as they are.

A patch is ``{"=": value}`` (this is the value), ``{"-": 1}`` (this key did not exist), ``{"{": {key: patch}}``
(a dict with these keys patched), ``{"[": {index: patch}}`` (a list of the same length with these items
patched), ``{"#": [ids, {id: patch}]}`` (a list of records with ids, in that order, these ones patched: a
combatant in or out of the state's list) or ``{"~": [start, end, items]}`` (a list whose ``[start:end]`` was
``items``). Patches and snapshots are plain JSON; only the snapshot after a change may hold its state as the
system's ``to_dict`` built it (``reverse_patch`` reads it as JSON would).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson

SET, GONE, DICT, LIST, SPLICE, BY_ID = "=", "-", "{", "[", "~", "#"


def jsonable(value: Any) -> Any:
    """``value`` as JSON gives it back: tuples become lists, keys become text (so equal values compare
    equal). A round trip through orjson; through ``json`` for what orjson refuses (an integer beyond 64
    bits)."""
    try:
        return orjson.loads(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.loads(json.dumps(value))


def reverse_patch(before: Any, after: Any) -> dict[str, Any] | None:
    """The patch that turns ``after`` back into ``before`` (``None`` when they are equal as JSON).

    ``before`` is plain JSON (as stored); ``after`` may be a value as code builds it (a state's
    ``to_dict``), with tuples for lists or numbers for keys: it is compared as JSON would give it back,
    without a round trip through JSON for the whole value (a change's state is thousands of nodes)."""
    return None if before == after else _reverse_patch_of_unequal(before, after)


def _reverse_patch_of_unequal(before: Any, after: Any) -> dict[str, Any] | None:
    """``reverse_patch`` of two values already compared unequal: each level compares its items only (a
    comparison of the whole at every level walked the state once per level)."""
    if isinstance(before, dict) and isinstance(after, dict):
        # the same keys as ``before``'s (JSON's: text) are text; only other keys are looked at one by one
        if after.keys() != before.keys() and not all(type(key) is str for key in after):
            after = jsonable(after)
            if before == after:
                return None
        ops: dict[str, Any] = {}
        for key, value in before.items():
            if key not in after:
                ops[key] = {SET: value}
                continue
            now = after[key]
            if value == now:  # most of a changed dict is not (and a call for each costs more than this)
                continue
            op = _reverse_patch_of_unequal(value, now)
            if op is not None:
                ops[key] = op
        for key in after.keys() - before.keys():
            ops[key] = {GONE: 1}
        return {DICT: ops} if ops else None
    if isinstance(before, list) and isinstance(after, list | tuple):
        if len(before) == len(after) and _same_ids(before, after):
            return _patch_items(before, after)
        keyed_before, keyed_after = _by_id(before), _by_id(after)
        if keyed_before is not None and keyed_after is not None and keyed_before.keys() != keyed_after.keys():
            ops = {key: {SET: item} for key, item in keyed_before.items() if key not in keyed_after}
            ops |= {key: {GONE: 1} for key in keyed_after.keys() - keyed_before.keys()}
            for key in keyed_before.keys() & keyed_after.keys():
                if keyed_before[key] == keyed_after[key]:
                    continue
                op = _reverse_patch_of_unequal(keyed_before[key], keyed_after[key])
                if op is not None:
                    ops[key] = op
            return {BY_ID: [list(keyed_before), ops]}
        if len(before) == len(after):
            return _patch_items(before, after)
        shorter = min(len(before), len(after))
        head = 0
        while head < shorter and before[head] == after[head]:
            head += 1
        tail = 0
        while tail < shorter - head and before[-1 - tail] == after[-1 - tail]:
            tail += 1
        return {SPLICE: [head, len(after) - tail, before[head : len(before) - tail]]}
    return {SET: before}


def _patch_items(before: list[Any], after: list[Any] | tuple[Any, ...]) -> dict[str, Any] | None:
    """Two lists of one length, patched item by item (an item the change left alone is the same object in
    both: a state's unchanged combatants, ``rules.stored_once``)."""
    items = {
        str(i): op
        for i, (b, a) in enumerate(zip(before, after, strict=True))
        if b is not a and b != a and (op := _reverse_patch_of_unequal(b, a)) is not None
    }
    return {LIST: items} if items else None


def _same_ids(before: list[Any], after: list[Any] | tuple[Any, ...]) -> bool:
    """Whether each item of ``after`` is the one of ``before`` at its place or a record with its id (so both
    lists hold the same records, and ``_by_id`` would find the same keys): the common case, told without
    keying both lists."""
    for b, a in zip(before, after, strict=True):
        if b is a:
            continue
        if not (
            isinstance(b, dict) and isinstance(a, dict) and "id" in b and "id" in a and b["id"] == a["id"]
        ):
            return False
    return True


def _by_id(items: list[Any]) -> dict[str, Any] | None:
    """A list of records with unique ids (the state's combatants) by id; else ``None``."""
    if not all(isinstance(item, dict) and "id" in item for item in items):
        return None
    keyed = {str(item["id"]): item for item in items}
    return keyed if len(keyed) == len(items) else None


def apply_patch(value: Any, patch: Mapping[str, Any]) -> Any:
    """``value`` with ``patch`` applied (``value`` itself is not changed)."""
    if SET in patch:
        return patch[SET]
    if DICT in patch:
        out = dict(value)
        for key, op in patch[DICT].items():
            if GONE in op:
                out.pop(key, None)
            else:
                out[key] = apply_patch(out.get(key), op)
        return out
    if BY_ID in patch:
        order, ops = patch[BY_ID]
        items = _by_id(value) or {}
        for key, op in ops.items():
            if GONE in op:
                items.pop(key, None)
            else:
                items[key] = apply_patch(items.get(key), op)
        return [items[key] for key in order]
    if SPLICE in patch:
        start, end, items = patch[SPLICE]
        return [*value[:start], *items, *value[end:]]
    out_list = list(value)
    for index, op in patch[LIST].items():
        out_list[int(index)] = apply_patch(out_list[int(index)], op)
    return out_list


def _keyed(snap: Mapping[str, Any]) -> dict[str, Any]:
    """Combatants by id, so adding or removing one patches only that one."""
    return {
        "encounter": snap["encounter"],
        "combatants": {str(c["id"]): c for c in snap["combatants"]},
        "grapples": snap["grapples"],
    }


def record(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, Any]:
    """The undo record of a change from snapshot ``before`` to snapshot ``after``."""
    return {"patch": reverse_patch(_keyed(before), _keyed(after)) or {DICT: {}}}


def earlier(current: Mapping[str, Any], undo: Mapping[str, Any]) -> dict[str, Any]:
    """The snapshot before a change, from the snapshot after it (``current``) and the change's record."""
    if "patch" not in undo:  # a whole snapshot (rows logged before records were compact)
        return dict(undo)
    keyed = apply_patch(_keyed(current), undo["patch"])
    combatants = sorted(keyed["combatants"].values(), key=lambda c: c["id"] or 0)
    return {"encounter": keyed["encounter"], "combatants": combatants, "grapples": keyed["grapples"]}
