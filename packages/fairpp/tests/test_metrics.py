from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from paperzoo.errors import ConfigError
from paperzoo_fairpp.metrics import ks_distance, ks_unfairness, mse, w2_distance, w2_unfairness


def test_ks_matches_scipy() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=300), rng.normal(0.3, 1.2, size=451)
    assert ks_distance(a, b) == pytest.approx(stats.ks_2samp(a, b).statistic)


def test_w2_closed_forms() -> None:
    a = np.array([0.0, 1.0, 2.0, 3.0])
    assert w2_distance(a, a + 5.0) == pytest.approx(5.0)
    assert w2_distance(np.zeros(3), np.ones(6)) == pytest.approx(1.0)
    # equal-size samples: sqrt(mean of squared differences of the sorted values)
    b = np.array([3.0, 0.5, 0.0, 9.0])
    assert w2_distance(a, b) == pytest.approx(np.sqrt(np.mean((np.sort(a) - np.sort(b)) ** 2)))
    # 1-d W2 between sorted samples is the L2 distance of quantile functions: scipy's W1 bounds it
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=200), rng.normal(1.0, 2.0, size=333)
    assert w2_distance(x, y) >= stats.wasserstein_distance(x, y) - 1e-12


def test_unfairness_is_the_max_over_pairs() -> None:
    pred = np.array([0.0, 1.0, 0.0, 1.0, 5.0, 6.0])
    groups = np.array([0, 0, 1, 1, 2, 2])
    assert ks_unfairness(pred, groups) == 1.0
    assert w2_unfairness(pred, groups) == pytest.approx(5.0)
    with pytest.raises(ConfigError, match="at least two groups"):
        ks_unfairness(pred, np.zeros(6))
    assert mse([1.0, 2.0], [1.0, 4.0]) == 2.0
    with pytest.raises(ConfigError, match="2 targets for 3 predictions"):
        mse([1.0, 2.0], [1.0, 2.0, 3.0])
