"""An in-processing baseline: linear regression penalised towards equal group means.

    min_w  (1/n) ‖y − Xw − b‖² + λ Σ_{a<b} (μ_a(w) − μ_b(w))² + ρ ‖w‖²,

where ``μ_g(w) = mean of x·w + b over group g`` (Calders et al. 2013's
"mean-matching" idea, the usual convex demographic-parity penalty). It matches
the first moment of the groups' predictions only, not their whole distributions,
which is what separates it from the post-processing. Solved in closed form.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from paperzoo.errors import ConfigError
from paperzoo_fairpp.groups import encode_groups, lookup_groups

__all__ = ["PenalizedLinearRegression"]


class PenalizedLinearRegression(RegressorMixin, BaseEstimator):  # type: ignore[misc]
    """Ridge regression with a demographic-parity (group-mean) penalty.

    Like the other models it sees the group: one-hot group columns are appended to
    ``X`` (so ``sensitive_features`` is needed at ``predict`` too).

    Args:
        penalty: λ ≥ 0, the weight of the squared differences of group mean predictions.
        ridge: ρ ≥ 0, an L2 penalty on the coefficients (not the intercept).
    """

    def __init__(self, penalty: float = 10.0, ridge: float = 1e-6) -> None:
        self.penalty = penalty
        self.ridge = ridge

    def _design(self, X: np.ndarray, sensitive_features: Any) -> np.ndarray:
        codes = lookup_groups(sensitive_features, X.shape[0], self.groups_)
        return np.hstack([X, np.eye(self.groups_.size)[codes][:, 1:], np.ones((X.shape[0], 1))])

    def fit(self, X: Any, y: Any, sensitive_features: Any = None) -> PenalizedLinearRegression:
        X, y = validate_data(self, X, y, y_numeric=True)
        if self.penalty < 0 or self.ridge < 0:
            raise ConfigError(f"penalty and ridge must be >= 0, got {self.penalty}, {self.ridge}")
        n = X.shape[0]
        sensitive = np.zeros(n, dtype=np.int64) if sensitive_features is None else sensitive_features
        codes, self.groups_ = encode_groups(sensitive, n)
        Z = self._design(X, sensitive)  # features, group dummies, intercept (last)
        A = Z.T @ Z / n + self.ridge * np.diag(np.r_[np.ones(Z.shape[1] - 1), 0.0])
        means = np.vstack([Z[codes == g].mean(axis=0) for g in range(self.groups_.size)])
        for a, b in itertools.combinations(range(self.groups_.size), 2):
            diff = means[a] - means[b]
            A += self.penalty * np.outer(diff, diff)
        self.coef_ = np.linalg.solve(A, Z.T @ y / n)
        return self

    def predict(self, X: Any, sensitive_features: Any = None) -> np.ndarray:
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False)
        sensitive = np.zeros(X.shape[0], dtype=np.int64) if sensitive_features is None else sensitive_features
        if sensitive_features is None and self.groups_.size > 1:
            raise ConfigError("predict needs sensitive_features: the model was fitted with several groups")
        return self._design(X, sensitive) @ self.coef_
