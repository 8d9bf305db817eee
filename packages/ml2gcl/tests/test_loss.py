"""The loss against a dense, direct computation of its formula."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
import torch

from paperzoo.errors import ConfigError
from paperzoo_graph.graph import Graph
from paperzoo_ml2gcl import loss as loss_module
from paperzoo_ml2gcl.loss import ContrastiveLoss, _EdgeExp, _ExpRowSums
from paperzoo_ml2gcl.weights import neighbour_weights


def dense_loss(z: torch.Tensor, w: np.ndarray, adj: np.ndarray, tau: float, negatives: str) -> torch.Tensor:
    """−mean_i log(P_i / (P_i + N̄_i)) over nodes with a neighbour, written out densely."""
    zn = torch.nn.functional.normalize(z, dim=1)
    e = torch.exp(zn @ zn.T / tau)
    wt = torch.as_tensor(w, dtype=z.dtype)
    n = w.shape[0]
    if negatives == "zero-weight":
        neg = torch.as_tensor(w == 0)
    else:
        neg = ~torch.as_tensor(adj != 0) & ~torch.eye(n, dtype=torch.bool)
    p = (wt * e).sum(1)
    q = (e * neg).sum(1) / neg.sum(1)
    keep = torch.as_tensor((adj != 0).any(1))
    return -torch.log(p[keep] / (p[keep] + q[keep])).mean()


@pytest.mark.parametrize("negatives", ["non-neighbours", "zero-weight"])
@pytest.mark.parametrize(("block", "keep_bytes"), [(2048, 1 << 29), (7, 0), (7, 1 << 29)])
def test_matches_the_dense_formula_with_gradients(
    negatives: str, block: int, keep_bytes: int, make_graph: Callable[..., Graph]
) -> None:
    g = make_graph(seed=5, isolated=2)
    w = neighbour_weights(g.x, g.edge_index)
    z = torch.randn(g.num_nodes, 6, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    z1, z2 = z.clone().requires_grad_(), z.clone().requires_grad_()
    ours = ContrastiveLoss(w, tau=0.7, negatives=negatives, block_size=block, keep_bytes=keep_bytes)(z1)
    ref = dense_loss(z2, w.toarray(), g.adjacency().toarray(), 0.7, negatives)
    ours.backward()
    ref.backward()
    assert ours.item() == pytest.approx(ref.item(), rel=1e-10)
    np.testing.assert_allclose(z1.grad.numpy(), z2.grad.numpy(), atol=1e-10)


def test_row_sums_pass_gradcheck() -> None:
    z = torch.nn.functional.normalize(torch.randn(40, 5, dtype=torch.float64), dim=1).requires_grad_()
    assert torch.autograd.gradcheck(lambda q: _ExpRowSums.apply(q, 0.5, 16, False), (z,))


def test_edge_exponentials_pass_gradcheck(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(loss_module, "_EDGE_CHUNK", 7)  # several chunks
    z = torch.nn.functional.normalize(torch.randn(30, 4, dtype=torch.float64), dim=1).requires_grad_()
    row = torch.tensor([0, 0, 1, 2, 5, 5, 5, 9, 9, 20, 29, 29])
    col = torch.tensor([1, 3, 0, 2, 4, 6, 29, 0, 9, 21, 5, 28])
    assert torch.autograd.gradcheck(lambda q: _EdgeExp.apply(q, row, col, 0.5), (z,))


def test_sampled_negatives_estimate_the_exact_loss(make_graph: Callable[..., Graph]) -> None:
    g = make_graph(n=300, seed=6)
    w = neighbour_weights(g.x, g.edge_index)
    z = torch.randn(g.num_nodes, 8, generator=torch.Generator().manual_seed(1))
    exact = ContrastiveLoss(w)(z).item()
    sampled = ContrastiveLoss(w, num_negatives=2000)(z, generator=torch.Generator().manual_seed(2)).item()
    assert sampled == pytest.approx(exact, rel=0.02)


def test_loss_is_bounded_below_by_the_aligned_optimum(make_graph: Callable[..., Graph]) -> None:
    g = make_graph(seed=7)
    w = neighbour_weights(g.x, g.edge_index)
    for seed in range(3):
        z = torch.randn(g.num_nodes, 4, generator=torch.Generator().manual_seed(seed))
        assert ContrastiveLoss(w, tau=0.5)(z).item() >= ContrastiveLoss.floor(0.5)
    assert ContrastiveLoss.floor(0.5) == pytest.approx(math.log1p(math.exp(-4.0)))


def test_isolated_nodes_do_not_enter_the_loss(make_graph: Callable[..., Graph]) -> None:
    g = make_graph(seed=8, isolated=5)
    loss = ContrastiveLoss(neighbour_weights(g.x, g.edge_index))
    assert loss.n_nodes_in_loss == int((g.degrees() > 0).sum())
    z = torch.randn(g.num_nodes, 4, requires_grad=True)
    loss(z).backward()
    # an isolated node still acts as a negative of the others, so it gets gradient, but finite
    assert torch.isfinite(z.grad).all()


def test_unknown_negatives_are_refused(make_graph: Callable[..., Graph]) -> None:
    g = make_graph()
    with pytest.raises(ConfigError, match="unknown negatives 'all'"):
        ContrastiveLoss(neighbour_weights(g.x, g.edge_index), negatives="all")  # type: ignore[arg-type]
