"""Synthetic oracle scores with a controlled strength and correlation [reconstructed].

A reconstructed toy model: oracle family ``j`` at size ``z`` separates keys from
non-keys by ``d(z) = d₀ + c · log₂(z / z₀)``, so larger oracles are better but
cost bits. Scores are Gaussian:

    s_j(x) = d_j · y(x) + √ρ · u(x) + √(1 − ρ) · e_j(x),   u, e_j ~ N(0, 1),

with ``y = 1`` for keys and 0 otherwise; ``ρ`` is the correlation between the
families' noise. Items are integer ids: keys ``0 … n−1``, then held-out non-keys
(for choosing thresholds), then test non-keys (for measuring the FPR).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_elbf.oracles import TableOracle

__all__ = ["SyntheticScores", "synthetic_scores"]


@dataclass(frozen=True)
class SyntheticScores:
    """Ids and oracles of a synthetic membership problem.

    Attributes:
        keys, holdout, test: Integer ids of the keys, held-out and test non-keys.
        oracles: One :class:`TableOracle` per (family, size), family-major.
        groups: The family of each oracle (one per family may be used).
    """

    keys: np.ndarray
    holdout: np.ndarray
    test: np.ndarray
    oracles: tuple[TableOracle, ...]
    groups: tuple[int, ...]


def synthetic_scores(
    n_keys: int = 10_000,
    n_holdout: int = 100_000,
    n_test: int = 1_000_000,
    *,
    families: int = 2,
    sizes: Sequence[int] = (2_500, 5_000, 10_000, 20_000, 40_000),
    d0: float = 1.0,
    slope: float = 0.5,
    correlation: float = 0.0,
    seed: int = 0,
) -> SyntheticScores:
    """Draw scores for ``families`` oracle families at each of ``sizes`` bits.

    Separation ``d(z) = d0 + slope · log₂(z / sizes[0])``.

    Raises:
        ConfigError: non-positive counts or sizes, or a correlation outside [0, 1].
    """
    if min(n_keys, n_holdout, n_test, families) < 1 or not sizes or min(sizes) < 1:
        raise ConfigError("counts, families and sizes must be positive")
    if not 0.0 <= correlation <= 1.0:
        raise ConfigError(f"correlation must lie in [0, 1], got {correlation}")
    rng = np.random.default_rng(seed)
    total = n_keys + n_holdout + n_test
    y = np.zeros(total, dtype=np.float32)
    y[:n_keys] = 1.0
    shared = rng.standard_normal(total, dtype=np.float32)
    oracles, groups = [], []
    for family in range(families):
        noise = np.sqrt(correlation) * shared + np.sqrt(1 - correlation) * rng.standard_normal(
            total, dtype=np.float32
        )
        for z in sizes:
            d = d0 + slope * np.log2(z / sizes[0])
            oracles.append(TableOracle(d * y + noise, z, name=f"family {family + 1}, {z} bits"))
            groups.append(family)
    ids = np.arange(total)
    return SyntheticScores(
        keys=ids[:n_keys],
        holdout=ids[n_keys : n_keys + n_holdout],
        test=ids[n_keys + n_holdout :],
        oracles=tuple(oracles),
        groups=tuple(groups),
    )
