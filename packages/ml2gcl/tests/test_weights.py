"""The closed-form weights against direct least-squares solves."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable

import numpy as np
import pytest
import torch

from paperzoo.errors import ConfigError
from paperzoo_graph.graph import Graph
from paperzoo_ml2gcl import weights as weights_module
from paperzoo_ml2gcl.weights import neighbour_weights, positive_weights, solve_weights, spd_solve


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


@pytest.mark.parametrize("method", ["ridge", "lle"])
@pytest.mark.parametrize("eps", [0.01, 1.0])
def test_cholesky_weights_equal_the_lu_solve_to_1e_10(
    method: str, eps: float, make_graph: Callable[..., Graph]
) -> None:
    # the LU solve of 0.2.0 (safe here: these degrees are far below the ~180 where MKL hangs)
    g = make_graph(n=120, f=60, p=0.15, seed=5)
    x = torch.from_numpy(g.x).double()
    degree = np.bincount(g.edge_index[0], minlength=g.num_nodes)
    for d in np.unique(degree[degree > 0]):
        nodes = np.flatnonzero(degree == d)
        nb = torch.from_numpy(np.stack([g.edge_index[1, g.edge_index[0] == i] for i in nodes]))
        neighbours, target = x[nb], x[torch.from_numpy(nodes)]
        if method == "ridge":
            lu = torch.linalg.solve(
                neighbours @ neighbours.transpose(1, 2) + eps * torch.eye(int(d), dtype=torch.float64),
                (neighbours @ target.unsqueeze(-1)).squeeze(-1),
            )
        else:
            diff = neighbours - target.unsqueeze(1)
            lu = torch.linalg.solve(
                diff @ diff.transpose(1, 2) + eps * torch.eye(int(d), dtype=torch.float64),
                torch.ones(len(nodes), int(d), dtype=torch.float64),
            )
            lu = lu / lu.sum(dim=1, keepdim=True)
        ours = solve_weights(neighbours, target, epsilon=eps, method=method)
        np.testing.assert_allclose(ours.numpy(), lu.numpy(), rtol=0, atol=1e-10)


def test_spd_solve_falls_back_to_numpy_where_cholesky_fails() -> None:
    a = torch.tensor([[[4.0, 1.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 1.0]]])  # SPD, then indefinite
    b = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    x = spd_solve(a, b)
    assert x.dtype == torch.float32 and torch.isfinite(x).all()
    np.testing.assert_allclose(
        x.numpy(), np.linalg.solve(a.double().numpy(), b.double().numpy()[..., None])[..., 0], rtol=1e-6
    )


def test_weights_of_degree_300_do_not_hang_after_torch_set_num_threads_2() -> None:
    """Issue 34: with torch 2.13 + MKL 2024.2, a batched LU (``torch.linalg.solve``) of
    ≥ ~180 × 180 matrices never returns once ``torch.set_num_threads(n ≥ 2)`` was called.

    Four hubs of degree 300 (one batch of four 300 × 300 systems, both methods), in a
    subprocess with a timeout so that a hang fails instead of blocking the suite.
    """
    script = textwrap.dedent(
        """
        import numpy as np, torch
        torch.set_num_threads(2)
        from paperzoo_ml2gcl.weights import neighbour_weights
        hubs, leaves = 4, 300
        src = np.repeat(np.arange(hubs), leaves)
        dst = hubs + np.tile(np.arange(leaves), hubs)
        edges = np.stack([np.r_[src, dst], np.r_[dst, src]])
        edges = edges[:, np.lexsort((edges[1], edges[0]))]
        x = (np.random.default_rng(0).random((hubs + leaves, 64)) < 0.2).astype(np.float32)
        for method in ("ridge", "lle"):
            w = neighbour_weights(x, edges, method=method)
            assert np.allclose(w.sum(axis=1), 1.0, atol=1e-5), method
        print("ok", torch.get_num_threads())
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["ok", "2"]
