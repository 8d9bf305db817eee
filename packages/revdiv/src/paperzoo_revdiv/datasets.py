"""Engagement data: the paper's synthetic generator and Last.fm listening counts."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from paperzoo.data import fetch
from paperzoo.errors import ConfigError
from paperzoo_revdiv.plugin import LASTFM_FILE

__all__ = ["LastFM", "lastfm_hetrec", "synthetic_streams"]


def _redraw_repeats(rows: np.ndarray, m: int, rng: np.random.Generator) -> np.ndarray:
    """Columns for the entries of ``rows`` (sorted), distinct within each row, uniform.

    Draws with replacement, then redraws only the repeats, looking again only at
    the rows that had one. By exchangeability each row's set is a uniform subset;
    with at most m/2 draws per row a round leaves at most half as many repeats.
    """
    cols = rng.integers(0, m, size=rows.size)
    active = np.arange(rows.size)
    while active.size:
        key = rows[active] * m + cols[active]
        order = np.argsort(key, kind="stable")
        repeat = np.zeros(active.size, dtype=bool)
        repeat[order[1:]] = key[order[1:]] == key[order[:-1]]
        if not repeat.any():
            break
        cols[active[repeat]] = rng.integers(0, m, size=int(repeat.sum()))
        active = active[np.isin(rows[active], rows[active[repeat]])]
    return cols


def _distinct_columns(k: np.ndarray, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """For row ``i``, ``k[i]`` distinct columns of [0, m) forming a uniform subset.

    Rows with ``k > m/2`` draw the ``m − k`` columns they leave out instead, so no
    row ever needs more than m/2 distinct draws.

    Returns:
        ``(rows, cols)`` of every entry.
    """
    ids = np.arange(k.size, dtype=np.int64)
    dense = k > m // 2
    rows = np.repeat(ids[~dense], k[~dense])
    cols = _redraw_repeats(rows, m, rng)
    if dense.any():
        dense_ids = ids[dense]
        left_out_rows = np.repeat(np.arange(dense_ids.size), m - k[dense])
        left_out = _redraw_repeats(left_out_rows, m, rng)
        keep = np.ones((dense_ids.size, m), dtype=bool)
        keep[left_out_rows, left_out] = False
        local, dense_cols = np.nonzero(keep)
        rows = np.concatenate([rows, dense_ids[local]])
        cols = np.concatenate([cols, dense_cols])
    return rows, cols


def synthetic_streams(
    n_users: int = 10_000,
    n_artists: int = 1_000,
    *,
    max_artists: int = 100,
    rate: float = 1.0,
    seed: int | np.random.Generator = 0,
) -> sp.csr_matrix:
    """The paper's synthetic instance (§6): each user picks ``k ~ U{1..max_artists}``
    distinct artists uniformly and streams ``Poisson(rate)`` times to each.

    Entries with zero streams are not stored, so some users (those whose every
    draw was 0, about ``e^{-k·rate}`` of those with ``k`` artists) have no
    engagement at all; the rules reject them unless ``on_empty="drop"``.

    Returns:
        CSR matrix of stream counts, ``n_users × n_artists``, float64.
    """
    if n_users < 1 or n_artists < 1:
        raise ConfigError(f"need at least one user and one artist, got {n_users} × {n_artists}")
    if not 1 <= max_artists <= n_artists:
        raise ConfigError(f"max_artists must be in [1, n_artists={n_artists}], got {max_artists}")
    if rate <= 0:
        raise ConfigError(f"rate must be > 0, got {rate}")
    rng = np.random.default_rng(seed)
    k = rng.integers(1, max_artists + 1, size=n_users)
    rows, cols = _distinct_columns(k, n_artists, rng)
    streams = rng.poisson(rate, size=rows.size).astype(np.float64)
    W = sp.csr_matrix((streams, (rows, cols)), shape=(n_users, n_artists))
    W.eliminate_zeros()
    return W


@dataclass(frozen=True)
class LastFM:
    """Last.fm HetRec 2011 as an engagement matrix.

    Attributes:
        W: Users × artists play counts (CSR, float64).
        user_ids: Original userID of each row.
        artist_ids: Original artistID of each column.
    """

    W: sp.csr_matrix
    user_ids: np.ndarray
    artist_ids: np.ndarray


def lastfm_hetrec() -> LastFM:
    """Load HetRec 2011 Last.fm: 1,892 users × 17,632 artists, 92,834 play counts.

    Cantador, Brusilovsky & Kuflik, "2nd Workshop on Information Heterogeneity and
    Fusion in Recommender Systems (HetRec 2011)", RecSys 2011.
    """
    path = fetch(LASTFM_FILE)
    table = np.loadtxt(path, skiprows=1, dtype=np.int64)
    users, rows = np.unique(table[:, 0], return_inverse=True)
    artists, cols = np.unique(table[:, 1], return_inverse=True)
    W = sp.csr_matrix((table[:, 2].astype(np.float64), (rows, cols)), shape=(users.size, artists.size))
    return LastFM(W=W, user_ids=users, artist_ids=artists)
