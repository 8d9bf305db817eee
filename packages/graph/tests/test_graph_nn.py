"""Graph validation and conversion; gcn_norm and GCNConv against dense formulas and PyG."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from paperzoo_graph.graph import Graph, GraphError
from paperzoo_graph.nn import GCNConv, gcn_norm, to_sparse_csr, to_torch

try:
    import torch_geometric  # noqa: F401

    HAS_PYG = True
except ImportError:
    HAS_PYG = False

needs_pyg = pytest.mark.skipif(
    not HAS_PYG, reason="torch_geometric is not installed (pip install torch_geometric)"
)


def random_graph(n: int = 30, m: int = 80, f: int = 5, seed: int = 0, loops: bool = True) -> Graph:
    rng = np.random.default_rng(seed)
    edges = rng.integers(n, size=(2, m))
    if not loops:
        edges = edges[:, edges[0] != edges[1]]
    y = rng.integers(-1, 3, size=n)
    masks = {"train": rng.random(n) < 0.3}
    return Graph(x=rng.normal(size=(n, f)), edge_index=edges, y=y, masks=masks, name="toy")


def dense_gcn_norm(edge_index: np.ndarray, n: int) -> np.ndarray:
    """Kipf & Welling: D̃^{-1/2}(A + I)D̃^{-1/2}, A[target, source] = 1, existing loops replaced."""
    a = np.zeros((n, n))
    np.add.at(a, (edge_index[1], edge_index[0]), 1.0)
    np.fill_diagonal(a, 1.0)
    d = a.sum(axis=1)
    return a / np.sqrt(d)[:, None] / np.sqrt(d)[None, :]


# ----------------------------------------------------------------- Graph


def test_graph_sorts_edges_and_drops_duplicates() -> None:
    g = Graph(x=np.zeros((4, 1)), edge_index=[[2, 0, 2, 1, 0], [1, 3, 1, 0, 1]], y=[0, 1, 0, -1])
    np.testing.assert_array_equal(g.edge_index, [[0, 0, 1, 2], [1, 3, 0, 1]])
    assert g.edge_index.dtype == np.int64 and g.x.dtype == np.float32
    assert (g.num_nodes, g.num_edges, g.num_features, g.num_classes) == (4, 4, 1, 2)
    np.testing.assert_array_equal(g.labelled, [True, True, True, False])
    np.testing.assert_array_equal(g.degrees(), [2, 1, 1, 0])


def test_canonical_edges_match_numpy_unique_on_a_large_random_graph() -> None:
    edges = np.random.default_rng(0).integers(5_000, size=(2, 200_000))
    g = Graph(x=np.zeros((5_000, 1)), edge_index=edges, y=np.zeros(5_000, dtype=int))
    np.testing.assert_array_equal(g.edge_index, np.unique(edges, axis=1))


def test_structure_helpers() -> None:
    g = Graph(x=np.zeros((3, 2)), edge_index=[[0, 1, 2], [1, 1, 0]], y=[0, 0, 1])
    assert not g.is_undirected()
    u = g.to_undirected()
    assert u.is_undirected() and u.num_edges == 5  # (1, 1) is its own reverse
    assert g.without_self_loops().num_edges == 2
    np.testing.assert_array_equal(g.adjacency().toarray(), [[0, 1, 0], [0, 1, 0], [1, 0, 0]])
    assert g.replace(name="other").name == "other"
    assert "nodes=3" in repr(g)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"x": np.zeros(3)}, "x must be 2-D"),
        ({"edge_index": np.zeros((3, 2), dtype=int)}, r"edge_index must have shape \(2, E\)"),
        ({"edge_index": np.zeros((2, 2))}, "edge_index must hold integers"),
        ({"edge_index": [[0, 1], [1, 7]]}, "refers to node 7 but there are 3 nodes"),
        ({"edge_index": [[0, -1], [1, 2]]}, "refers to node -1"),
        ({"y": [0, 1]}, r"y must have shape \(3,\)"),
        ({"y": [0.5, 1.0, 2.0]}, "y must hold integer class ids"),
        ({"y": [0, -2, 1]}, "labels must be ≥ -1"),
        ({"masks": {"train": np.ones(3, dtype=int)}}, "mask 'train' must be a boolean array"),
    ],
)
def test_graph_rejects_bad_arrays_with_one_clear_line(kwargs: dict, message: str) -> None:
    fields = {"x": np.zeros((3, 2)), "edge_index": [[0, 1], [1, 2]], "y": [0, 1, 2], "name": "g"} | kwargs
    with pytest.raises(GraphError, match=message) as info:
        Graph(**fields)
    assert "\n" not in str(info.value) and str(info.value).startswith("g: ")


def test_graph_rejects_sparse_features_with_a_hint() -> None:
    import scipy.sparse as sp

    with pytest.raises(GraphError, match=r"x.toarray\(\)"):
        Graph(x=sp.csr_array(np.eye(3)), edge_index=np.zeros((2, 0), dtype=int), y=[0, 1, 2])


# ------------------------------------------------------------ gcn_norm


def test_gcn_norm_equals_the_dense_formula() -> None:
    g = random_graph()
    adj = gcn_norm(g.edge_index, g.num_nodes)
    assert adj.layout == torch.sparse_csr and adj.dtype == torch.float32
    np.testing.assert_allclose(adj.to_dense().numpy(), dense_gcn_norm(g.edge_index, g.num_nodes), atol=1e-6)


def test_gcn_norm_of_an_undirected_graph_is_symmetric_and_handles_isolated_nodes() -> None:
    g = random_graph(n=40, m=30, loops=False).to_undirected()
    assert (g.degrees() == 0).any()
    a = gcn_norm(g.edge_index, g.num_nodes).to_dense().numpy()
    np.testing.assert_allclose(a, a.T, atol=1e-7)
    isolated = np.flatnonzero(g.degrees() == 0)
    np.testing.assert_allclose(a[isolated, isolated], 1.0)


def test_gcn_norm_without_self_loops_leaves_isolated_rows_zero() -> None:
    edges = np.array([[0, 1], [1, 0]])
    a = gcn_norm(edges, 3, add_self_loops=False).to_dense().numpy()
    np.testing.assert_allclose(a, [[0, 1, 0], [1, 0, 0], [0, 0, 0]])


def test_gcnconv_equals_dense_computation_and_its_gradient() -> None:
    g = random_graph()
    x, adj = to_torch(g)
    torch.manual_seed(0)
    conv = GCNConv(g.num_features, 4)
    torch.nn.init.normal_(conv.bias)
    out = conv(x, adj)
    dense = torch.from_numpy(dense_gcn_norm(g.edge_index, g.num_nodes)).float()
    expected = dense @ x @ conv.weight + conv.bias
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)
    out.square().sum().backward()
    grad = conv.weight.grad.clone()
    conv.weight.grad = None
    (dense @ x @ conv.weight + conv.bias).square().sum().backward()
    torch.testing.assert_close(grad, conv.weight.grad, atol=1e-4, rtol=1e-4)


def test_gcnconv_takes_sparse_features() -> None:
    g = random_graph()
    x, adj = to_torch(g)
    conv = GCNConv(g.num_features, 3, bias=False)
    torch.testing.assert_close(conv(to_sparse_csr(x), adj), conv(x, adj), atol=1e-5, rtol=1e-5)
    assert "bias=False" in repr(conv)


# ------------------------------------------------------------------ PyG


@needs_pyg
def test_pyg_round_trip_keeps_every_array() -> None:
    g = random_graph()
    back = Graph.from_pyg(g.to_pyg(), name="toy")
    for name in ("x", "edge_index", "y"):
        np.testing.assert_array_equal(getattr(back, name), getattr(g, name))
    assert set(back.masks) == {"train"}
    np.testing.assert_array_equal(back.masks["train"], g.masks["train"])


@needs_pyg
def test_from_pyg_without_labels_marks_every_node_unlabelled() -> None:
    from torch_geometric.data import Data

    data = Data(x=torch.ones(3, 2), edge_index=torch.tensor([[0, 1], [1, 2]]))
    assert (Graph.from_pyg(data).y == -1).all()
    with pytest.raises(GraphError, match="needs both x and edge_index"):
        Graph.from_pyg(Data(x=torch.ones(3, 2)))


@needs_pyg
def test_gcnconv_matches_pyg_gcnconv_with_the_same_weights() -> None:
    from torch_geometric.nn import GCNConv as PygGCNConv

    g = random_graph(n=50, m=200).to_undirected()
    # a self-loop already present must count once, as PyG's add_remaining_self_loops does
    assert (g.edge_index[0] == g.edge_index[1]).any()
    x, adj = to_torch(g)
    ours = GCNConv(g.num_features, 6)
    torch.nn.init.normal_(ours.bias)
    pyg = PygGCNConv(g.num_features, 6)
    with torch.no_grad():
        pyg.lin.weight.copy_(ours.weight.T)
        pyg.bias.copy_(ours.bias)
    expected = pyg(x, torch.from_numpy(g.edge_index))
    torch.testing.assert_close(ours(x, adj), expected, atol=1e-5, rtol=1e-5)
    # directed edges too: PyG normalises by in-degree at the target, as gcn_norm does
    directed = random_graph(n=50, m=200, seed=3)
    xd, adj_d = to_torch(directed)
    torch.testing.assert_close(
        ours(xd, adj_d), pyg(xd, torch.from_numpy(directed.edge_index)), atol=1e-5, rtol=1e-5
    )
