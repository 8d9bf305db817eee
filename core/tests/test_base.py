from __future__ import annotations

import pickle

import numpy as np
import pytest

from paperzoo.base import BaseEstimator, check_is_fitted, clone
from paperzoo.errors import ConfigError, NotFittedError
from paperzoo.testing import EstimatorContract
from paperzoo.testing.demo_plugin import ShrunkMean


class Pipeline(BaseEstimator):
    def __init__(self, step: BaseEstimator | None = None, scale: float = 1.0) -> None:
        self.step = step
        self.scale = scale

    def fit(self, x: np.ndarray) -> Pipeline:
        assert self.step is not None
        self.step.fit(np.asarray(x) * self.scale)
        self.fitted_ = True
        return self


class Mutating(BaseEstimator):
    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = float(alpha) * 2  # breaks the rules on purpose


def test_get_params_follows_init_signature() -> None:
    est = ShrunkMean(shrinkage=2.0)
    assert est.get_params() == {"prior": 0.0, "shrinkage": 2.0}


def test_nested_params_use_double_underscore() -> None:
    pipe = Pipeline(step=ShrunkMean(shrinkage=1.0), scale=2.0)
    params = pipe.get_params(deep=True)
    assert params["step__shrinkage"] == 1.0
    pipe.set_params(step__shrinkage=5.0, scale=3.0)
    assert pipe.step is not None
    assert pipe.step.shrinkage == 5.0
    assert pipe.scale == 3.0


def test_set_params_rejects_unknown_name_with_valid_names() -> None:
    with pytest.raises(ConfigError, match="no parameter 'alpha'") as info:
        ShrunkMean().set_params(alpha=1)
    assert info.value.hint is not None
    assert "prior, shrinkage" in info.value.hint


def test_clone_is_unfitted_and_deep() -> None:
    inner = ShrunkMean(shrinkage=1.0)
    pipe = Pipeline(step=inner).fit(np.arange(4.0))
    copy = clone(pipe)
    assert copy.step is not inner
    assert isinstance(copy.step, ShrunkMean)
    assert copy.step.shrinkage == 1.0
    assert not hasattr(copy, "fitted_")
    assert not hasattr(copy.step, "mean_")


def test_clone_detects_init_that_changes_params() -> None:
    with pytest.raises(TypeError, match="changes parameter 'alpha'"):
        clone(Mutating(alpha=1.0))


def test_clone_rejects_non_estimator() -> None:
    with pytest.raises(TypeError, match="no get_params"):
        clone(object())  # type: ignore[type-var]


def test_check_is_fitted() -> None:
    est = ShrunkMean()
    with pytest.raises(NotFittedError, match="ShrunkMean is not fitted yet"):
        est.predict(3)
    est.fit(np.array([1.0, 3.0]))
    check_is_fitted(est)
    check_is_fitted(est, "mean_")
    with pytest.raises(NotFittedError):
        check_is_fitted(est, ["mean_", "missing_"])


def test_shrunk_mean_closed_form() -> None:
    est = ShrunkMean(shrinkage=2.0, prior=10.0).fit(np.array([1.0, 2.0, 3.0]))
    assert est.mean_ == pytest.approx((6.0 + 20.0) / 5.0)


def test_repr_shows_only_non_defaults() -> None:
    assert repr(ShrunkMean()) == "ShrunkMean()"
    assert repr(ShrunkMean(prior=1.5)) == "ShrunkMean(prior=1.5)"


def test_fitted_estimator_pickles() -> None:
    est = ShrunkMean(shrinkage=1.0).fit(np.arange(5.0))
    assert pickle.loads(pickle.dumps(est)).mean_ == est.mean_


def test_compatible_with_sklearn_clone() -> None:
    sklearn_base = pytest.importorskip("sklearn.base")
    copy = sklearn_base.clone(ShrunkMean(shrinkage=3.0))
    assert copy.get_params() == {"prior": 0.0, "shrinkage": 3.0}


class TestShrunkMeanContract(EstimatorContract):
    def make_estimator(self) -> ShrunkMean:
        return ShrunkMean(shrinkage=0.5, prior=1.0)

    def fit_args(self) -> tuple[np.ndarray]:
        return (np.linspace(0.0, 1.0, 7),)


