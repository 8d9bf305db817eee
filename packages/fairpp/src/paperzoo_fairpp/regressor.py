"""``DemographicParityRegressor``: any regressor, made demographic-parity fair.

The meta-estimator of Fukuchi (ICML 2025, Alg. 1): fit a base regressor ``f̂(x, s)``
on one part of the data, learn the groups' prediction distributions on a held-out
calibration part, and map every prediction onto their Wasserstein-2 barycenter
(:class:`~paperzoo_fairpp.postprocess.BarycenterPostProcessor`). If the base
regressor is minimax optimal, so is the result among fair predictors (the paper's
meta-theorem).

It is a scikit-learn regressor: ``sensitive_features=`` goes to ``fit`` and
``predict`` as in fairlearn, or ``sensitive_columns`` names columns of ``X`` that
hold them, so that it works unchanged in ``Pipeline``, ``cross_val_score`` and
grid search.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import KFold, cross_val_predict, train_test_split
from sklearn.utils.validation import check_is_fitted, validate_data

from paperzoo.errors import ConfigError
from paperzoo_fairpp.groups import FairnessError, encode_groups, lookup_groups
from paperzoo_fairpp.postprocess import BarycenterPostProcessor, check_fairness

__all__ = ["DemographicParityRegressor", "GroupwiseRegressor"]

UseSensitive = Literal["onehot", "separate", "none"]


class GroupwiseRegressor(RegressorMixin, BaseEstimator):  # type: ignore[misc]
    """One clone of ``estimator`` per group; the group code is the last column of ``X``.

    ``f̂(x, s) = f̂_s(x)``, the group regression functions of the paper.
    """

    def __init__(self, estimator: Any = None) -> None:
        self.estimator = estimator

    def fit(self, X: Any, y: Any) -> GroupwiseRegressor:
        X, y = validate_data(self, X, y, y_numeric=True)
        codes = X[:, -1].astype(np.int64)
        base = self.estimator if self.estimator is not None else LinearRegression()
        self.estimators_ = {
            int(g): clone(base).fit(X[codes == g, :-1], y[codes == g]) for g in np.unique(codes)
        }
        return self

    def predict(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, reset=False)
        codes = X[:, -1].astype(np.int64)
        out = np.empty(X.shape[0])
        for g in np.unique(codes):
            if int(g) not in self.estimators_:
                raise FairnessError(f"group code {int(g)} has no fitted regressor")
            out[codes == g] = self.estimators_[int(g)].predict(X[codes == g, :-1])
        return out


class DemographicParityRegressor(RegressorMixin, BaseEstimator):  # type: ignore[misc]
    """Demographic-parity regression by Wasserstein-barycenter post-processing.

    Args:
        estimator: The base regressor (any scikit-learn regressor; default
            ``LinearRegression()``).
        fairness: Level α in [0, 1]: the prediction is ``(1 − α) f̂ + α ĝ`` (1 = exact
            demographic parity); can also be changed at ``predict`` time.
        jitter: Half-width σ of the uniform jitter that breaks ties (paper: 1e-5).
        cv: How calibration predictions are made: ``None`` splits the data once
            (``calibration_size`` held out, the paper's algorithm); an integer ``k``
            uses out-of-fold predictions of a k-fold cross-fit (all data calibrates,
            the base is refit on all data); ``"prefit"`` takes ``estimator`` as
            already fitted and calibrates on all of ``fit``'s data.
        calibration_size: Fraction held out for calibration when ``cv`` is ``None``.
        use_sensitive: How the base sees the group: ``"onehot"`` columns appended to
            ``X``, ``"separate"`` regressors per group (``f̂_s``), or ``"none"``.
        sensitive_columns: Column indices (or DataFrame names) of ``X`` holding the
            sensitive features, instead of passing ``sensitive_features=``.
        random_state: Seed of the split and of the jitter.

    Attributes:
        estimator_: The fitted base regressor.
        postprocessor_: The fitted :class:`BarycenterPostProcessor`.
        groups_: The group labels seen in ``fit``.
    """

    def __init__(
        self,
        estimator: Any = None,
        *,
        fairness: float = 1.0,
        jitter: float = 1e-5,
        cv: int | Literal["prefit"] | None = None,
        calibration_size: float = 0.5,
        use_sensitive: UseSensitive = "onehot",
        sensitive_columns: list[int] | list[str] | None = None,
        random_state: int | None = 0,
    ) -> None:
        self.estimator = estimator
        self.fairness = fairness
        self.jitter = jitter
        self.cv = cv
        self.calibration_size = calibration_size
        self.use_sensitive = use_sensitive
        self.sensitive_columns = sensitive_columns
        self.random_state = random_state

    # ------------------------------------------------------------- inputs

    def _split_sensitive(self, X: Any, sensitive_features: Any) -> tuple[Any, Any]:
        """``(X without sensitive columns, sensitive features)``."""
        if self.sensitive_columns is None:
            return X, sensitive_features
        if sensitive_features is not None:
            raise ConfigError("give either sensitive_columns or sensitive_features=, not both")
        columns = list(self.sensitive_columns)
        if hasattr(X, "columns") and all(isinstance(c, str) for c in columns):
            missing = [c for c in columns if c not in X.columns]
            if missing:
                raise ConfigError(
                    f"X has no column {missing[0]!r}", hint="sensitive_columns names columns of X"
                )
            return X.drop(columns=columns), X[columns]
        array = np.asarray(X)
        if array.ndim != 2 or not all(isinstance(c, (int, np.integer)) and -array.shape[1] <= c < array.shape[1]
                                      for c in columns):  # fmt: skip
            raise ConfigError(
                f"sensitive_columns {columns} are not column indices of X with shape {array.shape}"
            )
        keep = np.setdiff1d(np.arange(array.shape[1]), np.asarray(columns) % array.shape[1])
        return array[:, keep], array[:, columns]

    def _design(self, X: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """The base regressor's input for ``use_sensitive``."""
        if self.use_sensitive == "onehot":
            return np.hstack([X, np.eye(self.groups_.size)[codes]])
        if self.use_sensitive == "separate":
            return np.hstack([X, codes[:, None].astype(np.float64)])
        return X

    def _base(self) -> Any:
        base = self.estimator if self.estimator is not None else LinearRegression()
        return GroupwiseRegressor(base) if self.use_sensitive == "separate" else clone(base)

    # ---------------------------------------------------------------- fit

    def fit(self, X: Any, y: Any, sensitive_features: Any = None) -> DemographicParityRegressor:
        """Fit the base regressor and the post-processing.

        Args:
            X: Features, ``n × d``.
            y: Targets.
            sensitive_features: Group label(s) per sample (1-d, or 2-d for several
                attributes). ``None`` without ``sensitive_columns``: one group.
        """
        check_fairness(self.fairness)
        if self.use_sensitive not in ("onehot", "separate", "none"):
            raise ConfigError(
                f"use_sensitive must be 'onehot', 'separate' or 'none', got {self.use_sensitive!r}"
            )
        X, sensitive = self._split_sensitive(X, sensitive_features)
        X, y = validate_data(self, X, y, y_numeric=True)
        sensitive = np.zeros(X.shape[0], dtype=np.int64) if sensitive is None else sensitive
        codes, self.groups_ = encode_groups(sensitive, X.shape[0])
        design = self._design(X, codes)
        if self.cv == "prefit":
            if self.estimator is None:
                raise ConfigError("cv='prefit' needs a fitted estimator")
            check_is_fitted(self.estimator)
            self.estimator_ = self.estimator
            calibration, calibration_codes, keys = self.estimator_.predict(design), codes, design
        elif self.cv is None:
            if not 0.0 < self.calibration_size < 1.0:
                raise ConfigError(f"calibration_size must be in (0, 1), got {self.calibration_size!r}")
            index = np.arange(X.shape[0])
            stratify = codes if np.bincount(codes).min() >= 2 else None
            try:
                train, calib = train_test_split(
                    index, test_size=self.calibration_size, random_state=self.random_state, stratify=stratify
                )
            except ValueError as exc:
                raise ConfigError(f"cannot split {X.shape[0]} samples for calibration: {exc}") from None
            self.estimator_ = self._base().fit(design[train], y[train])
            calibration, calibration_codes, keys = (
                self.estimator_.predict(design[calib]),
                codes[calib],
                design[calib],
            )
        elif isinstance(self.cv, (int, np.integer)) and self.cv >= 2:
            folds = KFold(int(self.cv), shuffle=True, random_state=self.random_state)
            calibration = cross_val_predict(self._base(), design, y, cv=folds)
            calibration_codes, keys = codes, design
            self.estimator_ = self._base().fit(design, y)
        else:
            raise ConfigError(f"cv must be None, an integer >= 2 or 'prefit', got {self.cv!r}")
        self.postprocessor_ = BarycenterPostProcessor(
            fairness=self.fairness, jitter=self.jitter, random_state=self.random_state
        ).fit(calibration, self.groups_[calibration_codes], keys=keys)
        return self

    # ------------------------------------------------------------ predict

    def _base_predictions(self, X: Any, sensitive_features: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        check_is_fitted(self, "postprocessor_")
        X, sensitive = self._split_sensitive(X, sensitive_features)
        X = validate_data(self, X, reset=False)
        if sensitive is None:
            if self.groups_.size > 1:
                raise FairnessError(
                    "predict needs sensitive_features: the model was fitted with several groups",
                    hint="pass sensitive_features= (one group label per sample)",
                )
            sensitive = np.zeros(X.shape[0], dtype=np.int64)
        codes = lookup_groups(sensitive, X.shape[0], self.groups_)
        design = self._design(X, codes)
        return self.estimator_.predict(design), codes, design

    def predict_base(self, X: Any, sensitive_features: Any = None) -> np.ndarray:
        """The base regressor's (unfair) predictions ``f̂(x, s)``."""
        return self._base_predictions(X, sensitive_features)[0]

    def predict(self, X: Any, sensitive_features: Any = None, *, fairness: float | None = None) -> np.ndarray:
        """Fair predictions ``(1 − α) f̂ + α ĝ``; ``fairness`` overrides α for this call."""
        base, codes, design = self._base_predictions(X, sensitive_features)
        return self.postprocessor_.transform(base, self.groups_[codes], fairness=fairness, keys=design)
