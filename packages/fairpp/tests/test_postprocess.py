"""The barycenter post-processing against exact cases."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperzoo.errors import ConfigError
from paperzoo_fairpp.groups import FairnessError
from paperzoo_fairpp.metrics import ks_unfairness
from paperzoo_fairpp.postprocess import BarycenterPostProcessor, hash_uniform


def test_two_shifted_groups_meet_at_the_weighted_mean() -> None:
    """Group 1's predictions are group 0's + 10: the barycenter is their w-average."""
    base = np.linspace(0.0, 1.0, 1001)
    pred = np.concatenate([base, base + 10.0])
    groups = np.repeat([0, 1], base.size)
    fair = BarycenterPostProcessor(jitter=0.0).fit(pred, groups).transform(pred, groups)
    np.testing.assert_allclose(fair[: base.size], base + 5.0, atol=2e-3)
    np.testing.assert_allclose(fair[base.size :], base + 5.0, atol=2e-3)


def test_group_weights_enter_the_barycenter() -> None:
    base = np.linspace(0.0, 1.0, 501)
    pred = np.concatenate([base, base, base, base + 8.0])  # 3/4 in group a, 1/4 in group b
    groups = np.array(["a"] * (3 * base.size) + ["b"] * base.size)
    pp = BarycenterPostProcessor(jitter=0.0).fit(pred, groups)
    np.testing.assert_allclose(pp.weights_, [0.75, 0.25])
    np.testing.assert_allclose(pp.transform(base, ["a"] * base.size), base + 2.0, atol=3e-3)


def test_gaussian_groups_follow_the_closed_form_map() -> None:
    """N(m_s, σ_s²) groups: g = m̄ + (σ̄/σ_s)(f − m_s)."""
    rng = np.random.default_rng(0)
    m, sigma, w = np.array([0.0, 3.0]), np.array([1.0, 2.0]), np.array([0.5, 0.5])
    n = 200_000
    groups = rng.integers(0, 2, n)
    pred = m[groups] + sigma[groups] * rng.normal(size=n)
    pp = BarycenterPostProcessor().fit(pred, groups)
    probe = np.array([-1.0, 0.0, 1.0])
    expected = w @ m + (w @ sigma) / sigma[0] * (probe - m[0])
    np.testing.assert_allclose(pp.transform(probe, [0, 0, 0]), expected, atol=0.02)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 4))
def test_fair_predictions_have_nearly_equal_distributions(seed: int, n_groups: int) -> None:
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, 12_000)
    pred = rng.normal(groups * 2.0, 1.0 + groups)
    calib, test = slice(0, 6_000), slice(6_000, 12_000)
    pp = BarycenterPostProcessor().fit(pred[calib], groups[calib])
    before = ks_unfairness(pred[test], groups[test])
    after = ks_unfairness(pp.transform(pred[test], groups[test]), groups[test])
    # two finite samples of ~1,500 per group: the KS noise floor is about 1.36·sqrt(2/1500) ≈ 0.05
    assert after < 0.12
    assert before > 0.5


def test_fairness_level_interpolates_linearly() -> None:
    rng = np.random.default_rng(1)
    groups = rng.integers(0, 2, 2000)
    pred = rng.normal(groups, 1.0)
    pp = BarycenterPostProcessor().fit(pred, groups)
    full = pp.transform(pred, groups, fairness=1.0)
    half = pp.transform(pred, groups, fairness=0.5)
    np.testing.assert_allclose(pp.transform(pred, groups, fairness=0.0), pred)
    np.testing.assert_allclose(half, 0.5 * pred + 0.5 * full)


def test_output_does_not_depend_on_order_or_batch() -> None:
    rng = np.random.default_rng(2)
    groups = rng.integers(0, 2, 500)
    pred = np.round(rng.normal(groups, 1.0), 1)  # many ties
    pp = BarycenterPostProcessor().fit(pred, groups)
    full = pp.transform(pred, groups)
    order = rng.permutation(500)
    np.testing.assert_array_equal(pp.transform(pred[order], groups[order]), full[order])
    np.testing.assert_array_equal(pp.transform(pred[:10], groups[:10]), full[:10])


def test_jitter_breaks_ties_in_calibration() -> None:
    pred = np.array([1.0] * 100 + [2.0] * 100)
    groups = np.array([0] * 100 + [1] * 100)
    pp = BarycenterPostProcessor().fit(pred, groups)
    assert len(np.unique(pp.quantiles_[0])) == 100
    assert np.abs(pp.quantiles_[0] - 1.0).max() <= 1e-5


def test_hash_uniform_is_uniform_and_deterministic() -> None:
    keys = np.arange(100_000, dtype=float)[:, None]
    u = hash_uniform(keys, seed=3)
    assert u.min() >= 0.0 and u.max() < 1.0
    assert np.histogram(u, bins=10, range=(0, 1))[0].min() > 9_500
    np.testing.assert_array_equal(u, hash_uniform(keys, seed=3))
    assert not np.array_equal(u, hash_uniform(keys, seed=4))


def test_bad_inputs() -> None:
    pp = BarycenterPostProcessor().fit([0.0, 1.0, 2.0, 3.0], ["a", "a", "b", "b"])
    with pytest.raises(FairnessError, match="groups not seen in fit: 'c'"):
        pp.transform([1.0], ["c"])
    with pytest.raises(FairnessError, match="3 rows but there are 2 samples"):
        pp.transform([1.0, 2.0], ["a", "a", "b"])
    with pytest.raises(FairnessError, match="1 missing values"):
        pp.transform([1.0, 2.0], ["a", None])
    with pytest.raises(ConfigError, match="NaN or infinite"):
        pp.transform([np.nan], ["a"])
    with pytest.raises(ConfigError, match=r"fairness must be in \[0, 1\]"):
        pp.transform([1.0], ["a"], fairness=1.5)
    with pytest.raises(ConfigError, match="jitter must be"):
        BarycenterPostProcessor(jitter=-1).fit([1.0], ["a"])
