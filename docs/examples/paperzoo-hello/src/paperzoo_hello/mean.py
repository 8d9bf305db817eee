"""The shrunk sample mean and its error.

mean_λ(x) = (1 - λ) · (1/n) Σ_i x_i,  for shrinkage λ ∈ [0, 1].
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from paperzoo import BaseEstimator, Setting
from paperzoo.errors import ConfigError


class ShrunkMean(BaseEstimator):
    """Sample mean multiplied by ``1 - shrinkage``.

    Args:
        shrinkage: λ ∈ [0, 1]; 0 is the plain sample mean.
    """

    _parameters: ClassVar[dict[str, Setting]] = {"shrinkage": Setting(low=0, high=1)}

    def __init__(self, shrinkage: float = 0.0):
        self.shrinkage = shrinkage

    def fit(self, x) -> ShrunkMean:
        shrinkage = self._validate_params()["shrinkage"]  # one clear error for a bad value
        x = np.asarray(x, dtype=float)
        if x.ndim != 1 or x.size == 0:
            raise ConfigError(f"x must be a non-empty 1-d array, got shape {x.shape}")
        self.mean_ = (1.0 - shrinkage) * float(x.mean())
        self.n_samples_ = int(x.size)
        return self


def abs_error(estimate: float, truth: float) -> float:
    """|estimate - truth|."""
    return abs(float(estimate) - float(truth))
