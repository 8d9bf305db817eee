"""The budget optimisers against brute force and closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperzoo.errors import ConfigError
from paperzoo_elbf.optimise import (
    ScoreCurve,
    bloom_bits,
    bloom_fpr,
    ensemble_fpr,
    optimise_correlated,
    optimise_independent,
    optimise_lbf,
    optimise_plbf,
    optimise_sandwich,
    optimise_shared,
)


def _scores(seed: int = 0, n: int = 400, h: int = 2_000, m: int = 2, rho: float = 0.0):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    shared = rng.standard_normal(n + h)
    noise = np.sqrt(rho) * shared[:, None] + np.sqrt(1 - rho) * rng.standard_normal((n + h, m))
    scores = noise + np.r_[np.full(n, 1.5), np.zeros(h)][:, None] * np.array([1.0, 1.4][:m])
    return scores[:n], scores[n:]


def test_bloom_fpr_is_the_optimal_filter_formula_and_bloom_bits_inverts_it() -> None:
    assert bloom_fpr(8_000, 1_000) == pytest.approx(0.6185**8, rel=1e-3)
    assert bloom_fpr(0, 10) == 1.0 and bloom_fpr(100, 0) == 0.0 and bloom_fpr(0, 0) == 0.0
    bits = np.array([10.0, 500.0, 4_000.0])
    np.testing.assert_allclose(bloom_bits(bloom_fpr(bits, 700), 700), bits)
    assert bloom_bits(1.0, 50) == 0.0 and bloom_bits(0.01, 0) == 0.0


def test_score_curve_counts_pass_rates_and_rejected_keys_exactly() -> None:
    keys, held = _scores()
    curve = ScoreCurve.from_scores(keys[:, 0], held[:, 0], n_thresholds=64)
    assert curve.thresholds[0] == -np.inf and curve.thresholds[-1] == np.inf
    for t in (0, 5, 30, len(curve.thresholds) - 1):
        tau = curve.thresholds[t]
        assert curve.pass_rate[t] == pytest.approx(np.mean(held[:, 0] >= tau))
        assert curve.rejected[t] == np.sum(keys[:, 0] < tau)
    with pytest.raises(ConfigError, match="finite"):
        ScoreCurve.from_scores(np.array([np.nan]), np.array([0.0]))


def test_lbf_plan_is_the_brute_force_minimum() -> None:
    keys, held = _scores()
    curve = ScoreCurve.from_scores(keys[:, 0], held[:, 0])
    plan = optimise_lbf(curve, 2_400, 400)
    assert plan is not None and plan.backup_bits == 2_000
    brute = min(
        np.mean(held[:, 0] >= tau)
        + (1 - np.mean(held[:, 0] >= tau)) * bloom_fpr(2_000, np.sum(keys[:, 0] < tau))
        for tau in curve.thresholds
    )
    assert plan.fpr == pytest.approx(brute)
    assert optimise_lbf(curve, 300, 400) is None


def test_sandwich_never_loses_to_the_plain_lbf() -> None:
    keys, held = _scores(1)
    curve = ScoreCurve.from_scores(keys[:, 0], held[:, 0])
    for budget in (800, 2_000, 4_000):
        lbf, sandwich = optimise_lbf(curve, budget, 100), optimise_sandwich(curve, budget, 100)
        assert sandwich is not None and lbf is not None
        assert sandwich.fpr <= lbf.fpr + 1e-12  # b₀ = 0 is one of its splits
        assert sandwich.initial_bits + sandwich.backup_bits == budget - 100


def test_plbf_meets_the_budget_with_fprs_proportional_to_key_density() -> None:
    keys, held = _scores(2)
    plan = optimise_plbf(keys[:, 0], held[:, 0], 3_000, 200, n_regions=8, boundary_bits=32)
    assert plan is not None
    assert plan.region_bits.sum() <= 3_000 - 200 - 7 * 32
    inner = (plan.region_fpr > 0) & (plan.region_fpr < 1)
    region_keys = np.bincount(np.searchsorted(plan.boundaries, keys[:, 0], side="right"), minlength=8)
    region_non = np.bincount(np.searchsorted(plan.boundaries, held[:, 0], side="right"), minlength=8)
    ratio = plan.region_fpr[inner] / (region_keys[inner] / region_non[inner])
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-6)  # f_i = λ n_i / g_i, one λ


def _brute_independent(curves, sizes, budget, units):  # type: ignore[no-untyped-def]
    step = budget / units
    best = math.inf
    for u1 in range(units + 1):
        for u2 in range(units + 1 - u1):
            terms = []
            for curve, z, u in zip(curves, sizes, (u1, u2)):
                b = math.floor(u * step - z)
                if u == 0:
                    terms.append(np.array([1.0]))  # oracle unused
                elif b >= 0:
                    terms.append(curve.pass_rate + (1 - curve.pass_rate) * bloom_fpr(b, curve.rejected))
                else:
                    terms.append(np.array([np.inf]))
            value = terms[0].min() * terms[1].min()
            if value < 1:
                best = min(best, value)
    return best


def test_independent_dp_is_the_exact_optimum_of_its_discretised_problem() -> None:
    keys, held = _scores(3)
    curves = [ScoreCurve.from_scores(keys[:, j], held[:, j], n_thresholds=32) for j in range(2)]
    for budget in (1_500, 3_000, 5_000):
        plan = optimise_independent(curves, [300, 700], budget, units=40)
        assert plan is not None
        assert plan.fpr == pytest.approx(_brute_independent(curves, [300, 700], budget, 40), rel=1e-9)
        assert sum(plan.backup_bits) + sum([300, 700][j] for j in plan.oracles) <= budget


def test_groups_allow_one_oracle_each_and_use_all_groups_forces_both() -> None:
    keys, held = _scores(4)
    curves = [ScoreCurve.from_scores(keys[:, j], held[:, j]) for j in (0, 1, 1)]
    plan = optimise_independent(curves, [100, 100, 200], 6_000, groups=[0, 1, 1])
    assert plan is not None and not {1, 2} <= set(plan.oracles)
    forced = optimise_independent(curves, [100, 100, 200], 600, groups=[0, 1, 1], use_all_groups=True)
    assert forced is not None and len(forced.oracles) == 2
    assert optimise_independent(curves, [100, 100, 200], 150, groups=[0, 1, 1], use_all_groups=True) is None


def test_ensemble_fpr_is_the_mean_of_the_per_item_products() -> None:
    s = np.array([[0.0, 1.0], [2.0, 2.0], [0.0, 0.0]])
    # item 1: passes oracle 2 only → ε₁; item 2: both → 1; item 3: neither → ε₁ε₂
    assert ensemble_fpr(s, [1.0, 1.0], [0.1, 0.2]) == pytest.approx((0.1 + 1.0 + 0.02) / 3)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 0.95), st.integers(1_500, 6_000))
def test_correlated_optimiser_is_never_worse_than_the_independent_plan(
    seed: int, rho: float, budget: int
) -> None:
    keys, held = _scores(seed, n=300, h=1_500, rho=rho)
    curves = [ScoreCurve.from_scores(keys[:, j], held[:, j], n_thresholds=48) for j in range(2)]
    sizes = [200, 300]
    independent = optimise_independent(curves, sizes, budget, units=64)
    correlated = optimise_correlated(curves, held, sizes, budget, units=64)
    assert independent is not None and correlated is not None
    cols = list(independent.oracles)
    eps = [float(bloom_fpr(b, curves[c].rejected[np.searchsorted(curves[c].thresholds, t)]))
           for c, t, b in zip(cols, independent.thresholds, independent.backup_bits)]  # fmt: skip
    assert correlated.fpr <= ensemble_fpr(held[:, cols], independent.thresholds, eps) + 1e-12
    assert sum(correlated.backup_bits) + sum(sizes[c] for c in correlated.oracles) <= budget


def test_correlated_rejects_a_score_matrix_of_the_wrong_width() -> None:
    keys, held = _scores()
    curves = [ScoreCurve.from_scores(keys[:, 0], held[:, 0])]
    with pytest.raises(ConfigError, match="one column per oracle"):
        optimise_correlated(curves, held, [10], 1_000)


def test_the_ensemble_gain_shrinks_as_the_oracles_correlate() -> None:
    gains = []
    for rho in (0.0, 0.9):
        keys, held = _scores(5, n=1_000, h=20_000, rho=rho)
        curves = [ScoreCurve.from_scores(keys[:, j], held[:, j]) for j in range(2)]
        single = min(p.fpr for c in curves if (p := optimise_lbf(c, 6_000, 300)) is not None)
        both = optimise_correlated(curves, held, [300, 300], 6_000, min_oracles=2)
        assert both is not None
        gains.append(single / both.fpr)
    assert gains[0] > 1.2 > gains[1]


def test_shared_backup_thresholds_never_worsen_the_start_and_report_their_fpr() -> None:
    keys, held = _scores(6)
    curves = [ScoreCurve.from_scores(keys[:, j], held[:, j], n_thresholds=32) for j in range(2)]

    def fpr(taus: tuple[float, ...]) -> float:
        all_pass = np.mean((held >= np.array(taus)).all(axis=1))
        rejected = np.sum(~(keys >= np.array(taus)).all(axis=1))
        return float(all_pass + (1 - all_pass) * bloom_fpr(2_000, rejected))

    start = (float(curves[0].thresholds[5]), float(curves[1].thresholds[20]))
    taus, value = optimise_shared(curves, keys, held, 2_000, start)
    assert value == pytest.approx(fpr(taus))
    assert value <= fpr(start) + 1e-12
