"""The closed-form weights against direct least-squares solves."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
import torch

from paperzoo.errors import ConfigError
from paperzoo_graph.graph import Graph
from paperzoo_ml2gcl import weights as weights_module
from paperzoo_ml2gcl.weights import neighbour_weights, positive_weights, solve_weights


def _clip_normalise(w: np.ndarray) -> np.ndarray:
    w = np.maximum(w, 0.0)
    return w / w.sum() if w.sum() > 0 else np.full_like(w, 1.0 / w.size)


def ridge_lstsq(x_n: np.ndarray, x_i: np.ndarray, eps: float) -> np.ndarray:
    """min ‖x_i − X_Nᵀw‖² + ε‖w‖² as an augmented least-squares problem."""
    d = x_n.shape[0]
    a = np.vstack([x_n.T, np.sqrt(eps) * np.eye(d)])
    return np.linalg.lstsq(a, np.r_[x_i, np.zeros(d)], rcond=None)[0]


def lle_kkt(x_n: np.ndarray, x_i: np.ndarray, eps: float) -> np.ndarray:
    """min wᵀ(C + εI)w s.t. 1ᵀw = 1, by its KKT system."""
    d = x_n.shape[0]
    c = (x_n - x_i) @ (x_n - x_i).T + eps * np.eye(d)
    kkt = np.block([[2 * c, np.ones((d, 1))], [np.ones((1, d)), np.zeros((1, 1))]])
    return np.linalg.solve(kkt, np.r_[np.zeros(d), 1.0])[:d]


@pytest.mark.parametrize("method", ["ridge", "lle"])
@pytest.mark.parametrize("eps", [0.01, 1.0])
def test_every_row_matches_a_direct_solve(method: str, eps: float, make_graph: Callable[..., Graph]) -> None:
    g = make_graph(seed=3)
    w = neighbour_weights(g.x, g.edge_index, epsilon=eps, method=method).toarray()
    direct = ridge_lstsq if method == "ridge" else lle_kkt
    for i in range(g.num_nodes):
        nb = g.edge_index[1, g.edge_index[0] == i]
        if nb.size:
            expected = _clip_normalise(direct(g.x[nb].astype(float), g.x[i].astype(float), eps))
            np.testing.assert_allclose(w[i, nb], expected, atol=1e-6)


def test_pattern_is_the_edge_list_and_rows_sum_to_one(make_graph: Callable[..., Graph]) -> None:
    g = make_graph(seed=1, isolated=3)
    w = neighbour_weights(g.x, g.edge_index)
    coo = w.tocoo()
    assert set(zip(coo.row.tolist(), coo.col.tolist())) == set(zip(*g.edge_index.tolist()))
    sums = np.asarray(w.sum(axis=1)).ravel()
    has = g.degrees() > 0
    np.testing.assert_allclose(sums[has], 1.0, rtol=1e-6)
    assert np.all(sums[~has] == 0)
    assert w.data.min() >= 0


def test_unsorted_edges_give_the_same_matrix(make_graph: Callable[..., Graph]) -> None:
    g = make_graph(seed=2)
    perm = np.random.default_rng(0).permutation(g.num_edges)
    a = neighbour_weights(g.x, g.edge_index).toarray()
    b = neighbour_weights(g.x, g.edge_index[:, perm]).toarray()
    np.testing.assert_array_equal(a, b)


def test_chunked_batches_match_one_batch(
    monkeypatch: pytest.MonkeyPatch, make_graph: Callable[..., Graph]
) -> None:
    g = make_graph(seed=4)
    whole = neighbour_weights(g.x, g.edge_index).toarray()
    monkeypatch.setattr(weights_module, "_CHUNK_ELEMENTS", 1)  # one node per solve
    np.testing.assert_allclose(neighbour_weights(g.x, g.edge_index).toarray(), whole, atol=1e-7)


def test_a_node_nothing_reconstructs_gets_uniform_weights() -> None:
    # x_0 = 0: b = 0, so the ridge solution is w = 0 and the ReLU leaves nothing
    x = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], dtype=np.float32)
    edges = np.array([[0, 0, 0, 1, 2, 3], [1, 2, 3, 0, 0, 0]])
    w = neighbour_weights(x, edges).toarray()
    np.testing.assert_allclose(w[0, 1:], 1 / 3)


def test_relu_then_normalise() -> None:
    raw = torch.tensor([[2.0, -1.0, 2.0], [-1.0, -2.0, -3.0]])
    np.testing.assert_allclose(positive_weights(raw).numpy(), [[0.5, 0, 0.5], [1 / 3, 1 / 3, 1 / 3]])


def test_solve_weights_recovers_an_exact_combination() -> None:
    # x_i = 0.3 x_a + 0.7 x_b with independent x_a, x_b: tiny ε gives back (0.3, 0.7)
    xa, xb = (
        torch.tensor([1.0, 0, 1, 0], dtype=torch.float64),
        torch.tensor([0, 1.0, 1, 1], dtype=torch.float64),
    )
    w = solve_weights(torch.stack([xa, xb])[None], (0.3 * xa + 0.7 * xb)[None], epsilon=1e-9)
    np.testing.assert_allclose(w.numpy(), [[0.3, 0.7]], atol=1e-6)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"method": "pca"}, "unknown weight method 'pca'"), ({"epsilon": 0.0}, "epsilon must be > 0")],
)
def test_bad_options_are_refused(kwargs: dict, message: str, make_graph: Callable[..., Graph]) -> None:
    g = make_graph()
    with pytest.raises(ConfigError, match=message):
        neighbour_weights(g.x, g.edge_index, **kwargs)
