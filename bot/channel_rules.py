"""The shell side of ``/gm dice`` and ``/gm rules``: the channel's queue of physical-dice results and its house
rules, read and changed through ``Store.edit_channel`` (the channel's lock, one transaction).

No user-facing text lives here: refusals are ``BotError`` subclasses that carry what went wrong as data, and
``cogs.gm_channel`` turns them into sentences from ``cogs.text.gm``.

House rules in threads: a thread reads its parent's rules merged with its own (``bot.store.view_of``). Setting
a rule in a thread stores only that rule on the thread's row (so later changes of the parent's other rules still
reach the thread); ``inherit`` removes the thread's own value again. In a channel the whole
``house_to_dict(new)`` of the system is stored.

Stored keys are the adapters' ``house_to_dict`` keys, which are the rule names ``describe_house`` lists; for the
D6 campaign that is ``explode`` and ``wild_one``, exactly what ``bot.rolling.d6_rules`` reads for ``/roll 3D``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from bot.errors import BotError, NoSystem
from bot.models import ChannelConfig
from bot.store import ChannelEdit, Store, Where
from rules.dice import MAX_SIDES
from rules.encounter import RuleInfo, System
from rules.errors import RulesError
from rules.systems.registry import get_system

MAX_QUEUED = 100  # dice waiting in one channel, in all
MIN_DIE = 1
MAX_DIE = MAX_SIDES  # 1000: the largest die any roll may draw
CLEAR_WORDS = frozenset({"clear", "none"})
SHOW_WORDS = frozenset({"show", "list"})
DEFAULT_WORD = "default"
INHERIT_WORD = "inherit"
AUTOCOMPLETE_LIMIT = 25

_SEPARATORS = re.compile(r"[\s,;]+")


# --- /gm dice ---------------------------------------------------------------------------------------------


DiceProblem = Literal["empty", "not_number", "out_of_range", "too_many"]


class DiceValuesRefused(BotError):
    """``/gm dice`` input that cannot be queued; nothing was changed.

    ``problem``: ``empty`` (nothing given), ``not_number`` / ``out_of_range`` (``tokens`` are the offenders),
    ``too_many`` (``count`` new values would not fit next to the ``queued`` ones).
    """

    def __init__(
        self, problem: DiceProblem, *, tokens: tuple[str, ...] = (), count: int = 0, queued: int = 0
    ) -> None:
        self.problem = problem
        self.tokens = tokens
        self.count = count
        self.queued = queued
        super().__init__()


@dataclass(frozen=True, slots=True)
class DiceRequest:
    """What ``/gm dice values`` asks for: add ``values`` to the queue, clear it, or only show it."""

    kind: Literal["add", "clear", "show"]
    values: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class QueueChange:
    before: tuple[int, ...]
    after: tuple[int, ...]

    @property
    def added(self) -> int:
        return max(0, len(self.after) - len(self.before))

    @property
    def changed(self) -> bool:
        return self.before != self.after


def parse_dice_values(text: str) -> DiceRequest:
    """Read ``"3 4 2"`` / ``"3, 4, 2"`` / ``clear`` / ``none`` / ``show``. Raises ``DiceValuesRefused``."""
    tokens = [t for t in _SEPARATORS.split((text or "").strip()) if t]
    if not tokens:
        raise DiceValuesRefused("empty")
    if len(tokens) == 1 and tokens[0].lower() in CLEAR_WORDS:
        return DiceRequest("clear")
    if len(tokens) == 1 and tokens[0].lower() in SHOW_WORDS:
        return DiceRequest("show")
    not_numbers = tuple(t for t in tokens if not t.isascii() or not t.isdigit())
    if not_numbers:
        raise DiceValuesRefused("not_number", tokens=_first(not_numbers))
    out_of_range = tuple(t for t in tokens if not MIN_DIE <= int(t) <= MAX_DIE)
    if out_of_range:
        raise DiceValuesRefused("out_of_range", tokens=_first(out_of_range))
    if len(tokens) > MAX_QUEUED:
        raise DiceValuesRefused("too_many", count=len(tokens), queued=0)
    return DiceRequest("add", tuple(int(t) for t in tokens))


def _first(tokens: tuple[str, ...], limit: int = 5) -> tuple[str, ...]:
    return tuple(t[:20] for t in tokens[:limit])


async def change_dice_queue(store: Store, where: Where, request: DiceRequest) -> QueueChange:
    """Apply ``request`` to this channel's (or thread's own) queue, under the channel's lock."""
    async with store.edit_channel(where) as edit:
        before = tuple(int(v) for v in edit.config.dice_queue or [])
        if request.kind == "clear":
            after: tuple[int, ...] = ()
        elif request.kind == "show":
            after = before
        else:
            if len(before) + len(request.values) > MAX_QUEUED:
                raise DiceValuesRefused("too_many", count=len(request.values), queued=len(before))
            after = before + request.values
        if after != before:
            edit.config.dice_queue = list(after)
        return QueueChange(before, after)


# --- /gm rules --------------------------------------------------------------------------------------------


class UnknownRule(BotError):
    """``rule`` is not a house rule of ``system``; ``names`` are the ones it has."""

    def __init__(self, rule: str, system: System, names: tuple[str, ...]) -> None:
        self.rule = rule
        self.system = system
        self.names = names
        super().__init__()


class BadRuleValue(BotError):
    """``value`` is not allowed for ``info``; ``detail`` is the rules' own reason (names ranges of numbers)."""

    def __init__(self, info: RuleInfo, value: str, detail: str, *, thread: bool) -> None:
        self.info = info
        self.value = value
        self.detail = detail
        self.thread = thread
        super().__init__()


class InheritOutsideThread(BotError):
    """``inherit`` only means something in a thread."""

    def __init__(self) -> None:
        super().__init__()


