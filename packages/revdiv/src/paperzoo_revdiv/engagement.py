"""Validating a user × artist engagement matrix.

``W`` has one row per user and one column per artist; ``w_ij ≥ 0`` is how much
user ``i`` engaged with artist ``j`` (streams, minutes). Every user pays 1, so a
user with ``L_i = Σ_j w_ij = 0`` has paid for nothing the rules can divide: that
is an error unless the caller asks to drop such users.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

from paperzoo.errors import ConfigError

__all__ = ["Engagement", "EngagementError", "check_alpha", "check_engagement", "preview"]

OnEmpty = Literal["raise", "drop"]


class EngagementError(ConfigError):
    """The engagement matrix is not a valid instance."""


@dataclass(frozen=True)
class Engagement:
    """A validated instance.

    Attributes:
        W: CSR matrix, float64, users × artists, no explicit zeros, no empty row.
        L: Total engagement per user, ``L_i = Σ_j w_ij > 0``.
        kept: Indices (into the caller's rows) of the users kept.
        n_dropped: How many users were dropped for having no engagement.
    """

    W: sp.csr_matrix
    L: np.ndarray
    kept: np.ndarray
    n_dropped: int

    @property
    def n_users(self) -> int:
        """Number of (kept) users, ``n``."""
        return int(self.W.shape[0])

    @property
    def n_artists(self) -> int:
        """Number of artists, ``m``."""
        return int(self.W.shape[1])


def preview(rows: np.ndarray, limit: int = 3) -> str:
    shown = ", ".join(str(int(r)) for r in rows[:limit])
    return shown + (", ..." if rows.size > limit else "")


def check_engagement(W: Any, *, on_empty: OnEmpty = "raise") -> Engagement:
    """Validate ``W`` and return it as CSR float64 (the input is never modified).

    Args:
        W: Users × artists engagement: a scipy sparse matrix or array, or anything
            ``numpy.asarray`` accepts (a dense array, nested lists).
        on_empty: ``"raise"`` (default) on users with zero total engagement, or
            ``"drop"`` to remove them (their rows are left out of ``W``).

    Raises:
        EngagementError: not 2-D, no users or artists, NaN/inf or negative
            weights, or users with zero engagement and ``on_empty="raise"``.
    """
    if on_empty not in ("raise", "drop"):
        raise ConfigError(f"on_empty must be 'raise' or 'drop', got {on_empty!r}")
    if sp.issparse(W):
        if W.ndim != 2:
            raise EngagementError(f"engagement must be a 2-d users × artists matrix, got {W.ndim}-d")
        csr = sp.csr_matrix(W, dtype=np.float64)  # shares data with W when already CSR float64
    else:
        try:
            dense = np.asarray(W, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise EngagementError(f"engagement must be numeric: {exc}") from None
        if dense.ndim != 2:
            raise EngagementError(f"engagement must be a 2-d users × artists matrix, got shape {dense.shape}")
        csr = sp.csr_matrix(dense)
    n, m = csr.shape
    if n == 0 or m == 0:
        raise EngagementError(
            f"engagement matrix has shape {csr.shape}: it needs at least one user and one artist"
        )
    data = csr.data
    if not np.isfinite(data).all():
        raise EngagementError(
            "engagement has NaN or infinite weights", hint="replace missing values by 0 (no engagement)"
        )
    if (data < 0).any():
        raise EngagementError(
            f"engagement has {int((data < 0).sum())} negative weights",
            hint="weights are streams or minutes: clip or fix them to be >= 0",
        )
    if (data == 0).any() or not csr.has_canonical_format:
        if sp.issparse(W):
            csr = csr.copy()  # conversion may share indices with the caller's matrix: never modify it
        csr.sum_duplicates()
        csr.eliminate_zeros()
    L = np.asarray(csr.sum(axis=1)).ravel()
    if not np.isfinite(L).all():
        raise EngagementError(
            "some users' total engagement overflows float64", hint="rescale W (e.g. to hours)"
        )
    if ((L > 0) & (np.finfo(np.float64).tiny > L)).any():
        raise EngagementError("some users' total engagement is below float64's range", hint="rescale W")
    empty = np.flatnonzero(L == 0)
    if empty.size and on_empty == "raise":
        raise EngagementError(
            f"{empty.size} users have zero total engagement (rows {preview(empty)})",
            hint="drop them or pass on_empty='drop'",
        )
    kept = np.arange(n)
    if empty.size:
        kept = np.flatnonzero(L > 0)
        if kept.size == 0:
            raise EngagementError("every user has zero total engagement", hint="there is nothing to divide")
        csr = csr[kept]
        L = L[kept]
    return Engagement(W=csr, L=L, kept=kept, n_dropped=int(empty.size))


def check_alpha(alpha: Any) -> float:
    """``α`` must be a real number in (0, 1]: the share of revenue paid out."""
    try:
        value = float(alpha)
    except (TypeError, ValueError):
        raise ConfigError(f"alpha must be a number in (0, 1], got {alpha!r}") from None
    if not 0.0 < value <= 1.0:
        raise ConfigError(
            f"alpha must be in (0, 1], got {alpha!r}",
            hint="alpha is the share of the n subscription fees paid to artists",
        )
    return value
