"""How paperzoo names and values become MLflow params, tags and metric keys.

MLflow accepts keys of at most 250 characters made of letters, digits, ``_``,
``-``, ``.``, ``/`` and spaces (colons are refused on Windows), param values of
at most 500 characters on older servers (6000 on newer ones) and tag values of at
most 5000. Everything here is plain Python: no mlflow import.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["MAX_KEY", "MAX_PARAM", "MAX_TAG", "flatten", "key", "metric_key", "text", "unique"]

MAX_KEY = 250
MAX_PARAM = 500
MAX_TAG = 5000
_BAD = re.compile(r"[^\w./\- ]+")


def text(value: Any, limit: int) -> str:
    """``value`` as a string of at most ``limit`` characters (``"…"`` marks a cut)."""
    if isinstance(value, str):
        out = value
    elif isinstance(value, (list, tuple, dict)):
        out = json.dumps(value, default=str, separators=(",", ":"))
    else:
        out = str(value)
    return out if len(out) <= limit else out[: limit - 1] + "…"


def key(name: str) -> str:
    """A valid MLflow key: runs of other characters become ``_``, at most 250 long.

    ``"relative PPS (top 10)"`` → ``"relative PPS _top 10_"``; ``"alpha=0.5, n=10"``
    → ``"alpha_0.5 n_10"`` (the ", " between settings becomes one space).
    """
    cleaned = _BAD.sub("_", name.replace(", ", " ")).strip(" ")
    cleaned = re.sub(r"/{2,}", "/", cleaned).replace("..", "_.")
    return (cleaned or "_")[:MAX_KEY]


def flatten(values: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``{"opt": {"lr": 0.1}}`` → ``("opt.lr", 0.1)``; lists and scalars stay whole."""
    for name, value in values.items():
        full = f"{prefix}{name}"
        if isinstance(value, Mapping) and value:
            yield from flatten(value, f"{full}.")
        else:
            yield full, value


def metric_key(metric: str, setting: str = "") -> str:
    """The MLflow metric of a result row: ``result/<metric>[/<setting>]``."""
    return key(f"result/{key(metric)}" + (f"/{key(setting)}" if setting else ""))


def unique(name: str, taken: set[str]) -> str:
    """``name``, or ``name 2``, ``name 3``... whichever ``taken`` lacks; added to ``taken``."""
    out, n = name, 1
    while out in taken:
        n += 1
        suffix = f" {n}"
        out = name[: MAX_KEY - len(suffix)] + suffix
    taken.add(out)
    return out
