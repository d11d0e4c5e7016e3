"""Sheet files for ``/character import`` and ``/character export``.

The file shape (JSON, YAML or TOML; export writes JSON)::

    {"system": "d6", "name": "Ana", ...every other field exactly as the system's ``sheet_to_dict`` gives it}

``system`` (a registered system's name) and ``name`` come first; the rest is the system's own sheet
document (a ``system`` key it writes itself is replaced by ours). ``export_bytes`` writes that shape and
``read_sheet`` reads it back into an equal sheet.

Reading is strict and never raises anything but ``SheetFileError`` (file-level: size, encoding, format,
syntax with line and column) or ``ImportRefused`` (every problem with its field path, nothing saved). Limits:
256 KiB, UTF-8 (a BOM is allowed), nesting depth 32, 20 000 values. Parsed data must be plain JSON data:
text keys; text, finite numbers, true/false, null, lists and tables (YAML/TOML dates and the like are
refused with their path, so nothing surprising reaches the rules).
"""

from __future__ import annotations

import json
import logging
import math
import re
import tomllib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from bot.characters import name_problem
from bot.errors import FileTooLarge, ImportRefused, Malformed, NotAMapping, NotUTF8, TooComplex, UnknownFormat
from bot.errors import SheetFileError as SheetFileError
from rules.errors import FieldProblem, RulesError, ValidationError
from rules.systems.registry import get_system, system_names

log = logging.getLogger(__name__)

MAX_BYTES = 256 * 1024
MAX_DEPTH = 32
MAX_VALUES = 20_000
FORMATS: dict[str, str] = {".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml"}
KIND_TITLES = {"json": "JSON", "yaml": "YAML", "toml": "TOML"}


# What a problem found here says, in the same form as the rules' own validation problems (``FieldProblem``).
def _problem_code(value: object, limit: int = 40) -> str:
    text = " ".join(str(value).replace("`", "'").split())
    return f"`{text[: limit - 1] + '…' if len(text) > limit else text or ' '}`"


NAME_PROBLEMS = {
    "not_text": "needs to be text",
    "empty": "is empty: a character needs a name (1 to 64 characters)",
    "control": "cannot contain line breaks, tabs or other control characters",
    "too_long": "is too long: a character name can have at most 64 characters",
}
MISSING_SYSTEM = "is missing: say which rule system the sheet is for ({systems})"
UNKNOWN_SYSTEM = "{value} is not a rule system here; use {systems}"
MISSING_NAME = "is missing: the character's name"
BAD_VALUE = "{kind} is not allowed in a sheet; write it as text in quotes, or as a number"
KEY_NOT_TEXT = "the key {key} is not text"
DUPLICATE_KEY = "the key {key} appears more than once"
UNREADABLE = "the sheet could not be read by the rules (the bot logged why); check its fields"


@dataclass(frozen=True)
class ImportedSheet:
    system: str
    name: str
    sheet: Any  # the system's sheet object
    document: dict[str, Any]


# --- reading ------------------------------------------------------------------------------------------


def file_format(filename: str) -> str:
    """``json``, ``yaml`` or ``toml`` from the file name's extension; ``UnknownFormat`` otherwise."""
    lowered = (filename or "").strip().lower()
    for suffix, kind in FORMATS.items():
        if lowered.endswith(suffix):
            return kind
    raise UnknownFormat(filename or "?")


