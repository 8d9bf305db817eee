from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from paperzoo.errors import ConfigError
from paperzoo_revdiv.datasets import _distinct_columns, lastfm_hetrec, synthetic_streams
from paperzoo_revdiv.plugin import LASTFM_FILE


def test_synthetic_generator_follows_the_papers_recipe() -> None:
    W = synthetic_streams(2_000, 300, max_artists=100, seed=0)
    assert W.shape == (2_000, 300)
    per_user = np.diff(W.indptr)
    assert per_user.max() <= 100
    assert (W.data >= 1).all()
    assert np.allclose(W.data, np.round(W.data))
    # Poisson(1) given ≥ 1 has mean 1 / (1 − e^{-1}) ≈ 1.582
    assert W.data.mean() == pytest.approx(1 / (1 - np.exp(-1)), rel=0.02)
    # k ~ U{1..100}, each draw kept with probability 1 − e^{-1}
    assert per_user.mean() == pytest.approx(50.5 * (1 - np.exp(-1)), rel=0.03)


def test_synthetic_generator_is_seeded() -> None:
    a = synthetic_streams(500, 50, max_artists=10, seed=3)
    b = synthetic_streams(500, 50, max_artists=10, seed=3)
    c = synthetic_streams(500, 50, max_artists=10, seed=4)
    assert (a != b).nnz == 0
    assert (a != c).nnz > 0


@pytest.mark.parametrize("k", [5, 2])  # 5 of 6 takes the complement path, 2 of 6 the direct one
def test_distinct_columns_are_distinct_and_uniform(k: int) -> None:
    rng = np.random.default_rng(0)
    rows, cols = _distinct_columns(np.full(20_000, k), 6, rng)
    assert rows.size == 20_000 * k
    order = np.lexsort((cols, rows))
    pairs = rows[order] * 6 + cols[order]
    assert (np.diff(pairs) > 0).all()  # no repeated column within a row
    counts = np.bincount(cols, minlength=6)
    assert counts.min() / counts.max() > 0.97


def test_generator_is_fast_when_users_stream_almost_every_artist() -> None:
    W = synthetic_streams(5_000, 100, max_artists=100, seed=0)  # was quadratic in the redraws
    assert np.diff(W.indptr).max() <= 100


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"n_users": 0}, "at least one user"), ({"max_artists": 2_000}, "max_artists"), ({"rate": 0.0}, "rate")],
)
def test_synthetic_generator_rejects_bad_settings(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        synthetic_streams(**{"n_users": 10, "n_artists": 1_000, **kwargs})


def test_lastfm_shape_matches_the_published_counts() -> None:
    from paperzoo.data import locate_unverified

    if locate_unverified(LASTFM_FILE) is None:
        pytest.skip("Last.fm file not available (set PAPERZOO_DATA_MIRROR)")
    data = lastfm_hetrec()
    assert data.W.shape == (1_892, 17_632)
    assert data.W.nnz == 92_834
    assert (np.asarray(data.W.sum(axis=1)).ravel() > 0).all()
