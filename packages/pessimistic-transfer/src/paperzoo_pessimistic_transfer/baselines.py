"""The peers the paper compares with: domain randomisation and target-only learning.

* Domain randomisation (non-robust averaging): the optimal policy of the mean
  kernel P̄ = (1/K) Σ_k P_k — the Averaged Operator with every Γ_k = 0. Its value
  is no lower bound of the target's.
* Target-only: P̂₀ estimated from ``n`` draws per (s, a) on the target itself,
  then planned on as if exact (certainty equivalence).
"""

from __future__ import annotations

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_pessimistic_transfer.mdps import TabularMDP
from paperzoo_pessimistic_transfer.operators import optimal_q

__all__ = ["domain_randomisation", "empirical_kernel", "target_only"]


def domain_randomisation(P_sources: np.ndarray, r: np.ndarray, gamma: float) -> np.ndarray:
    """Q* of the averaged kernel P̄ = (1/K) Σ_k P_k (non-robust averaging)."""
    return optimal_q(np.asarray(P_sources, dtype=float).mean(axis=0), r, gamma)


def empirical_kernel(P: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """P̂(s'|s,a) = (1/n) #{draws = s'} from ``n`` draws s' ~ P(·|s,a) per (s, a)."""
    if n < 1:
        raise ConfigError(f"target-only learning needs n ≥ 1 samples per (s, a), got {n}")
    S, A, _ = P.shape
    counts = np.stack([[rng.multinomial(n, P[s, a] / P[s, a].sum()) for a in range(A)] for s in range(S)])
    return counts / n


def target_only(target: TabularMDP, n: int, rng: np.random.Generator) -> np.ndarray:
    """Q* of the empirical target kernel from ``n`` samples per (s, a)."""
    return optimal_q(empirical_kernel(target.P, n, rng), target.r, target.gamma)
