"""Small graphs for the tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from paperzoo_graph.graph import Graph


def random_graph(n: int = 60, f: int = 40, p: float = 0.08, seed: int = 0, *, isolated: int = 0) -> Graph:
    """An undirected Erdős–Rényi graph with sparse binary features and 3 classes.

    The last ``isolated`` nodes get no edge.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    upper = np.triu(rng.random((n, n)) < p, 1)
    if isolated:
        upper[:, n - isolated :] = False
        upper[n - isolated :, :] = False
    src, dst = np.nonzero(upper | upper.T)
    centres = rng.random((3, f)) < 0.3
    x = (rng.random((n, f)) < 0.1) | (centres[y] & (rng.random((n, f)) < 0.6))
    return Graph(x.astype(np.float32), np.stack([src, dst]), y, name="random")


@pytest.fixture
def make_graph() -> Callable[..., Graph]:
    """:func:`random_graph`, as a fixture (test modules cannot import conftest)."""
    return random_graph


@pytest.fixture
def graph() -> Graph:
    return random_graph()
