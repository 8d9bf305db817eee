"""Declared settings and parameters: a default plus the values it may take.

One :class:`Setting` describes an experiment setting or an estimator parameter;
the core checks every value against it before anything runs, and ``paperzoo
info`` prints it. Modelled on scikit-learn's ``_parameter_constraints``::

    >>> Setting(0.5, low=0, high=1, low_open=True).check("alpha", 0.25)
    0.25
    >>> Setting(10, low=1).describe()
    'integer ≥ 1'
    >>> Setting([0.5], each=Setting(0.5, low=0, high=1), min_len=1).describe()
    'list of ≥ 1 (number in [0, 1])'

A bound may name another setting (``Setting(20, low=1, high="n_artists")``): it
is then read from the same set of values.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paperzoo.errors import ConfigError

__all__ = ["REQUIRED", "Setting", "as_setting", "check_values"]


class _Required:
    """Marker: a parameter whose default is taken from elsewhere (an ``__init__`` signature)."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""Default of a :class:`Setting` that describes an estimator parameter (its default is in ``__init__``)."""

_TYPES: dict[str, tuple[type, ...]] = {
    "bool": (bool,),
    "int": (numbers.Integral,),
    "float": (numbers.Real,),
    "str": (str,),
    "list": (list, tuple),
    "dict": (Mapping,),
}
_WORDS = {"bool": "true or false", "int": "integer", "float": "number", "str": "string",
          "list": "list", "dict": "mapping"}  # fmt: skip
Bound = float | str | None


def _type_of(value: Any) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, numbers.Integral):
        return "int"
    if isinstance(value, numbers.Real):
        return "float"
    for name in ("str", "list", "dict"):
        if isinstance(value, _TYPES[name]):
            return name
    return None


@dataclass(frozen=True)
class Setting:
    """A default and the values allowed.

    Attributes:
        default: The value at ``default`` scale (or :data:`REQUIRED` for an
            estimator parameter, whose default is its ``__init__``'s).
        low: Smallest allowed number (or the name of another setting).
        high: Largest allowed number (or the name of another setting).
        low_open: ``low`` itself is excluded.
        high_open: ``high`` itself is excluded.
        choices: The only values allowed.
        each: The constraint every element of a list obeys.
        min_len: Fewest elements of a list.
        finite: Refuse NaN and ±inf (numbers only).
        allow_none: ``None`` is allowed ("switched off").
        type: ``"int"``, ``"float"``, ``"bool"``, ``"str"``, ``"list"`` or
            ``"dict"``; inferred from ``default`` when not given. ``None``
            (default ``None`` and no type) accepts any type.
        help: One line on what it does.
    """

    default: Any = REQUIRED
    low: Bound = None
    high: Bound = None
    low_open: bool = False
    high_open: bool = False
    choices: Sequence[Any] | None = None
    each: Setting | None = None
    min_len: int | None = None
    finite: bool = True
    allow_none: bool = False
    type: str | None = None
    help: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        if self.type is not None and self.type not in _TYPES:
            raise ConfigError(f"Setting type {self.type!r} is not one of {', '.join(_TYPES)}")
        if self.choices is not None:
            object.__setattr__(self, "choices", tuple(self.choices))

    @classmethod
    def choice_list(
        cls, choices: Sequence[Any], default: Sequence[Any] | None = None, *, help: str = ""
    ) -> Setting:
        """A non-empty list of values from ``choices`` (default: all of them), e.g. the methods to compare.

        >>> Setting.choice_list(("ours", "baseline")).describe()
        "list of ≥ 1 (one of 'ours', 'baseline')"
        """
        choices = tuple(choices)
        return cls(list(choices if default is None else default), each=cls(choices[0], choices=choices),
                   min_len=1, help=help)  # fmt: skip

    @property
    def kind(self) -> str | None:
        """The declared or inferred type name (``None``: any)."""
        if self.type is not None:
            return self.type
        if self.default is REQUIRED or self.default is None:
            return None
        return _type_of(self.default)

    # -------------------------------------------------------------- describe

    def describe(self) -> str:
        """The allowed values in words, e.g. ``"integer ≥ 1"`` or ``"number in (0, 1]"``."""
        kind = self.kind
        if self.choices is not None:
            text = "one of " + ", ".join(repr(c) for c in self.choices)
        elif kind == "list":
            size = f"≥ {self.min_len} " if self.min_len else ""
            text = f"list of {size}({self.each.describe()})" if self.each else f"list of {size}values".strip()
        else:
            text = _WORDS.get(kind or "", "any value") + self._bounds()
            if kind == "float" and not self.finite:
                text += " (inf allowed)"
        return text + (" or none" if self.allow_none else "")

    def _bounds(self) -> str:
        return bounds_text(self.low, self.high, self.low_open, self.high_open)

    # ----------------------------------------------------------------- check

    def check(
        self, name: str, value: Any, *, owner: str = "", context: Mapping[str, Any] | None = None
    ) -> Any:
        """``value`` checked and normalised (numpy numbers → ``int``/``float``, tuples → lists).

        Args:
            name: The setting's name, for the message.
            value: The value to check.
            owner: Who it belongs to ("revdiv.synthetic", "GRACE"), for the message.
            context: The other values, for bounds that name a setting.

        Raises:
            ConfigError: one line naming the setting, the value and what is allowed.
        """
        if value is None:
            if self.allow_none or (self.kind is None and self.default is None):
                return None
            self._refuse(name, value, owner)
        kind = self.kind
        if kind == "bool" and _is_numpy_bool(value):
            value = bool(value)
        if kind is not None and not self._has_type(kind, value):
            self._refuse(name, value, owner)
        if self.choices is not None:
            if not any(_same(value, c) for c in self.choices):
                self._refuse(name, value, owner)
            return value
        if kind in ("int", "float"):
            return self._number(name, value, owner, context or {})
        if kind == "list":
            items = list(value)
            if self.min_len is not None and len(items) < self.min_len:
                self._refuse(name, value, owner)
            if self.each is not None:
                items = [
                    self.each.check(f"{name}[{i}]", v, owner=owner, context=context)
                    for i, v in enumerate(items)
                ]
            return items
        if kind == "dict":
            return dict(value)
        if kind is None and isinstance(value, float) and not math.isfinite(value) and self.finite:
            self._refuse(name, value, owner)
        return value

    @staticmethod
    def _has_type(kind: str, value: Any) -> bool:
        if kind != "bool" and isinstance(value, bool):
            return False
        if kind == "int" and isinstance(value, float):
            return False
        return isinstance(value, _TYPES[kind])

    def _number(self, name: str, value: Any, owner: str, context: Mapping[str, Any]) -> Any:
        number = int(value) if self.kind == "int" else float(value)
        if isinstance(number, float) and math.isnan(number):
            self._refuse(name, value, owner)
        if isinstance(number, float) and math.isinf(number) and self.finite:
            self._refuse(name, value, owner)
        low, high = _bound(self.low, context), _bound(self.high, context)
        if low is not None and (number <= low if self.low_open else number < low):
            self._refuse(name, value, owner, context)
        if high is not None and (number >= high if self.high_open else number > high):
            self._refuse(name, value, owner, context)
        return number

    def _refuse(self, name: str, value: Any, owner: str, context: Mapping[str, Any] | None = None) -> None:
        allowed = self.describe()
        for bound in (self.low, self.high):
            if isinstance(bound, str) and context and bound in context:
                allowed += f" ({bound} = {context[bound]!r})"
        prefix = f"{owner}: " if owner else ""
        raise ConfigError(f"{prefix}{name} must be {_article(allowed)}{allowed}, got {value!r}")


