"""Sheet files: JSON/YAML/TOML parsing, limits, located parse errors, the import shape, export round trips."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import sheet_files as sf
from cogs.text.errors import describe
from rules.errors import RulesError
from rules.systems.registry import get_system, system_names

SYSTEMS = system_names()


# --- formats ------------------------------------------------------------------------------------------


def test_formats_by_extension() -> None:
    assert sf.file_format("Ana.json") == "json"
    assert sf.file_format("ana.YAML") == "yaml"
    assert sf.file_format("ana.yml") == "yaml"
    assert sf.file_format("ana.toml") == "toml"
    for name in ("ana.txt", "ana", "ana.json.exe", "", "ana.xml"):
        with pytest.raises(sf.UnknownFormat) as err:
            sf.file_format(name)
        assert ".json" in describe(err.value)


def test_the_same_document_in_three_formats() -> None:
    expected = {"system": "d6", "name": "Ana", "hp_max": 12, "skills": [{"name": "dodge", "code": "1D"}]}
    json_bytes = json.dumps(expected).encode()
    yaml_bytes = b"system: d6\nname: Ana\nhp_max: 12\nskills:\n  - name: dodge\n    code: 1D\n"
    toml_bytes = b'system = "d6"\nname = "Ana"\nhp_max = 12\n[[skills]]\nname = "dodge"\ncode = "1D"\n'
    assert sf.parse_document("a.json", json_bytes) == expected
    assert sf.parse_document("a.yaml", yaml_bytes) == expected
    assert sf.parse_document("a.toml", toml_bytes) == expected


def test_a_utf8_bom_is_accepted() -> None:
    assert sf.parse_document("a.json", b'\xef\xbb\xbf{"name": "\xc3\x81na"}') == {"name": "Ána"}


# --- limits -------------------------------------------------------------------------------------------


def test_too_large() -> None:
    big = b'{"name": "' + b"x" * (sf.MAX_BYTES) + b'"}'
    with pytest.raises(sf.FileTooLarge) as err:
        sf.parse_document("a.json", big)
    assert "256 KB" in describe(err.value)
    sf.check_size(sf.MAX_BYTES)  # exactly the limit is fine
    with pytest.raises(sf.FileTooLarge):
        sf.check_size(sf.MAX_BYTES + 1)


def test_not_utf8_names_the_place() -> None:
    with pytest.raises(sf.NotUTF8) as err:
        sf.parse_document("a.json", b'{"a": 1,\n "name": "\xe9t\xe9"}')
    assert "line 2" in describe(err.value) and "UTF-8" in describe(err.value)
    with pytest.raises(sf.NotUTF8):
        sf.parse_document("a.yaml", "name: Ana".encode("utf-16"))


@pytest.mark.parametrize(
    ("filename", "data", "line"),
    [
        ("a.json", b'{\n  "name": "Ana",\n  "hp": \n}', 4),
        ("a.json", b'{"name": "Ana",\n "name": "Bo"}', None),  # duplicate key
        ("a.yaml", b"name: Ana\nskills: [1, 2\nhp: 3\n", 3),
        ("a.yaml", b"name: Ana\nname: Bo\n", 2),  # duplicate key
        ("a.toml", b'name = "Ana"\nhp = \n', 2),
        ("a.toml", b'name = "Ana"\nname = "Bo"\n', 2),
    ],
)
def test_parse_errors_carry_a_location(filename: str, data: bytes, line: int | None) -> None:
    with pytest.raises(sf.Malformed) as err:
        sf.parse_document(filename, data)
    if line is not None:
        assert err.value.line == line, describe(err.value)
        assert f"line {line}" in describe(err.value)
    assert "could not be read" in describe(err.value)


def test_json_constants_and_deep_nesting_are_refused() -> None:
    with pytest.raises(sf.Malformed):
        sf.parse_document("a.json", b'{"hp": NaN}')
    with pytest.raises(sf.Malformed):
        sf.parse_document("a.json", b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(sf.Malformed):
        sf.parse_document("a.yaml", b"a: " + b"[" * 5000 + b"]" * 5000)
    with pytest.raises(sf.Malformed):
        sf.parse_document("a.json", ('{"a": ' + "[" * 40 + "1" + "]" * 40 + "}").encode())


def test_yaml_alias_bombs_and_recursion_are_bounded() -> None:
    bomb = b"a: &a [x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 12):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        bomb += f"{cur}: &{cur} [{', '.join('*' + prev for _ in range(9))}]\n".encode()
    with pytest.raises(sf.Malformed) as err:
        sf.parse_document("a.yaml", bomb)
    assert "too many" in describe(err.value)
    with pytest.raises(sf.Malformed):
        sf.parse_document("a.yaml", b"a: &a [*a]\n")


def test_top_level_must_be_a_table() -> None:
    for filename, data in (("a.json", b"[1, 2]"), ("a.yaml", b"- 1\n- 2\n"), ("a.yaml", b"just text")):
        with pytest.raises(sf.Malformed) as err:
            sf.parse_document(filename, data)
        assert "top level" in describe(err.value)


def test_dates_and_odd_keys_are_problems_with_paths() -> None:
    with pytest.raises(sf.ImportRefused) as err:
        sf.parse_document("a.yaml", b"name: Ana\nborn: 2020-01-02\nskills:\n  - when: 2020-01-02 10:00:00\n")
    paths = [p.path for p in err.value.problems]
    assert paths == ["born", "skills[0].when"]
    with pytest.raises(sf.ImportRefused) as err:
        sf.parse_document("a.toml", b'name = "Ana"\nborn = 1979-05-27\n')
    assert [p.path for p in err.value.problems] == ["born"]
    with pytest.raises(sf.ImportRefused) as err:
        sf.parse_document("a.yaml", b"name: Ana\nstats:\n  ? !!binary aGk=\n  : 3\n")
    assert [p.path for p in err.value.problems] == ["stats"]
    with pytest.raises(sf.Malformed) as err:  # a list as a key: YAML itself refuses it, with the place
        sf.parse_document("a.yaml", b"name: Ana\nstats:\n  ? [1, 2]\n  : 3\n")
    assert err.value.line == 3
    assert sf.parse_document("a.yaml", b"skills:\n  1: 2\n") == {"skills": {"1": 2}}


# --- hypothesis: any bytes either parse or raise our own errors ----------------------------------------

documents = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(derandomize=True, max_examples=200, deadline=None)
@given(
    filename=st.sampled_from(["a.json", "a.yaml", "a.yml", "a.toml", "a.txt", "A.JSON"]),
    data=st.one_of(
        st.binary(max_size=400),
        st.text(max_size=300).map(lambda t: t.encode("utf-8")),
        st.text(alphabet=st.sampled_from(list("{}[]:,\"'=\n #-&*!|>%@`?.0123abcxyz\\")), max_size=200).map(
            lambda t: t.encode("utf-8")
        ),
        documents.map(lambda d: json.dumps({"system": "d6", "name": "Ana", "x": d}).encode("utf-8")),
    ),
)
def test_any_bytes_parse_or_raise_our_error(filename: str, data: bytes) -> None:
    try:
        sf.read_sheet(filename, data)
    except (sf.SheetFileError, sf.ImportRefused) as err:
        assert isinstance(err, RulesError) and err.reason


@settings(derandomize=True, max_examples=200, deadline=None)
@given(system=st.sampled_from(list(system_names())), extra=documents)
def test_any_document_is_a_sheet_or_a_list_of_located_problems(system: str, extra: object) -> None:
    rules = get_system(system)
    document = sf.export_document(system, rules.sheet_to_dict(rules.new_sheet("Ana")))
    for key in list(document)[2:4]:
        document[key] = extra
    try:
        sf.read_sheet("a.json", json.dumps(document).encode())
    except sf.ImportRefused as err:
        assert err.problems and all(str(p) for p in err.problems)


# --- the sheet shape ----------------------------------------------------------------------------------


def test_system_and_name_are_required_and_checked() -> None:
    with pytest.raises(sf.ImportRefused) as err:
        sf.read_sheet("a.json", b'{"hp": 3}')
    assert [p.path for p in err.value.problems] == ["system", "name"]
    with pytest.raises(sf.ImportRefused) as err:
        sf.read_sheet("a.json", b'{"system": "gurps", "name": "Ana"}')
    assert [p.path for p in err.value.problems] == ["system"]
    assert "nyra, kaernest or d6" in err.value.problems[0].problem
    with pytest.raises(sf.ImportRefused) as err:
        sf.read_sheet("a.json", json.dumps({"system": "d6", "name": "x" * 65}).encode())
    assert [p.path for p in err.value.problems] == ["name"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_every_problem_is_listed_with_its_path(system: str) -> None:
    rules = get_system(system)
    document = sf.export_document(system, rules.sheet_to_dict(rules.new_sheet("Ana")))
    document["no_such_field"] = 1
    document["name"] = "Ana\u0007"
    with pytest.raises(sf.ImportRefused) as err:
        sf.read_sheet("a.json", json.dumps(document).encode())
    paths = {p.path for p in err.value.problems}
    assert {"no_such_field", "name"} <= paths


@pytest.mark.parametrize("system", SYSTEMS)
def test_export_then_import_gives_the_same_sheet(system: str) -> None:
    rules = get_system(system)
    sheet = rules.new_sheet("Zoe\u0308 Åström")  # a combining mark stays as written
    sheet = rules.set_weapon(sheet, rules.weapon_names()[0])
    sheet = rules.set_armour(sheet, rules.armour_names()[0])
    data = sf.export_bytes(system, sheet)
    document = json.loads(data)
    assert list(document)[:2] == ["system", "name"] and document["system"] == system
    imported = sf.read_sheet(sf.export_filename(rules.sheet_name(sheet)), data)
    assert imported.system == system and imported.name == "Zoe\u0308 Åström"
    assert rules.sheet_to_dict(imported.sheet) == rules.sheet_to_dict(sheet)
    assert imported.sheet == sheet


@pytest.mark.parametrize("system", SYSTEMS)
def test_yaml_of_the_exported_document_imports_too(system: str) -> None:
    import yaml

    rules = get_system(system)
    sheet = rules.set_weapon(rules.new_sheet("Ana"), rules.weapon_names()[0])
    document = json.loads(sf.export_bytes(system, sheet))
    imported = sf.read_sheet("ana.yaml", yaml.safe_dump(document, allow_unicode=True).encode())
    assert rules.sheet_to_dict(imported.sheet) == rules.sheet_to_dict(sheet)


def test_export_filename() -> None:
    assert sf.export_filename("Ana") == "Ana.json"
    assert sf.export_filename("Åsa the Bold!") == "Asa-the-Bold.json"
    assert sf.export_filename("../../etc") == "etc.json"
    assert sf.export_filename("龍") == "character.json"
