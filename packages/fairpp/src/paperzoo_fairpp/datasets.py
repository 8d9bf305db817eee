"""Data: Gaussian-linear groups with a closed-form fair oracle, and Communities & Crime."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperzoo.data import fetch
from paperzoo.errors import ConfigError
from paperzoo_fairpp.plugin import CRIME_FILE

__all__ = ["Crime", "GaussianGroups", "communities_crime", "gaussian_linear_groups"]


@dataclass(frozen=True)
class GaussianGroups:
    """A draw of the synthetic model and its exact fair oracle.

    In group ``s`` (probability ``w_s``), ``x ~ N(0, I_d)`` and
    ``y = x·β_s + b_s + ε``, ``ε ~ N(0, noise²)``. The regression function
    ``f*_s(x) = x·β_s + b_s`` has law ``N(m_s, σ_s²)`` with ``m_s = b_s`` and
    ``σ_s = |β_s|``, so the fair optimum is
    ``g*(x, s) = m̄ + (σ̄/σ_s)(f*_s(x) − m_s)``, ``m̄ = Σ w_s m_s``, ``σ̄ = Σ w_s σ_s``.
    """

    X: np.ndarray
    y: np.ndarray
    s: np.ndarray
    weights: np.ndarray
    betas: np.ndarray
    intercepts: np.ndarray

    def regression(self, X: np.ndarray, s: np.ndarray) -> np.ndarray:
        """``f*_s(x)``."""
        return np.einsum("ij,ij->i", X, self.betas[s]) + self.intercepts[s]

    def fair_oracle(self, X: np.ndarray, s: np.ndarray) -> np.ndarray:
        """``g*(x, s)``, the demographic-parity Bayes-optimal prediction."""
        sigma = np.linalg.norm(self.betas, axis=1)
        m_bar, sigma_bar = self.weights @ self.intercepts, self.weights @ sigma
        return m_bar + sigma_bar / sigma[s] * (self.regression(X, s) - self.intercepts[s])


def gaussian_linear_groups(
    n: int,
    *,
    d: int = 5,
    n_groups: int = 2,
    noise: float = 1.0,
    seed: int | np.random.Generator = 0,
    model_seed: int = 0,
) -> GaussianGroups:
    """``n`` samples of the rate experiment's model (the model itself fixed by ``model_seed``).

    Group ``s`` has weight ∝ ``s + 1``, slope ``β_s`` of norm ``1 + s`` in a random
    direction and intercept ``b_s = 2s``: the groups' outputs differ in mean and spread.
    """
    if n < 1 or d < 1 or n_groups < 2:
        raise ConfigError(f"need n >= 1, d >= 1 and at least 2 groups, got n={n}, d={d}, groups={n_groups}")
    model = np.random.default_rng(model_seed)
    directions = model.normal(size=(n_groups, d))
    betas = (
        directions / np.linalg.norm(directions, axis=1, keepdims=True) * (1.0 + np.arange(n_groups))[:, None]
    )
    intercepts = 2.0 * np.arange(n_groups, dtype=np.float64)
    weights = (np.arange(n_groups) + 1.0) / np.sum(np.arange(n_groups) + 1.0)
    rng = np.random.default_rng(seed)
    s = rng.choice(n_groups, size=n, p=weights)
    X = rng.normal(size=(n, d))
    model_data = GaussianGroups(X, np.empty(n), s, weights, betas, intercepts)
    y = model_data.regression(X, s) + noise * rng.normal(size=n)
    return GaussianGroups(X, y, s, weights, betas, intercepts)


@dataclass(frozen=True)
class Crime:
    """Communities & Crime (UCI): 1,994 communities.

    Attributes:
        X: 99 numeric features (state, name, fold, target, the group and the
            derived ``class`` label left out).
        y: ``ViolentCrimesPerPop``, normalised to [0, 1].
        s: The binary group ``Black`` (1: the share of Black residents is high).
        features: The names of the columns of ``X``.
    """

    X: np.ndarray
    y: np.ndarray
    s: np.ndarray
    features: list[str]


def communities_crime() -> Crime:
    """Load Communities & Crime as in the fairness literature (Redmond & Baveja 2002)."""
    path = fetch(CRIME_FILE)
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
    drop = {"state", "communityname", "fold", "ViolentCrimesPerPop", "Black", "class"}
    features = [c for c in header if c not in drop]
    wanted = [*features, "ViolentCrimesPerPop", "Black"]
    table = np.loadtxt(path, delimiter=",", skiprows=1, usecols=[header.index(c) for c in wanted])
    d = len(features)
    return Crime(X=table[:, :d], y=table[:, d], s=table[:, d + 1].astype(np.int64), features=features)