@dataclass(frozen=True, slots=True)
class RulesHere:
    """The house rules that apply here: the system, every rule with its current value, and (in a thread)
    the names the thread sets itself."""

    system: System
    infos: tuple[RuleInfo, ...]
    thread: bool
    own: frozenset[str] = frozenset()

    def find(self, rule: str) -> RuleInfo | None:
        return find_rule(self.infos, rule)


@dataclass(frozen=True, slots=True)
class RuleChange:
    system: System
    before: RuleInfo
    after: RuleInfo
    thread: bool
    inherited: bool  # the thread went back to its parent's value


def rule_key(text: str) -> str:
    return (text or "").strip().lower().replace("-", "_").replace(" ", "_")


def find_rule(infos: Iterable[RuleInfo], rule: str) -> RuleInfo | None:
    """The rule named ``rule`` (case, ``-`` and spaces forgiven), or the only one it starts."""
    key = rule_key(rule)
    if not key:
        return None
    infos = tuple(infos)
    for info in infos:
        if info.name == key:
            return info
    starting = [info for info in infos if info.name.startswith(key)]
    return starting[0] if len(starting) == 1 else None


def load_house(system: System, raw: Mapping[str, Any] | None) -> Any:
    """The system's house rules from stored values; a stored value the system no longer accepts falls back to
    its default (stored data must never make a channel unusable)."""
    raw = dict(raw or {})
    try:
        return system.house_from_dict(raw)
    except RulesError:
        house = system.default_house()
        for key, value in raw.items():
            try:
                house = system.set_house_rule(house, key, _as_text(value))
            except RulesError:
                continue
        return house


def _as_text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def _system_of(name: str | None) -> System:
    if not name:
        raise NoSystem("no system")
    return get_system(name)


async def rules_here(store: Store, where: Where) -> RulesHere:
    """The effective house rules of this channel or thread. Raises ``NoSystem`` when no system is set."""
    view = await store.channel_view(where)
    system = _system_of(view.system)
    house = load_house(system, view.rules_for(system.name))
    thread = where.parent_id is not None
    own = await _own_rules(store, where, system.name) if thread else {}
    return RulesHere(system, tuple(system.describe_house(house)), thread, frozenset(rule_key(k) for k in own))


async def _own_rules(store: Store, where: Where, system: str) -> Mapping[str, Any]:
    """The rules a thread sets itself (not its parent's)."""
    async with store.sessions() as session:
        row = await session.get(ChannelConfig, where.channel_id)
        return dict((row.house_rules or {}).get(system, {})) if row is not None else {}


async def change_house_rule(store: Store, where: Where, rule: str, value: str) -> RuleChange:
    """Set ``rule`` to ``value`` (or ``default``; in a thread also ``inherit``) for this channel's system."""
    async with store.edit_channel(where) as edit:
        thread = edit.config.parent_id is not None
        system = _system_of(edit.view.system)
        house = load_house(system, edit.view.rules_for(system.name))
        infos = tuple(system.describe_house(house))
        before = find_rule(infos, rule)
        if before is None:
            raise UnknownRule(rule, system, tuple(i.name for i in infos))
        text = (value or "").strip()
        word = text.lower()
        own_all = dict(edit.config.house_rules or {})
        own = dict(own_all.get(system.name, {}))
        inherited = False
        if word == INHERIT_WORD:
            if not thread:
                raise InheritOutsideThread()
            own = {k: v for k, v in own.items() if rule_key(k) != before.name}
            inherited = True
        else:
            wanted = before.default if word == DEFAULT_WORD else text
            try:
                new = system.set_house_rule(house, before.name, wanted)
            except RulesError as err:
                raise BadRuleValue(before, text, err.reason, thread=thread) from err
            stored = system.house_to_dict(new)
            if not thread:
                own = stored
            elif before.name in stored:
                own = {k: v for k, v in own.items() if rule_key(k) != before.name}
                own[before.name] = stored[before.name]
            else:  # an adapter whose stored keys are not its rule names: keep what differs from the parent
                old = system.house_to_dict(house)
                own.update({k: v for k, v in stored.items() if old.get(k) != v})
        own_all[system.name] = own
        edit.config.house_rules = own_all
        after = _after(edit, system, before.name)
        return RuleChange(system, before, after, thread, inherited)


def _after(edit: ChannelEdit, system: System, name: str) -> RuleInfo:
    house = load_house(system, edit.view.rules_for(system.name))
    info = find_rule(system.describe_house(house), name)
    assert info is not None
    return info


# --- autocomplete -----------------------------------------------------------------------------------------


def matching(
    items: Iterable[tuple[str, str]], typed: str, limit: int = AUTOCOMPLETE_LIMIT
) -> list[tuple[str, str]]:
    """``(label, value)`` pairs whose value contains ``typed`` (case, ``-`` and spaces forgiven); those that
    start with it come first; at most ``limit``."""
    key = (typed or "").strip().lower()
    alt = rule_key(key)
    first: list[tuple[str, str]] = []
    rest: list[tuple[str, str]] = []
    for label, value in items:
        v = value.lower()
        if not key or v.startswith(key) or v.startswith(alt):
            first.append((label, value))
        elif key in v or alt in v:
            rest.append((label, value))
    return (first + rest)[:limit]


def value_options(info: RuleInfo, *, thread: bool) -> list[str]:
    """What ``value`` may be for ``info``: its allowed values (or, for a number, its current value and
    default), then ``default`` and, in a thread, ``inherit``."""
    values = list(info.allowed) if info.allowed else list(dict.fromkeys((info.value, info.default)))
    values.append(DEFAULT_WORD)
    if thread:
        values.append(INHERIT_WORD)
    return values
