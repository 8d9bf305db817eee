"""Sensitive features → group codes, the way fairlearn accepts them."""

from __future__ import annotations

from typing import Any

import numpy as np

from paperzoo.errors import ConfigError

__all__ = ["FairnessError", "encode_groups", "lookup_groups"]


class FairnessError(ConfigError):
    """Sensitive features that cannot be used."""


def _rows(sensitive_features: Any, n: int) -> np.ndarray:
    values = sensitive_features.to_numpy() if hasattr(sensitive_features, "to_numpy") else sensitive_features
    array = np.asarray(values, dtype=object)
    if array.ndim == 0 or array.ndim > 2:
        raise FairnessError(f"sensitive_features must be 1-d or 2-d, got shape {array.shape}")
    if array.shape[0] != n:
        raise FairnessError(
            f"sensitive_features has {array.shape[0]} rows but there are {n} samples",
            hint="pass one group label (or one row of labels) per sample",
        )
    missing = np.array([v is None or (isinstance(v, float) and v != v) for v in array.ravel()])
    if missing.any():
        raise FairnessError(
            f"sensitive_features has {int(missing.sum())} missing values",
            hint="every sample needs a group; encode unknown as its own label",
        )
    if array.ndim == 2:  # several sensitive columns: their combination is the group
        return np.array([tuple(r) for r in array.tolist()] + [None], dtype=object)[:-1]
    return array


def encode_groups(sensitive_features: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, groups)``: an integer code per sample and the sorted group labels.

    Several sensitive columns make one group per combination (a tuple label).

    Raises:
        FairnessError: wrong length, more than 2 dimensions, or missing values.
    """
    rows = _rows(sensitive_features, n)
    try:
        groups, codes = np.unique(rows, return_inverse=True)
    except TypeError:  # labels of mixed types: order them by their repr
        _, first, codes = np.unique(np.array([repr(v) for v in rows]), return_index=True, return_inverse=True)
        groups = rows[first]
    return codes.astype(np.int64).ravel(), groups


def lookup_groups(sensitive_features: Any, n: int, groups: np.ndarray) -> np.ndarray:
    """Codes of new samples in the fitted ``groups``.

    Raises:
        FairnessError: a group that was not seen at fit time.
    """
    rows = _rows(sensitive_features, n)
    try:
        codes = np.searchsorted(groups, rows)
        found = (codes < groups.size) & (groups[np.minimum(codes, groups.size - 1)] == rows)
    except TypeError:
        known = {repr(g): i for i, g in enumerate(groups)}
        codes = np.array([known.get(repr(v), -1) for v in rows], dtype=np.int64)
        found = codes >= 0
    found = np.asarray(found, dtype=bool)
    if not found.all():
        unseen = sorted({repr(v) for v in rows[~found]})
        raise FairnessError(
            f"sensitive_features has groups not seen in fit: {', '.join(unseen[:5])}",
            hint=f"the fitted groups are {', '.join(repr(g) for g in groups)}; refit with data from every group",
        )
    return np.asarray(codes, dtype=np.int64)
