"""Parsing ``--set key=value`` and ``--seeds`` into the runs of a sweep.

``--set a=1,2,3 --set b=x`` and ``--seeds 0-2`` expand to the cartesian product:
9 runs here. Values are coerced to the type of the setting's default; a list- or
dict-valued setting takes one JSON value (``--set sizes=[10,100]``) or a
comma-separated list (``--set sizes=10,100``) and is not swept. Write ``\\,`` for a
literal comma in a string.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from paperzoo.errors import ConfigError
from paperzoo.registry import suggest
from paperzoo.specs import MAX_SEED, ExperimentSpec

if TYPE_CHECKING:
    from paperzoo.runs import RunRequest

__all__ = ["MAX_SEED", "coerce", "expand_grid", "parse_assignments", "parse_seeds", "plan"]

MAX_RUNS = 10_000
"""Largest sweep ``paperzoo run`` expands."""

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def parse_seeds(text: str) -> list[int]:
    """``"0-4"`` → ``[0, 1, 2, 3, 4]``; ``"0,3,10-11"`` → ``[0, 3, 10, 11]``.

    Raises:
        ConfigError: not a list of non-negative integers and ranges.
    """
    seeds: list[int] = []
    total = 0
    for part in text.split(","):
        part = part.strip()
        match = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if not match:
            raise ConfigError(f"invalid seeds {text!r}", hint="write seeds like '0-4' or '0,3,7' or '0-2,10'")
        lo = int(match.group(1))
        hi = int(match.group(2)) if match.group(2) is not None else lo
        if hi < lo:
            raise ConfigError(f"invalid seed range {part!r}", hint="write low-high, e.g. '0-4'")
        if hi > MAX_SEED:
            raise ConfigError(f"seed {hi} is too large", hint=f"seeds go up to {MAX_SEED}")
        total += hi - lo + 1
        if total > MAX_RUNS:
            raise ConfigError(f"seeds {text!r} make more than {MAX_RUNS} runs", hint="sweep fewer seeds")
        seeds.extend(range(lo, hi + 1))
    if len(set(seeds)) != len(seeds):
        raise ConfigError(f"seeds {text!r} repeat a seed", hint="list each seed once")
    return seeds


def coerce(key: str, raw: str, default: Any) -> Any:
    """Convert the string ``raw`` to the type of ``default`` (``none``/``null``: None for numbers).

    Raises:
        ConfigError: ``raw`` is not a valid value of that type (names the key).
    """
    text = raw.strip()
    try:
        if isinstance(default, bool):
            low = text.lower()
            if low in _TRUE:
                return True
            if low in _FALSE:
                return False
            raise ValueError("expected true or false")
        if isinstance(default, int | float) and text.lower() in ("none", "null"):
            return None  # "switched off" for numeric settings whose experiment allows it
        if isinstance(default, int):
            return int(text)
        if isinstance(default, float):
            return _finite(float(text))
        if isinstance(default, (list, tuple, dict)):
            item_default = default[0] if isinstance(default, (list, tuple)) and default else None
            if text.startswith(("[", "{")):
                value = _finite(json.loads(text))
                if isinstance(value, list) and item_default is not None:
                    value = [
                        coerce(key, item if isinstance(item, str) else json.dumps(item), item_default)
                        for item in value
                    ]
            else:
                value = [
                    coerce(key, item, "" if item_default is None else item_default) for item in _split(text)
                ]
            if isinstance(default, tuple) and isinstance(value, list):
                value = tuple(value)
            if not isinstance(value, type(default)):
                raise ValueError(f"expected a {type(default).__name__}")
            return value
        if default is None:
            try:
                return _finite(json.loads(text))
            except json.JSONDecodeError:
                return text
        return text.replace("\\,", ",")
    except ConfigError:
        raise
    except (ValueError, json.JSONDecodeError) as exc:
        raise ConfigError(
            f"invalid value {raw!r} for setting {key!r}: {exc}",
            hint=f"{key} takes {_describe(default)}, like its default {default!r}",
        ) from None


def _finite(value: Any) -> Any:
    """``value``, unless it is or holds NaN or infinity (not valid in run configs)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("NaN and infinity are not allowed")
    if isinstance(value, list):
        for item in value:
            _finite(item)
    if isinstance(value, dict):
        for item in value.values():
            _finite(item)
    return value


def _describe(default: Any) -> str:
    for kind, words in ((bool, "true or false"), (int, "a whole number"), (float, "a number")):
        if isinstance(default, kind):
            return words
    if isinstance(default, (list, tuple)):
        return "a comma-separated list or a JSON list"
    if isinstance(default, dict):
        return "a JSON object"
    return "a value"


def _split(text: str) -> list[str]:
    """Split on commas not preceded by a backslash."""
    return [p for p in re.split(r"(?<!\\),", text)]


def parse_assignments(
    assignments: Iterable[str], schema: Mapping[str, Any], *, experiment: str = ""
) -> dict[str, list[Any]]:
    """Parse ``key=value[,value...]`` strings against the settings ``schema``.

    Returns:
        For each key given, the list of values to sweep (one value: no sweep).

    Raises:
        ConfigError: malformed assignment, unknown key (with the closest names),
            repeated key, or a value of the wrong type.
    """
    out: dict[str, list[Any]] = {}
    where = f" of {experiment}" if experiment else ""
    for assignment in assignments:
        key, sep, raw = assignment.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"invalid --set {assignment!r}", hint="write --set key=value, e.g. --set n=100")
        if key not in schema:
            known = sorted(schema)
            hint = suggest(key, known) or (
                f"settings{where} are: {', '.join(known)}"
                if known
                else f"the experiment{where} has no settings"
            )
            raise ConfigError(f"unknown setting {key!r}{where}", hint=hint)
        if key in out:
            raise ConfigError(f"setting {key!r} is given twice", hint="give several values as key=v1,v2")
        default = schema[key]
        if isinstance(default, (list, tuple, dict)):
            out[key] = [coerce(key, raw, default)]
        else:
            out[key] = [coerce(key, part, default) for part in _split(raw)]
    return out


def expand_grid(values: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Cartesian product: ``{"a": [1, 2], "b": [3]}`` → ``[{a:1,b:3}, {a:2,b:3}]``."""
    keys = list(values)
    size = math.prod(len(v) for v in values.values())
    if size > MAX_RUNS:
        raise ConfigError(
            f"the settings make {size} combinations, more than {MAX_RUNS}", hint="sweep fewer values"
        )
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values.values())]


def plan(
    spec: ExperimentSpec, scale: str, seeds: Sequence[int], assignments: Iterable[str]
) -> list[RunRequest]:
    """The runs of ``paperzoo run``: every ``--set`` combination × every seed, all checked.

    Every point's settings are checked against the experiment's constraints
    here, so a sweep with one bad value fails before any of its runs starts.

    Raises:
        ConfigError: a malformed or unknown assignment, or a value not allowed.
    """
    from paperzoo.runs import RunRequest, new_run_id

    grid = expand_grid(parse_assignments(assignments, spec.settings, experiment=spec.name))
    for point in grid:
        spec.settings_for(scale, point)
    sweep = new_run_id(f"sweep-{spec.name}") if len(grid) * len(seeds) > 1 else None
    return [RunRequest(spec.name, scale, s, overrides=point, sweep=sweep) for point in grid for s in seeds]