def check_size(size: int) -> None:
    if size > MAX_BYTES:
        raise FileTooLarge(size, MAX_BYTES // 1024)


def decode(data: bytes) -> str:
    """UTF-8 (strict; a leading BOM is dropped), or ``NotUTF8`` with the line and byte of the first bad byte."""
    check_size(len(data))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        before = data[: err.start]
        line = before.count(b"\n") + 1
        column = err.start - (before.rfind(b"\n") + 1) + 1
        raise NotUTF8(line, column) from None


def _malformed(kind: str, message: str, line: int | None = None, column: int | None = None) -> Malformed:
    return Malformed(KIND_TITLES[kind], message, line, column)


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


_TOML_WHERE = re.compile(r"\(at line (\d+), column (\d+)\)")


def _line_column_of(textual: str, pos: int) -> tuple[int, int]:
    before = textual[:pos]
    return before.count("\n") + 1, pos - (before.rfind("\n") + 1) + 1


def _parse_json(source: str) -> Any:
    try:
        return json.loads(source, object_pairs_hook=_json_pairs, parse_constant=_no_constants)
    except json.JSONDecodeError as err:
        raise _malformed("json", err.msg, err.lineno, err.colno) from None
    except _DuplicateKey as err:
        raise _malformed("json", DUPLICATE_KEY.format(key=_problem_code(err.key))) from None
    except RecursionError:
        raise TooComplex() from None
    except ValueError as err:  # NaN/Infinity, integers too long to convert
        raise _malformed("json", str(err)) from None


def _parse_toml(source: str) -> Any:
    try:
        return tomllib.loads(source)
    except tomllib.TOMLDecodeError as err:
        message = str(err)
        found = _TOML_WHERE.search(message)
        line = column = None
        if found:
            line, column = int(found[1]), int(found[2])
            message = message[: found.start()].strip()
        elif "end of document" in message:
            line, column = _line_column_of(source, len(source))
        raise _malformed("toml", message, line, column) from None
    except RecursionError:
        raise TooComplex() from None
    except ValueError as err:
        raise _malformed("toml", str(err)) from None


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present (fast)


class _StrictSafeLoader(_BaseLoader):
    """The safe loader (no Python objects) refusing duplicate keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                key = self.construct_object(key_node, deep=deep)
                try:
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            "while constructing a mapping",
                            node.start_mark,
                            DUPLICATE_KEY.format(key=_problem_code(key)),
                            key_node.start_mark,
                        )
                    seen.add(key)
                except TypeError:
                    pass
        return super().construct_mapping(node, deep=deep)


_YAML_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_YAML_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def _yaml_bounded(source: str) -> None:
    """Walk the event stream (iterative, no recursion) and refuse deep or huge documents before composing."""
    depth = 0
    for count, event in enumerate(yaml.parse(source, Loader=_BaseLoader)):
        if isinstance(event, _YAML_OPEN):
            depth += 1
            if depth > MAX_DEPTH:
                raise TooComplex()
        elif isinstance(event, _YAML_CLOSE):
            depth -= 1
        if count > 2 * MAX_VALUES + 16:
            raise TooComplex()


def _parse_yaml(source: str) -> Any:
    try:
        _yaml_bounded(source)
        return yaml.load(source, Loader=_StrictSafeLoader)  # a safe loader: plain data only
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        message = err.problem or err.context or "not valid YAML"
        line = mark.line + 1 if mark is not None else None
        column = mark.column + 1 if mark is not None else None
        raise _malformed("yaml", message, line, column) from None
    except yaml.reader.ReaderError as err:
        line, column = _line_column_of(source, max(0, err.position))
        raise _malformed("yaml", err.reason, line, column) from None
    except (RecursionError, Malformed):
        raise TooComplex() from None
    except Exception as err:  # PyYAML's constructors may raise ValueError/TypeError/OverflowError on odd tags
        raise _malformed("yaml", str(err) or type(err).__name__) from None


_PARSERS = {"json": _parse_json, "toml": _parse_toml, "yaml": _parse_yaml}


def _kind_name(value: Any) -> str:
    import datetime as _dt

    if isinstance(value, _dt.datetime | _dt.date | _dt.time):
        return "a date or time"
    if isinstance(value, bytes):
        return "binary data"
    if isinstance(value, float):
        return "a number that is not finite"
    if isinstance(value, set | frozenset):
        return "a set"
    return f"a value of type {type(value).__name__}"


class _Plain:
    """Turns parsed data into plain JSON data, collecting problems with their paths; bounded work."""

    def __init__(self) -> None:
        self.problems: list[FieldProblem] = []
        self.values = 0

    def convert(self, value: Any, path: str, depth: int) -> Any:
        self.values += 1
        if self.values > MAX_VALUES or depth > MAX_DEPTH:
            raise TooComplex()
        if value is None or isinstance(value, bool | str):
            return value
        if isinstance(value, int):
            return value
        if isinstance(value, float) and math.isfinite(value):
            return value
        if isinstance(value, Mapping):
            out: dict[str, Any] = {}
            for key, item in value.items():
                if isinstance(key, bool) or not isinstance(key, str | int):
                    self.problems.append(
                        FieldProblem(path or "(top level)", KEY_NOT_TEXT.format(key=_problem_code(key)))
                    )
                    continue
                key = str(key)
                out[key] = self.convert(item, f"{path}.{key}" if path else key, depth + 1)
            return out
        if isinstance(value, list | tuple):
            return [self.convert(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(value)]
        self.problems.append(FieldProblem(path or "(top level)", BAD_VALUE.format(kind=_kind_name(value))))
        return None


def parse_document(filename: str, data: bytes) -> dict[str, Any]:
    """The file's top-level table as plain JSON data. Raises only ``SheetFileError`` or ``ImportRefused``."""
    kind = file_format(filename)
    source = decode(data)
    parsed = _PARSERS[kind](source)
    if not isinstance(parsed, Mapping):
        raise NotAMapping(KIND_TITLES[kind])
    plain = _Plain()
    document = plain.convert(parsed, "", 0)
    if plain.problems:
        raise ImportRefused(filename, plain.problems)
    return document


def sheet_from_document(filename: str, document: Mapping[str, Any]) -> ImportedSheet:
    """Validate a parsed document as a sheet of the system it names. Every problem → ``ImportRefused``."""
    problems: list[FieldProblem] = []
    raw_system = document.get("system")
    system: str | None = None
    if "system" not in document:
        problems.append(FieldProblem("system", MISSING_SYSTEM.format(systems=_systems())))
    elif isinstance(raw_system, str) and raw_system.strip().lower() in system_names():
        system = raw_system.strip().lower()
    else:
        problems.append(
            FieldProblem("system", UNKNOWN_SYSTEM.format(value=_problem_code(raw_system), systems=_systems()))
        )
    body = {key: value for key, value in document.items() if key != "system"}
    name_ok = False
    if "name" not in document:
        problems.append(FieldProblem("name", MISSING_NAME))
    else:
        problem = name_problem(document["name"])
        if problem is not None:
            problems.append(FieldProblem("name", NAME_PROBLEMS[problem]))
        else:
            name_ok = True
            body["name"] = document["name"].strip()
    if system is None:
        raise ImportRefused(filename, problems)
    rules = get_system(system)
    sheet = None
    try:
        sheet = rules.sheet_from_dict(body)
    except ValidationError as err:
        problems.extend(p for p in err.problems if name_ok or p.path != "name")
    except RulesError as err:
        problems.append(FieldProblem("", err.reason))
    except Exception:
        log.exception("%s.sheet_from_dict failed on an imported file", system)
        problems.append(FieldProblem("", UNREADABLE))
    if problems or sheet is None:
        raise ImportRefused(filename, problems or [FieldProblem("", UNREADABLE)])
    return ImportedSheet(system, rules.sheet_name(sheet), sheet, dict(document))


def _systems() -> str:
    return ", ".join(system_names()[:-1]) + f" or {system_names()[-1]}"


def read_sheet(filename: str, data: bytes) -> ImportedSheet:
    """Bytes of an attachment → a validated sheet. Raises ``SheetFileError`` or ``ImportRefused`` only."""
    return sheet_from_document(filename, parse_document(filename, data))


# --- writing ------------------------------------------------------------------------------------------


def export_document(system: str, sheet_dict: Mapping[str, Any]) -> dict[str, Any]:
    """``{"system": …, "name": …, **the rest of sheet_to_dict}`` (the import shape)."""
    document: dict[str, Any] = {"system": system, "name": sheet_dict.get("name")}
    for key, value in sheet_dict.items():
        if key not in ("system", "name"):
            document[key] = value
    return document


def export_bytes(system: str, sheet: Any) -> bytes:
    rules = get_system(system)
    document = export_document(rules.name, rules.sheet_to_dict(sheet))
    return (json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def export_filename(name: str) -> str:
    """A safe file name for a sheet: letters, digits, ``-`` and ``_`` of the name, then ``.json``."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", ascii_name).strip("-_")[:48] or "character"
    return f"{slug}.json"
