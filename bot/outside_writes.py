"""What tells a kept read that it is still the database's: a count of the writes to the rows it joins (an
encounter, a channel's settings, a party instance) that a change's own save does not account for.

A change that saves an encounter's row and nothing else the read joins hands its read on to the next version
itself (``bot.encounter_rows.ReadCache.advance``). Every other write to those tables (a channel's settings, a
party's heal pool, the live tracker's message id, a reminder's claim, an undo, a new encounter) counts here,
once when its statement runs and once more when its change ends (committed or rolled back): a read confirmed
between the statement and the commit, which cannot have seen the write, is not trusted after it.

Only a process that is the database's only writer (``bot.sole_writer``) may trust its kept reads on this
count alone; any other asks the database for the rows' versions first (the probe).
"""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import event

JOINED = frozenset({"encounter", "channel_config", "party_instance"})
_WRITTEN_TABLE = re.compile(
    r"\s*(?:UPDATE(?:\s+OR\s+\w+)?|INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|DELETE\s+FROM)\s+[\"`\[]?(\w+)",
    re.IGNORECASE,
)
_ON_ENGINE = "_fray_outside_writes"


def written_table(statement: str) -> str | None:
    """The table an ``UPDATE``, ``INSERT``, ``REPLACE`` or ``DELETE`` writes (lower case); ``None`` for
    anything else."""
    found = _WRITTEN_TABLE.match(statement)
    return found.group(1).lower() if found is not None else None


class OutsideWrites:
    """The count for one engine (``of``). ``turn_of(connection)`` finds the change a statement belongs to
    (the store's write turn, or ``None``): a turn whose ``saving_encounter`` is set is a change's own save
    of its encounter row, and a turn that wrote a joined row is counted again when its change ends
    (``ended``)."""

    def __init__(self) -> None:
        self.count = 0

    @staticmethod
    def of(engine: Any, turn_of: Any) -> OutsideWrites:
        """The engine's count, listening to its statements from now on (one per engine)."""
        sync = engine.sync_engine
        found: OutsideWrites | None = getattr(sync, _ON_ENGINE, None)
        if found is None:
            found = OutsideWrites()
            setattr(sync, _ON_ENGINE, found)
            event.listen(sync, "before_cursor_execute", found._listener(turn_of))
        return found

    def _listener(self, turn_of: Any) -> Any:
        def seen(conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
            table = written_table(statement)
            if table not in JOINED:
                return
            turn = turn_of(conn)
            if turn is not None:
                if table == "encounter" and turn.saving_encounter:
                    return
                turn.wrote_joined = True
            self.count += 1

        return seen

    def ended(self, turn: Any) -> None:
        """A change ended (after its commit or rollback): counted again if it wrote a joined row."""
        if turn.wrote_joined:
            turn.wrote_joined = False
            self.count += 1