def test_contract_catches_a_rule_breaker() -> None:
    """The contract is not vacuous: it fails for an estimator that mutates its input."""

    class Destructive(BaseEstimator):
        def __init__(self, k: int = 1) -> None:
            self.k = k

        def fit(self, x: np.ndarray) -> Destructive:
            x *= 2
            self.total_ = float(x.sum())
            return self

    class Contract(EstimatorContract):
        def make_estimator(self) -> Destructive:
            return Destructive()

        def fit_args(self) -> tuple[np.ndarray]:
            return (np.ones(3),)

    with pytest.raises(AssertionError, match="fit arguments"):
        Contract().test_fit_does_not_mutate_inputs()


def test_estimators_satisfy_the_protocol() -> None:
    from paperzoo import Estimator

    assert isinstance(ShrunkMean(), Estimator)
    assert not isinstance(object(), Estimator)


class _Scorer:
    """A parameter object without ``__eq__`` (compared by its state)."""

    def __init__(self, weights: np.ndarray) -> None:
        self.weights = weights


class _UsesScorer(BaseEstimator):
    def __init__(self, scorer: _Scorer | None = None, spoil: bool = False) -> None:
        self.scorer = scorer
        self.spoil = spoil

    def fit(self, x: np.ndarray) -> _UsesScorer:
        if self.spoil:
            self.scorer.weights = self.scorer.weights + 1  # type: ignore[union-attr]
        self.mean_ = float(np.mean(x))
        return self


@pytest.mark.parametrize("spoil", [False, True])
def test_parameter_objects_without_eq_are_compared_by_state(spoil: bool) -> None:
    class Contract(EstimatorContract):
        def make_estimator(self) -> _UsesScorer:
            return _UsesScorer(_Scorer(np.arange(3.0)), spoil=spoil)

        def fit_args(self) -> tuple[np.ndarray]:
            return (np.ones(3),)

    if spoil:
        with pytest.raises(AssertionError, match="fit modified a parameter"):
            Contract().test_fit_does_not_change_params()
    else:
        Contract().test_fit_does_not_change_params()  # a deep-copied scorer with equal state is equal


@pytest.mark.parametrize(
    ("kwargs", "value", "message"),
    [
        ({"low": 1}, 0, "epochs must be an integer ≥ 1, got 0"),
        ({"low": 1}, 2.5, "epochs must be an integer ≥ 1, got 2.5"),
        ({"low": 1}, True, "epochs must be an integer ≥ 1, got True"),
        ({"low": 0, "high": 9}, 10, r"epochs must be an integer in \[0, 9\], got 10"),
        ({"high": 9, "owner": "GRACE"}, "3", "GRACE: epochs must be an integer ≤ 9, got '3'"),
        ({"low": 1, "allow_none": True}, -1, "epochs must be an integer ≥ 1 or None, got -1"),
    ],
)
def test_check_int_rejects_in_one_line(kwargs: dict, value: object, message: str) -> None:
    from paperzoo import check_int

    with pytest.raises(ConfigError, match=f"^{message}$"):
        check_int("epochs", value, **kwargs)


def test_check_int_accepts_numpy_integers_and_returns_int() -> None:
    from paperzoo import check_int

    out = check_int("n", np.int64(3), low=1, high=3)
    assert out == 3 and type(out) is int
    assert check_int("n", None, allow_none=True) is None


@pytest.mark.parametrize(
    ("kwargs", "value", "message"),
    [
        ({"low": 0.0, "low_open": True}, 0.0, "tau must be a number > 0.0, got 0.0"),
        ({"low": 0.0, "high": 1.0, "high_open": True}, 1.0, r"tau must be a number in \[0.0, 1.0\), got 1.0"),
        ({"low": 0.0, "high": 1.0, "low_open": True}, 0, r"tau must be a number in \(0.0, 1.0\], got 0"),
        ({"high": 1.0}, float("nan"), "tau must be a number ≤ 1.0, got nan"),
        ({}, False, "tau must be a number, got False"),
        ({"high": 1.0, "high_open": True}, "x", "tau must be a number < 1.0, got 'x'"),
        ({"low": 0.0, "allow_none": True}, -1, "tau must be a number ≥ 0.0 or None, got -1"),
        ({}, None, "tau must be a number, got None"),
    ],
)
def test_check_number_rejects_in_one_line(kwargs: dict, value: object, message: str) -> None:
    from paperzoo import check_number

    with pytest.raises(ConfigError, match=f"^{message}$"):
        check_number("tau", value, **kwargs)


def test_check_number_accepts_ints_and_numpy_floats() -> None:
    from paperzoo import check_number

    assert check_number("x", 1, low=0.0, low_open=True) == 1.0
    out = check_number("x", np.float32(0.5), low=0.0, high=1.0)
    assert out == 0.5 and type(out) is float
    assert check_number("x", None, low=0.0, allow_none=True) is None
