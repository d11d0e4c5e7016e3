"""JSON columns are written by orjson and read back exactly as the standard library would: any JSON value,
integers beyond 64 bits, NULs and non-ASCII text, tuples and integer keys included; and undo records see
values as JSON gives them back."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from bot.db import _compact_json, _json_value
from bot.undo_record import jsonable

scalars = st.none() | st.booleans() | st.integers() | st.text()
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=5) | st.integers(), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(values)
def test_a_value_reads_back_as_the_standard_library_gives_it(value) -> None:
    expected = json.loads(json.dumps(value))
    assert _json_value(_compact_json(value)) == expected
    assert jsonable(value) == expected


def test_integers_beyond_64_bits_stay_exact() -> None:
    huge = {"gold": 2**70, "debt": -(2**65), "id": 2**63 - 1}
    assert _json_value(_compact_json(huge)) == huge
    assert jsonable([2**70, (1, 2)]) == [2**70, [1, 2]]


def test_the_text_is_compact_and_keeps_what_was_typed() -> None:
    text = _compact_json({"name": "Éowyn\x00", 7: [1, 2]})
    assert " " not in text
    assert _json_value(text) == {"name": "Éowyn\x00", "7": [1, 2]}


async def test_a_stored_value_reads_back_exactly_from_the_database(sessions) -> None:
    from bot.models import ChannelConfig

    rules = {"d6": {"gold": 2**70, "name": "Éowyn\x00", "ids": [2**63 - 1]}}
    async with sessions() as session, session.begin():
        session.add(ChannelConfig(channel_id=1, guild_id=1, house_rules=rules, dice_queue=[3]))
    async with sessions() as session:
        row = await session.get(ChannelConfig, 1)
        assert row.house_rules == rules and row.dice_queue == [3]
