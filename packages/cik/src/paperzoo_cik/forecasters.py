"""Forecasters with one interface: ``forecast(instance) -> samples`` of shape (n_samples, horizon).

Statistical baselines of Williams et al. (ICML 2025, §5 and App. D), 25 sample paths each:

* ``ExpSmoothing``: statsmodels Holt-Winters, additive trend and additive seasonality;
  trend off with fewer than 5 history points, seasonality off with fewer than two full
  periods (or no period); paths from ``simulate(anchor="end")``.
* ``ETS``: statsmodels ``ETSModel`` with components chosen by AICc — it approximates
  R's ``forecast::ets(model="ZZZ")`` used by the paper (multiplicative error only for
  positive histories, no multiplicative trend or season).
* ``ARIMA``: statsmodels ARIMA, d by repeated KPSS tests (as auto.arima), (p, q) ≤ 2 by
  AICc, constant/drift when d ≤ 1; non-seasonal. The paper used R's ``auto.arima``.
* ``Naive`` / ``SeasonalNaive``: random walk (seasonal) with Gaussian steps of the
  history's (seasonal) difference scale; ``RandomReference``: uniform on the history's
  range; ``Oracle``: the true future repeated (scores 0).

A fit error never passes silently: the forecaster falls back to a simpler model and
records the instance in ``fallbacks_`` (key → reason), which experiments report.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from paperzoo.base import BaseEstimator
from paperzoo.errors import ConfigError
from paperzoo.settings import Setting

if TYPE_CHECKING:
    from paperzoo_cik.tasks import TaskInstance

__all__ = [
    "ARIMA",
    "ETS",
    "FORECASTERS",
    "NAMES",
    "ExpSmoothing",
    "Forecaster",
    "Naive",
    "Oracle",
    "RandomReference",
    "SeasonalNaive",
    "make_forecaster",
]


class Forecaster(BaseEstimator):
    """Base class: ``n_samples`` paths per instance, randomness from ``seed`` and the instance key.

    Follows the estimator rules (``get_params``, ``clone``); there is nothing to fit, and
    ``fallbacks_`` (instance key → why a fit fell back to the naive forecaster) is
    filled by :meth:`forecast`.
    """

    name = "forecaster"
    _parameters: ClassVar[Mapping[str, Setting]] = {
        "n_samples": Setting(low=2, help="the unbiased CRPS needs 2"),
        "seed": Setting(low=0),
    }
    """Allowed values of the parameters, checked by :meth:`forecast` before any work."""

    def __init__(self, n_samples: int = 25, seed: int = 0):
        self.n_samples = n_samples
        self.seed = seed

    def _rng(self, instance: TaskInstance) -> np.random.Generator:
        key = [self.seed, instance.seed, *instance.task.encode()]
        return np.random.default_rng(key)

    def forecast(self, instance: TaskInstance) -> np.ndarray:
        """(n_samples, horizon) sample paths for ``instance``."""
        self._validate_params()
        if not hasattr(self, "fallbacks_"):
            self.fallbacks_: dict[str, str] = {}
        out = np.asarray(self._forecast(instance, self._rng(instance)), dtype=float)
        if out.shape != (self.n_samples, instance.horizon):
            raise ConfigError(
                f"{self.name} returned {out.shape}, expected {(self.n_samples, instance.horizon)}"
            )
        return out

    def _forecast(self, instance: TaskInstance, rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def _fallback(self, instance: TaskInstance, reason: str) -> np.ndarray:
        self.fallbacks_[instance.key] = reason
        return Naive(self.n_samples)._forecast(instance, self._rng(instance))

    def _simulated(self, fit, instance: TaskInstance, rng: np.random.Generator, label: str) -> np.ndarray:
        """(n_samples, horizon) paths of a statsmodels fit, ``simulate(anchor="end")``; naive if that fails."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                paths = fit.simulate(
                    instance.horizon, anchor="end", repetitions=self.n_samples, **_random(fit, rng)
                )
        except (ValueError, np.linalg.LinAlgError) as err:
            return self._fallback(instance, f"{label} simulate: {err}")
        paths = np.asarray(paths, dtype=float).reshape(instance.horizon, self.n_samples).T
        if not np.isfinite(paths).all():
            return self._fallback(instance, f"{label}: non-finite simulated paths")
        return paths


