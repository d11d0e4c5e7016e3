"""House rules, the machinery every system shares (RULES.md: each **house default** is a per-channel setting).

A system declares its frozen ``HouseRules`` dataclass and a tuple of ``RuleSpec`` (one per field, same
order, same defaults); ``RuleBook`` then parses a GM's text, sets, resets, describes and (de)serialises them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from rules.encounter import RuleInfo
from rules.errors import FieldProblem, InvalidInput, ValidationError

H = TypeVar("H")

_TRUE = frozenset({"on", "true", "yes", "y", "1", "enabled"})
_FALSE = frozenset({"off", "false", "no", "n", "0", "disabled"})


@dataclass(frozen=True, slots=True)
class RuleSpec:
    """What ``/gm rules`` shows for one rule. ``kind`` is ``choice``, ``bool`` or ``int``."""

    name: str
    kind: Literal["choice", "bool", "int"]
    default: str | bool | int
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    @property
    def allowed(self) -> str:
        """The allowed values in words (``halved, full``; ``on, off``; ``0..30``)."""
        if self.kind == "choice":
            return ", ".join(self.choices)
        if self.kind == "bool":
            return "on, off"
        return f"{self.minimum}..{self.maximum}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "help": self.help,
            "allowed": self.allowed,
            "choices": list(self.choices),
        }


def rule_key(name: str) -> str:
    """``Wild-One`` and ``wild one`` both mean ``wild_one``."""
    return (name or "").strip().lower().replace("-", "_").replace(" ", "_")


def value_text(value: object) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


class RuleBook(Generic[H]):
    """The rules of one system: ``title`` names it in messages, ``house_type`` is its frozen dataclass."""

    def __init__(self, title: str, house_type: type[H], specs: tuple[RuleSpec, ...]) -> None:
        defaults = house_type()
        # The description and the dataclass must list the same rules with the same defaults.
        fields = [f.name for f in dataclasses.fields(house_type)]  # type: ignore[arg-type]
        if [s.name for s in specs] != fields or any(getattr(defaults, s.name) != s.default for s in specs):
            raise ValueError(f"{title} house-rule specs do not match {house_type.__name__}")
        self.title = title
        self.house_type = house_type
        self.specs = specs
        self._by_name = {spec.name: spec for spec in specs}

    def names(self) -> tuple[str, ...]:
        return tuple(self._by_name)

    def spec(self, name: str) -> RuleSpec:
        spec = self._by_name.get(rule_key(name))
        if spec is None:
            raise InvalidInput(
                f"`{name}` is not a {self.title} house rule. The rules are: {', '.join(self._by_name)}."
            )
        return spec

    def parse(self, name: str, text: str) -> str | bool | int:
        """The typed value of ``text`` for rule ``name``; ``InvalidInput`` names the allowed values."""
        spec = self.spec(name)
        raw = (text or "").strip().lower()
        if spec.kind == "choice":
            value = raw.replace("-", "_")
            if value in spec.choices:
                return value
        elif spec.kind == "bool":
            if raw in _TRUE:
                return True
            if raw in _FALSE:
                return False
        else:
            try:
                number = int(raw)
            except ValueError:
                number = None
            if number is not None and spec.minimum <= number <= spec.maximum:  # type: ignore[operator]
                return number
        raise InvalidInput(f"`{text}` is not allowed for `{spec.name}`. Allowed: {spec.allowed}.")

    def set(self, house: H, name: str, text: str) -> H:
        """A copy of ``house`` with one rule set from the text a GM typed."""
        value = self.parse(name, text)
        return dataclasses.replace(house, **{self.spec(name).name: value})  # type: ignore[type-var]

    def reset(self, house: H, name: str) -> H:
        spec = self.spec(name)
        return dataclasses.replace(house, **{spec.name: spec.default})  # type: ignore[type-var]

    def describe(self, house: H | None = None) -> tuple[dict[str, Any], ...]:
        """Every rule as a plain dict plus its current ``value`` (the default when ``house`` is None)."""
        house = house if house is not None else self.house_type()
        return tuple({**spec.to_dict(), "value": getattr(house, spec.name)} for spec in self.specs)

    def infos(self, house: H) -> tuple[RuleInfo, ...]:
        """What ``System.describe_house`` returns for `/gm rules`."""
        return tuple(
            RuleInfo(
                name=spec.name,
                value=value_text(getattr(house, spec.name)),
                default=value_text(spec.default),
                allowed=spec.choices
                if spec.kind == "choice"
                else ("on", "off")
                if spec.kind == "bool"
                else (),
                help=spec.help if spec.kind != "int" else f"{spec.help} (Allowed: {spec.allowed}.)",
            )
            for spec in self.specs
        )

    def to_dict(self, house: H) -> dict[str, Any]:
        return {spec.name: getattr(house, spec.name) for spec in self.specs}

    def from_dict(self, raw: Mapping[str, Any] | None) -> H:
        """Rules as stored: unknown keys are ignored (a rule retired since), missing ones take the default,
        and every known value is validated; all problems are reported together."""
        house = self.house_type()
        problems: list[FieldProblem] = []
        for key, value in (raw or {}).items():
            if rule_key(key) not in self._by_name:
                continue
            try:
                house = self.set(house, key, value_text(value))
            except InvalidInput as err:
                problems.append(FieldProblem(key, err.reason))
        if problems:
            raise ValidationError(problems, f"{self.title} house rules")
        return house


class BookHouseRules(Generic[H]):
    """The five house-rule methods of ``rules.encounter.System``, over the class's ``house_book``."""

    house_book: RuleBook[H]

    def default_house(self) -> H:
        return self.house_book.house_type()

    def house_from_dict(self, raw: Mapping[str, Any]) -> H:
        return self.house_book.from_dict(raw)

    def house_to_dict(self, house: H) -> dict[str, Any]:
        return self.house_book.to_dict(house)

    def describe_house(self, house: H) -> tuple[RuleInfo, ...]:
        return self.house_book.infos(house)

    def set_house_rule(self, house: H, name: str, text: str) -> H:
        return self.house_book.set(house, name, text)  # InvalidInput for an unknown rule or a bad value
