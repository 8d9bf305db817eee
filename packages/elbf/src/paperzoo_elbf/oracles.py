"""Oracles: anything that scores keys and has a size in bits.

An oracle has ``score(items) -> float array`` (higher = more key-like) and
``size_in_bits``; the filters count that size in their budget.

* :class:`SklearnOracle` wraps a fitted scikit-learn model (or pipeline) with
  ``predict_proba`` or ``decision_function``; its size is the number of stored
  parameters (:func:`model_size_in_bits`) at ``bits_per_parameter`` each.
* :class:`TableOracle` looks scores up by integer id (synthetic experiments).
* :class:`MemoOracle` remembers another oracle's scores, so that comparing many
  filters over the same items scores each item once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from paperzoo.errors import ConfigError

__all__ = ["MemoOracle", "Oracle", "SklearnOracle", "TableOracle", "model_size_in_bits"]


@runtime_checkable
class Oracle(Protocol):
    """Scores items; counts ``size_in_bits`` against the filter's budget."""

    size_in_bits: int

    def score(self, items: Any) -> np.ndarray: ...


def _count_parameters(model: Any) -> int:
    """Stored numbers of a fitted scikit-learn model (recursing into pipelines and ensembles)."""
    if hasattr(model, "steps"):  # Pipeline
        return sum(_count_parameters(step) for _, step in model.steps if step not in (None, "passthrough"))
    if hasattr(model, "estimators_") and not hasattr(model, "tree_"):  # forests, boosting
        estimators = np.ravel(np.asarray(model.estimators_, dtype=object))
        return sum(_count_parameters(e) for e in estimators)
    if hasattr(model, "tree_"):  # a tree node: feature, threshold, two children; a leaf: its value
        tree = model.tree_
        leaves = int(np.sum(tree.children_left == -1))
        return 4 * (tree.node_count - leaves) + leaves * int(np.prod(tree.value.shape[1:]))
    count = 0
    for name in ("coef_", "intercept_", "coefs_", "intercepts_", "theta_", "var_", "class_log_prior_",
                 "feature_log_prob_"):  # fmt: skip
        value = getattr(model, name, None)
        if value is None:
            continue
        arrays = value if isinstance(value, list) else [value]
        count += sum(int(np.size(a)) for a in arrays)
    return count  # stateless transformers (hashing vectorisers, feature functions) store nothing


def model_size_in_bits(model: Any, bits_per_parameter: int = 32) -> int:
    """Bits to store a fitted model: its parameter count × ``bits_per_parameter``.

    Counts coefficients and intercepts of linear models and MLPs, and per tree
    node a feature index, a threshold and two child pointers (a leaf: its values).
    Stateless steps (``HashingVectorizer``, ``FunctionTransformer``) count 0;
    fitted vocabularies (``CountVectorizer``) are not supported — use hashing.
    """
    if hasattr(model, "vocabulary_"):
        raise ConfigError(
            f"{type(model).__name__} stores a vocabulary, which this count does not size",
            hint="use HashingVectorizer, or pass size_in_bits yourself",
        )
    if hasattr(model, "steps"):
        for _, step in model.steps:
            if hasattr(step, "vocabulary_"):
                model_size_in_bits(step)
    return _count_parameters(model) * bits_per_parameter


class SklearnOracle:
    """A fitted scikit-learn classifier as an oracle.

    Args:
        model: Fitted; ``predict_proba`` (column of the positive class) or
            ``decision_function`` gives the score.
        size_in_bits: Its size; default :func:`model_size_in_bits` (32-bit numbers).
        name: A label for results.
    """

    def __init__(self, model: Any, size_in_bits: int | None = None, name: str = "") -> None:
        if not (hasattr(model, "predict_proba") or hasattr(model, "decision_function")):
            raise ConfigError(
                f"{type(model).__name__} has neither predict_proba nor decision_function",
                hint="wrap a classifier",
            )
        self.model = model
        self.size_in_bits = model_size_in_bits(model) if size_in_bits is None else int(size_in_bits)
        self.name = name or type(model).__name__

    def score(self, items: Any) -> np.ndarray:
        """Probability of the key class (or the decision function), as float64."""
        if hasattr(self.model, "decision_function"):
            return np.asarray(self.model.decision_function(items), dtype=float).ravel()
        proba = np.asarray(self.model.predict_proba(items), dtype=float)
        return proba[:, -1]

    def __repr__(self) -> str:
        return f"SklearnOracle({self.name}, {self.size_in_bits} bits)"


class TableOracle:
    """Scores integer ids by looking them up: ``score(ids) = table[ids]``."""

    def __init__(self, table: np.ndarray, size_in_bits: int, name: str = "table") -> None:
        self.table = np.asarray(table, dtype=float)
        self.size_in_bits = int(size_in_bits)
        self.name = name

    def score(self, items: Sequence[int] | np.ndarray) -> np.ndarray:
        ids = np.asarray(items)
        if ids.dtype.kind not in "iu" or (ids.size and (ids.min() < 0 or ids.max() >= len(self.table))):
            raise ConfigError(f"{self.name}: ids must be integers in [0, {len(self.table)})")
        return self.table[ids]

    def __repr__(self) -> str:
        return f"TableOracle({self.name}, {self.size_in_bits} bits)"


class MemoOracle:
    """Another oracle, scoring each distinct (hashable) item once and remembering it."""

    def __init__(self, oracle: Oracle) -> None:
        self.oracle = oracle
        self.size_in_bits = oracle.size_in_bits
        self.name = getattr(oracle, "name", type(oracle).__name__)
        self._memo: dict[Any, float] = {}

    def score(self, items: Any) -> np.ndarray:
        items = list(items)
        new = list(dict.fromkeys(x for x in items if x not in self._memo))
        if new:
            self._memo.update(zip(new, np.asarray(self.oracle.score(np.asarray(new)), dtype=float).tolist()))
        return np.fromiter((self._memo[x] for x in items), dtype=float, count=len(items))

    def __repr__(self) -> str:
        return f"MemoOracle({self.oracle!r})"