def bounds_text(low: Any, high: Any, low_open: bool, high_open: bool) -> str:
    """``" in (0, 1]"``, ``" ≥ 1"``, ``" < 5"`` or "" for the interval given by ``low``/``high``."""
    if low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
    if low is not None:
        return f" {'>' if low_open else '≥'} {low}"
    if high is not None:
        return f" {'<' if high_open else '≤'} {high}"
    return ""


def _is_numpy_bool(value: Any) -> bool:
    """A ``numpy.bool_`` (accepted as a bool, as numpy integers are as ints), without importing numpy."""
    return type(value).__module__ == "numpy" and type(value).__name__ in ("bool_", "bool")


def _article(text: str) -> str:
    if text.startswith(("one of", "true or false", "any value")):
        return ""
    return "an " if text[0] in "aeiou" else "a "


def _same(a: Any, b: Any) -> bool:
    """Equal, and not merely because ``True == 1``."""
    return isinstance(a, bool) == isinstance(b, bool) and bool(a == b)


def _bound(bound: Bound, context: Mapping[str, Any]) -> float | None:
    if isinstance(bound, str):
        value = context.get(bound)
        return None if value is None else float(value)
    return bound


def as_setting(value: Any) -> Setting:
    """``value`` if it is a :class:`Setting`, else a setting with that default (type from it)."""
    if isinstance(value, Setting):
        return value
    if isinstance(value, (list, tuple)) and value:
        return Setting(list(value), each=Setting(value[0], type=_type_of(value[0])))
    return Setting(value)


def check_values(
    values: Mapping[str, Any], constraints: Mapping[str, Setting], *, owner: str = ""
) -> dict[str, Any]:
    """Every value checked against its setting (bounds may name other settings).

    Raises:
        ConfigError: the first value that is not allowed, in one line.
    """
    return {
        key: constraints[key].check(key, value, owner=owner, context=values) if key in constraints else value
        for key, value in values.items()
    }
