"""CRPS against properscoring, RCRPS on hand-computed cases, the capped weighted aggregate."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from paperzoo.errors import ConfigError
from paperzoo_cik.metrics import aggregate, crps, rcrps
from paperzoo_cik.tasks import Constraint


@pytest.mark.parametrize("n", [2, 5, 25, 100])
def test_crps_equals_properscoring_after_bias_correction(n: int) -> None:
    """properscoring's ensemble CRPS is the biased (energy) form: E|X−y| − ½E|X−X'| with 1/n².

    The unbiased form uses 1/(n(n−1)) for the spread term, so
    unbiased = biased − ½ (1/(n(n−1)) − 1/n²) Σ_{i,j}|x_i − x_j|.
    """
    ps = pytest.importorskip("properscoring")
    rng = np.random.default_rng(n)
    samples = rng.normal(size=(n, 40)) * rng.uniform(0.1, 5, size=40) + rng.normal(size=40)
    target = rng.normal(size=40) * 2
    biased = ps.crps_ensemble(target, samples.T)
    spread = np.abs(samples[:, None, :] - samples[None, :, :]).sum(axis=(0, 1))
    unbiased = biased - 0.5 * (1 / (n * (n - 1)) - 1 / n**2) * spread
    np.testing.assert_allclose(crps(samples, target), unbiased, rtol=0, atol=1e-9)


def test_crps_is_the_fair_energy_form() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.exponential(size=(25, 7)), rng.normal(size=7)
    n = len(x)
    fair = np.abs(x - y).mean(0) - np.abs(x[:, None] - x[None]).sum((0, 1)) / (2 * n * (n - 1))
    np.testing.assert_allclose(crps(x, y), fair, atol=1e-12)


def test_crps_batches_over_leading_axes() -> None:
    rng = np.random.default_rng(2)
    x, y = rng.normal(size=(3, 10, 4)), rng.normal(size=4)
    np.testing.assert_allclose(crps(x, y), np.stack([crps(b, y) for b in x]))


def test_crps_of_a_point_mass_is_the_absolute_error() -> None:
    np.testing.assert_allclose(crps(np.full((25, 3), 2.0), [1.0, 2.0, 5.0]), [1.0, 0.0, 3.0])


def test_rcrps_weights_roi_and_rest_by_half_and_scales() -> None:
    # two samples {0, 2} per step: CRPS = mean|X−x| + 1 − 2·2/2 = mean|X−x| − 1
    x = np.array([[0.0, 0.0, 0.0, 0.0], [2.0, 2.0, 2.0, 2.0]])
    y = np.array([1.0, 1.0, 3.0, 5.0])  # per-step CRPS: 0, 0, 1, 3
    assert rcrps(x, y) == pytest.approx(1.0)
    # ROI {2}: ½·1 + ½·mean(0, 0, 3) = 1.0; ROI {3}: ½·3 + ½·mean(0, 0, 1) = 5/3
    assert rcrps(x, y, region_of_interest=[2]) == pytest.approx(1.0)
    assert rcrps(x, y, region_of_interest=[3], scaling=0.5) == pytest.approx(0.5 * 5 / 3)


def test_rcrps_constraint_penalty_by_hand() -> None:
    # max 1 on every step; sample 0 = 0 (v=0), sample 1 = 2 (v = α·1 = 0.5)
    x = np.array([[0.0, 0.0], [2.0, 2.0]])
    y = np.array([0.0, 0.0])
    alpha = 0.5
    base = alpha * crps(x, y).mean()  # per-step CRPS: 1 + 1 − 2 = 0 → wait: |0|+|2| /2 = 1, +1, −2 → 0
    penalty = crps(np.array([[0.0], [10 * 0.5]]), [0.0])[0]  # = ½·5 + 2.5 − 5 = 0
    assert base == pytest.approx(0.0) and penalty == pytest.approx(0.0)
    # three samples make the penalty visible: v = (0, 0.5, 0.5) → {0, 5, 5}: 10/3 + 10/3 − 2·(5+10)/6 = 5/3
    x3 = np.array([[0.0, 0.0], [2.0, 2.0], [2.0, 2.0]])
    got = rcrps(x3, y, scaling=alpha, constraints=[Constraint("max", 1.0)])
    expected = alpha * crps(x3, y).mean() + 5 / 3
    assert got == pytest.approx(expected)
    # a minimum constraint flips the sign; per-step bounds average over their steps only
    low = rcrps(-x3, y, scaling=alpha, constraints=[Constraint("min", -1.0)])
    assert low == pytest.approx(expected)
    step = rcrps(x3, y, scaling=alpha, constraints=[Constraint("max", (1.0,), (0,))])
    assert step == pytest.approx(expected)


def test_aggregate_caps_at_five_and_uses_task_weights() -> None:
    agg = aggregate(
        [1.0, 9.0, float("nan")], [Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)], [0.04, 1.0, 1.0]
    )
    assert agg.score == pytest.approx((0.5 * 1 + 0.25 * 5 + 0.25 * 5) / 1.0)
    assert agg.stderr == pytest.approx(np.sqrt(0.25 * 0.04))
    assert agg.n_capped == 2


def test_aggregate_rejects_mismatched_weights() -> None:
    with pytest.raises(ConfigError, match="one weight per score"):
        aggregate([1.0, 2.0], [1.0])


def test_rcrps_instance_rejects_wrong_shape_in_one_line() -> None:
    from paperzoo_cik.metrics import check_samples

    with pytest.raises(ConfigError, match=r"shape \(n_samples ≥ 2, horizon=5\), got \(25, 4\)") as info:
        check_samples(np.zeros((25, 4)), 5)
    assert "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="non-finite"):
        check_samples(np.array([[0.0, np.nan], [1.0, 1.0]]), 2)


def _instance(horizon: int, *, roi=(), constraints=(), scaling: float = 1.0, seed: int = 0):
    from paperzoo_cik.tasks import TaskInstance

    future = np.random.default_rng(seed).normal(size=horizon)
    return TaskInstance(
        task="Synthetic",
        seed=1,
        weight=Fraction(1),
        past_time=(),
        past_values=np.zeros(3),
        future_time=tuple(f"2020-01-{d + 1:02d} 00:00:00" for d in range(horizon)),
        future_values=future,
        background="",
        scenario="",
        constraints_text="",
        context_sources=(),
        region_of_interest=tuple(roi),
        constraints=tuple(constraints),
        metric_scaling=scaling,
        seasonal_period=-1,
        domain="Synthetic",
        skills=(),
    )


HARD = {"roi": (1, 2), "constraints": (Constraint("max", 0.5), Constraint("min", -1.0)), "scaling": 1.7}


def test_rcrps_kernel_averages_to_the_rcrps() -> None:
    from paperzoo_cik.metrics import _rcrps_kernel, rcrps_instance

    inst = _instance(5, **HARD)
    x = np.random.default_rng(3).normal(size=(9, 5))
    H = _rcrps_kernel(x, inst)
    assert np.allclose(H, H.T) and np.all(np.diag(H) == 0)
    assert H.sum() / (9 * 8) == pytest.approx(rcrps_instance(x, inst), abs=1e-12)


def test_variance_closed_form_equals_the_brute_force_u_statistic() -> None:
    """U² − mean over distinct (i, j, k, l) of H_ij H_kl, summed by brute force for n = 6."""
    from itertools import permutations

    from paperzoo_cik.metrics import _rcrps_kernel, rcrps_variance

    inst = _instance(4, **HARD)
    x = np.random.default_rng(4).normal(size=(6, 4))
    H = _rcrps_kernel(x, inst)
    quads = [H[i, j] * H[k, m] for i, j, k, m in permutations(range(6), 4)]
    u = H.sum() / 30
    assert rcrps_variance(x, inst) == pytest.approx(u**2 - np.mean(quads), rel=1e-10)


def test_variance_estimate_is_unbiased_over_replications() -> None:
    from paperzoo_cik.metrics import rcrps_instance, rcrps_variance

    inst = _instance(3, **HARD)
    rng = np.random.default_rng(5)
    draws = rng.normal(size=(4000, 8, 3)) * [1.0, 2.0, 0.5]
    scores = np.array([rcrps_instance(x, inst) for x in draws])
    estimates = np.array([rcrps_variance(x, inst) for x in draws])
    assert estimates.mean() == pytest.approx(scores.var(ddof=1), rel=0.1)


def test_variance_needs_four_samples() -> None:
    from paperzoo_cik.metrics import rcrps_variance

    assert np.isnan(rcrps_variance(np.zeros((3, 2)), _instance(2)))
