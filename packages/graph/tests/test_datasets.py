"""Loaders: the counts PyG reports, CiteSeer's unlabelled nodes, the public split, PyG agreement; SBM."""

from __future__ import annotations

import io
import time
import warnings
import zipfile

import numpy as np
import pytest

from paperzoo.data import fetch, locate_unverified
from paperzoo.errors import ConfigError, UnknownNameError
from paperzoo_graph.datasets import GRAPH_NAMES, load_graph, load_npz, load_planetoid, sbm_graph
from paperzoo_graph.graph import Graph
from paperzoo_graph.plugin import NPZ_FILES, NPZ_MEMBERS, PLANETOID_FILES

FILES = [f for files in PLANETOID_FILES.values() for f in files.values()] + list(NPZ_FILES.values())
needs_data = pytest.mark.skipif(
    any(locate_unverified(f) is None for f in FILES),
    reason="graph data files not available (set PAPERZOO_DATA_MIRROR)",
)

try:
    import torch_geometric  # noqa: F401

    HAS_PYG = True
except ImportError:
    HAS_PYG = False

needs_pyg = pytest.mark.skipif(not HAS_PYG, reason="torch_geometric is not installed")

# name: (nodes, directed edges, features, classes, unlabelled), as PyG reports them
EXPECTED = {
    "cora": (2708, 10556, 1433, 7, 0),
    "citeseer": (3327, 9104, 3703, 6, 15),
    "amazon-photo": (7650, 238162, 745, 8, 0),
    "coauthor-cs": (18333, 163788, 6805, 15, 0),
}


@pytest.fixture(scope="module", params=GRAPH_NAMES)
def graph(request: pytest.FixtureRequest) -> Graph:
    if any(locate_unverified(f) is None for f in FILES):
        pytest.skip("graph data files not available (set PAPERZOO_DATA_MIRROR)")
    return load_graph(request.param)


def test_counts_are_pygs(graph: Graph) -> None:
    nodes, edges, features, classes, unlabelled = EXPECTED[graph.name]
    assert (graph.num_nodes, graph.num_edges, graph.num_features, graph.num_classes) == (
        nodes,
        edges,
        features,
        classes,
    )
    assert int((graph.y == -1).sum()) == unlabelled
    assert np.bincount(graph.y[graph.y >= 0]).min() > 0  # every class occurs


def test_graphs_are_undirected_without_self_loops_and_binary(graph: Graph) -> None:
    assert graph.is_undirected()
    assert not (graph.edge_index[0] == graph.edge_index[1]).any()
    assert set(np.unique(graph.x)) <= {0.0, 1.0}


@needs_data
@pytest.mark.parametrize("name", ["cora", "citeseer"])
def test_public_split_is_20_per_class_500_and_1000(name: str) -> None:
    g = load_planetoid(name)
    classes = EXPECTED[name][3]
    train, val, test = g.masks["train"], g.masks["val"], g.masks["test"]
    assert (train.sum(), val.sum(), test.sum()) == (20 * classes, 500, 1000)
    np.testing.assert_array_equal(np.bincount(g.y[train], minlength=classes), 20)
    np.testing.assert_array_equal(np.flatnonzero(train), np.arange(20 * classes))
    np.testing.assert_array_equal(np.flatnonzero(val), np.arange(20 * classes, 20 * classes + 500))
    assert not (train & val).any() and not (val & test).any() and not (train & test).any()
    assert (g.y[train | val | test] >= 0).all()


@needs_data
def test_citeseer_nodes_missing_from_tx_are_unlabelled_and_featureless() -> None:
    g = load_planetoid("citeseer")
    missing = np.flatnonzero(g.y == -1)
    assert missing.size == 15
    assert (missing >= 2312).all()  # in the test range, between min and max of test.index
    assert not g.masks["test"][missing].any()
    assert not g.x[missing].any()
    assert (g.degrees()[missing] > 0).all()  # "isolated" in PyG's comment, yet each has an edge


@needs_data
@needs_pyg
@pytest.mark.parametrize("name", ["cora", "citeseer"])
def test_planetoid_equals_pygs_reader_except_unlabelled_nodes(name: str) -> None:
    from torch_geometric.io import read_planetoid_data

    folder = fetch(PLANETOID_FILES[name]["x"]).parent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data = read_planetoid_data(str(folder), name)
    g = load_planetoid(name)
    np.testing.assert_array_equal(data.x.numpy(), g.x)
    pyg_edges = data.edge_index.numpy()
    np.testing.assert_array_equal(pyg_edges[:, np.lexsort(pyg_edges[::-1])], g.edge_index)
    for split in ("train", "val", "test"):
        np.testing.assert_array_equal(getattr(data, f"{split}_mask").numpy(), g.masks[split])
    labelled = g.y >= 0
    np.testing.assert_array_equal(data.y.numpy()[labelled], g.y[labelled])
    assert (data.y.numpy()[~labelled] == 0).all()  # PyG's argmax of an all-zero row