class Oracle(Forecaster):
    """The true future, repeated: RCRPS 0 up to rounding."""

    name = "oracle"

    def _forecast(self, instance, rng):
        return np.repeat(instance.future_values[None, :], self.n_samples, axis=0)


class RandomReference(Forecaster):
    """Independent uniform draws on [min, max] of the history at every step."""

    name = "random"

    def _forecast(self, instance, rng):
        y = instance.past_values
        return rng.uniform(np.nanmin(y), np.nanmax(y), size=(self.n_samples, instance.horizon))


def _diff_scale(y: np.ndarray, lag: int) -> float:
    d = y[lag:] - y[:-lag]
    return float(np.std(d)) if len(d) > 1 else float(np.std(y))


class Naive(Forecaster):
    """Random walk from the last value: X_h = y_T + Σ_{k≤h} ε_k, ε ~ N(0, sd(Δy)²)."""

    name = "naive"

    def _forecast(self, instance, rng):
        y = instance.past_values
        steps = rng.normal(0.0, _diff_scale(y, 1), size=(self.n_samples, instance.horizon))
        return y[-1] + np.cumsum(steps, axis=1)


class SeasonalNaive(Forecaster):
    """X_h = y_{T−m+(h mod m)} + √(⌊h/m⌋+1)·ε, ε ~ N(0, sd(Δ_m y)²); naive without a usable period m."""

    name = "seasonal-naive"

    def _forecast(self, instance, rng):
        y, m, H = instance.past_values, instance.seasonal_period, instance.horizon
        if m <= 1 or len(y) < m + 2:
            return Naive(self.n_samples)._forecast(instance, rng)
        h = np.arange(H)
        point = y[len(y) - m + (h % m)]
        scale = _diff_scale(y, m) * np.sqrt(h // m + 1)
        return point + rng.normal(size=(self.n_samples, H)) * scale


def _period(instance: TaskInstance) -> int | None:
    m = instance.seasonal_period
    return m if m > 1 and len(instance.past_values) >= 2 * m else None


class ExpSmoothing(Forecaster):
    """Holt-Winters (additive trend and season) as in the paper's ``Exp-Smoothing`` baseline."""

    name = "exp-smoothing"

    def _forecast(self, instance, rng):
        from statsmodels.tsa.holtwinters import ExponentialSmoothing

        y = instance.past_values
        m = _period(instance)
        trend = "add" if len(y) >= 5 else None
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = ExponentialSmoothing(
                    y, trend=trend, seasonal="add" if m else None, seasonal_periods=m
                )
                fit = model.fit()
        except (ValueError, np.linalg.LinAlgError) as err:
            return self._fallback(instance, f"Holt-Winters: {err}")
        return self._simulated(fit, instance, rng, "Holt-Winters")


def _random(fit, rng: np.random.Generator) -> dict:
    """The randomness keyword of ``fit.simulate``: ``rng`` (statsmodels ≥ 0.15) or a ``RandomState`` (0.14)."""
    seed = int(rng.integers(2**31))
    if "rng" in inspect.signature(fit.simulate).parameters:
        return {"rng": np.random.default_rng(seed)}
    return {"random_state": np.random.RandomState(seed)}


def _aicc(fit, n: int) -> float:
    k = len(fit.params)
    return fit.aic + (2 * k * (k + 1) / (n - k - 1) if n - k - 1 > 0 else np.inf)


class ETS(Forecaster):
    """ETS with components by AICc (statsmodels ``ETSModel``), approximating R's ``ets(model="ZZZ")``."""

    name = "ets"

    def _candidates(self, y: np.ndarray, m: int | None):
        errors = ["add", "mul"] if (y > 0).all() else ["add"]
        trends = [(None, False)] + ([("add", False), ("add", True)] if len(y) >= 5 else [])
        seasons = [None] + (["add"] if m else [])
        for e in errors:
            for t, damped in trends:
                for s in seasons:
                    yield e, t, damped, s

    def _forecast(self, instance, rng):
        from statsmodels.tsa.exponential_smoothing.ets import ETSModel

        y = instance.past_values
        m = _period(instance)
        best, best_score, errors = None, np.inf, []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for e, t, damped, s in self._candidates(y, m):
                try:
                    model = ETSModel(y, error=e, trend=t, damped_trend=damped, seasonal=s, seasonal_periods=m)
                    fit = model.fit(disp=False)
                    score = _aicc(fit, len(y))
                except (ValueError, np.linalg.LinAlgError) as err:
                    errors.append(str(err))
                    continue
                if np.isfinite(score) and score < best_score:
                    best, best_score = fit, score
            if best is None and errors == [] and len(y) >= 2:  # every AICc infinite: too short, take ANN
                best = ETSModel(y, error="add").fit(disp=False)
        if best is None:
            return self._fallback(instance, f"ETS: no candidate fitted ({errors[:1]})")
        return self._simulated(best, instance, rng, "ETS")


def _ndiffs(y: np.ndarray, max_d: int = 2) -> int:
    """Number of differences by repeated KPSS level tests at 5 % (auto.arima's default)."""
    from statsmodels.tsa.stattools import kpss

    d = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        while d < max_d and len(y) > 4 and np.ptp(y) > 0:
            if kpss(y, regression="c", nlags="auto")[1] >= 0.05:
                break
            y, d = np.diff(y), d + 1
    return d


class ARIMA(Forecaster):
    """Non-seasonal ARIMA(p, d, q), d by KPSS, p, q ≤ ``max_order`` by AICc (statsmodels)."""

    name = "arima"
    _parameters: ClassVar[Mapping[str, Setting]] = {**Forecaster._parameters, "max_order": Setting(low=0)}

    def __init__(self, n_samples: int = 25, seed: int = 0, max_order: int = 2):
        super().__init__(n_samples, seed)
        self.max_order = max_order

    def _forecast(self, instance, rng):
        from statsmodels.tsa.arima.model import ARIMA as SMARIMA

        y = instance.past_values
        d = _ndiffs(y)
        best, best_score = None, np.inf
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for p in range(self.max_order + 1):
                for q in range(self.max_order + 1):
                    if p + q + 2 + d >= len(y):
                        continue
                    trend = "c" if d == 0 else "t" if d == 1 else "n"
                    try:
                        fit = SMARIMA(y, order=(p, d, q), trend=trend).fit()
                        score = _aicc(fit, len(y) - d)
                    except (ValueError, np.linalg.LinAlgError):
                        continue
                    if np.isfinite(score) and score < best_score:
                        best, best_score = fit, score
        if best is None:
            return self._fallback(instance, f"ARIMA: no order fitted on {len(y)} points")
        return self._simulated(best, instance, rng, "ARIMA")


FORECASTERS: dict[str, type[Forecaster]] = {
    cls.name: cls for cls in (Oracle, RandomReference, Naive, SeasonalNaive, ExpSmoothing, ETS, ARIMA)
}


#: Every forecaster name ``make_forecaster`` knows: the above and the LLM's ``direct-prompt``.
NAMES = (*FORECASTERS, "direct-prompt")


def make_forecaster(name: str, **kwargs) -> Forecaster:
    """A forecaster by name (``"ets"``, ``"arima"``, ``"direct-prompt"``, ...) with its options."""
    if name == "direct-prompt":
        from paperzoo_cik.direct_prompt import DirectPrompt

        return DirectPrompt(**kwargs)
    if name not in FORECASTERS:
        raise ConfigError(f"unknown forecaster {name!r}", hint=f"choose one of {', '.join(NAMES)}")
    return FORECASTERS[name](**kwargs)
