"""Estimators of paperzoo-els.

Estimators that use JAX import it in this module, never in ``plugin.py``;
models are Flax NNX modules (``rngs`` keyword, ``@nnx.jit`` steps) trained
with optax, with side effects kept out of traced code.
"""

from __future__ import annotations

import numpy as np

from paperzoo import BaseEstimator, check_is_fitted
from paperzoo.errors import ConfigError


class ShrunkMean(BaseEstimator):
    """Placeholder: predicts the training mean of ``y``, shrunk towards zero.

    ŷ = (1 − shrinkage) · (1/n) Σᵢ yᵢ

    Replace it with the paper's method, keeping scikit-learn's rules: ``__init__``
    stores its keyword parameters unchanged, ``fit`` validates, stores fitted state
    in attributes ending in ``_`` and returns ``self``.

    Args:
        shrinkage: Fraction in [0, 1] by which the mean is pulled towards zero.
    """

    def __init__(self, shrinkage: float = 0.0):
        self.shrinkage = shrinkage

    def fit(self, X, y) -> ShrunkMean:
        """Learn the shrunk mean of ``y`` (``X``: n × d features, unused)."""
        X = np.asarray(X, dtype=float)
        y = np.asarray(y, dtype=float)
        if not 0.0 <= self.shrinkage <= 1.0:
            raise ConfigError(
                f"shrinkage must be in [0, 1], got {self.shrinkage!r}",
                hint="pass ShrunkMean(shrinkage=0.1), for example",
            )
        if X.ndim != 2 or y.ndim != 1 or len(X) != len(y) or len(y) == 0:
            raise ConfigError(
                f"expected X of shape (n, d) and y of shape (n,) with n ≥ 1, got {X.shape} and {y.shape}",
            )
        self.mean_ = (1.0 - self.shrinkage) * float(y.mean())
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X) -> np.ndarray:
        """The fitted mean, once per row of ``X``."""
        check_is_fitted(self)
        X = np.asarray(X, dtype=float)
        return np.full(X.shape[0], self.mean_)