@needs_data
@needs_pyg
@pytest.mark.parametrize("name", ["amazon-photo", "coauthor-cs"])
def test_npz_equals_pygs_reader(name: str) -> None:
    from torch_geometric.io.npz import parse_npz

    with zipfile.ZipFile(fetch(NPZ_FILES[name])) as archive:
        raw = archive.read(NPZ_MEMBERS[name])
    with np.load(io.BytesIO(raw), allow_pickle=True) as npz:
        data = parse_npz({k: npz[k] for k in npz.files}, to_undirected=True)
    g = load_npz(name)
    np.testing.assert_array_equal(data.x.numpy(), g.x)
    np.testing.assert_array_equal(data.edge_index.numpy(), g.edge_index)
    np.testing.assert_array_equal(data.y.numpy(), g.y)


def test_unknown_names_list_the_known_ones() -> None:
    with pytest.raises(UnknownNameError, match="choose one of: cora, citeseer, amazon-photo, coauthor-cs"):
        load_graph("pubmed")
    with pytest.raises(UnknownNameError, match="load_planetoid has no dataset 'amazon-photo'"):
        load_planetoid("amazon-photo")
    with pytest.raises(UnknownNameError, match="choose one of: amazon-photo, coauthor-cs"):
        load_npz("cora")


# -------------------------------------------------------------------- SBM


def test_sbm_graph_has_the_requested_structure() -> None:
    g = sbm_graph(
        5_000, n_classes=4, avg_degree=12.0, homophily=0.7, n_features=64, feature_density=0.1, seed=2
    )
    assert g.num_nodes == 5_000 and g.num_classes == 4 and g.num_features == 64
    assert g.is_undirected() and not (g.edge_index[0] == g.edge_index[1]).any()
    np.testing.assert_array_equal(np.bincount(g.y), 1_250)
    assert g.degrees().mean() == pytest.approx(12.0, rel=0.02)
    same = g.y[g.edge_index[0]] == g.y[g.edge_index[1]]
    assert same.mean() == pytest.approx(0.7, abs=0.02)
    assert set(np.unique(g.x)) == {0.0, 1.0}
    assert g.x.mean() == pytest.approx(0.1, rel=0.1)


def test_sbm_features_carry_the_class_signal() -> None:
    g = sbm_graph(3_000, n_classes=3, n_features=30, feature_density=0.2, signal=0.5, seed=0)
    owner = np.arange(30) % 3
    block_mass = np.stack([g.x[:, owner == k].sum(axis=1) for k in range(3)], axis=1)
    assert (block_mass.argmax(axis=1) == g.y).mean() > 0.8
    flat = sbm_graph(3_000, n_classes=3, n_features=30, feature_density=0.2, signal=0.0, seed=0)
    block_mass = np.stack([flat.x[:, owner == k].sum(axis=1) for k in range(3)], axis=1)
    assert (block_mass.argmax(axis=1) == flat.y).mean() < 0.5


def test_sbm_graph_is_reproducible_by_seed() -> None:
    a, b, c = sbm_graph(500, seed=1), sbm_graph(500, seed=1), sbm_graph(500, seed=2)
    np.testing.assert_array_equal(a.edge_index, b.edge_index)
    np.testing.assert_array_equal(a.x, b.x)
    assert not np.array_equal(a.y, c.y)


def test_sbm_graph_of_100k_nodes_is_fast() -> None:
    start = time.perf_counter()
    g = sbm_graph(100_000)
    assert time.perf_counter() - start < 5.0
    assert g.num_nodes == 100_000 and g.num_edges > 900_000


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_nodes": 0}, "n_nodes must be an integer"),
        ({"n_nodes": 10.5}, "n_nodes must be an integer"),
        ({"n_nodes": 50, "n_classes": 51}, "n_classes must be an integer in"),
        ({"n_nodes": 50, "homophily": 1.5}, "homophily must be a number in"),
        ({"n_nodes": 10, "avg_degree": 20.0}, "avg_degree must be a number in"),
        ({"n_nodes": 50, "n_classes": 1, "homophily": 0.5}, "needs edges between classes"),
        ({"n_nodes": 50, "seed": -1}, "seed must be an integer"),
    ],
)
def test_sbm_graph_rejects_bad_parameters(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        sbm_graph(**kwargs)
