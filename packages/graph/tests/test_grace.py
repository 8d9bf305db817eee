"""GRACE: its loss against the official formula, blocks, determinism, learning, bad input, Cora."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch
from torch.nn.functional import normalize

import paperzoo_graph.grace as grace_module
from paperzoo.data import locate_unverified
from paperzoo.errors import ConfigError, NotFittedError, UnknownNameError
from paperzoo_graph.datasets import load_graph, sbm_graph
from paperzoo_graph.evaluation import linear_probe, random_splits
from paperzoo_graph.grace import GRACE, GRACE_CONFIGS, grace_loss
from paperzoo_graph.graph import Graph, GraphError
from paperzoo_graph.plugin import PLANETOID_FILES


def small_graph(seed: int = 0) -> Graph:
    return sbm_graph(
        120, n_classes=3, avg_degree=6.0, n_features=24, feature_density=0.2, signal=0.6, seed=seed
    )


def official_loss(h1: torch.Tensor, h2: torch.Tensor, tau: float) -> torch.Tensor:
    """GRACE's ``Model.loss`` (model.py of CRIPAC-DIG/GRACE), written out directly."""

    def semi(z1: torch.Tensor, z2: torch.Tensor) -> torch.Tensor:
        z1, z2 = normalize(z1), normalize(z2)
        refl, between = torch.exp(z1 @ z1.T / tau), torch.exp(z1 @ z2.T / tau)
        return -torch.log(between.diag() / (refl.sum(1) + between.sum(1) - refl.diag()))

    return ((semi(h1, h2) + semi(h2, h1)) * 0.5).mean()


# ------------------------------------------------------------------- loss


@pytest.mark.parametrize("tau", [0.05, 0.4, 0.9])
def test_loss_equals_the_official_formula(tau: float) -> None:
    g = torch.Generator().manual_seed(0)
    h1, h2 = (
        torch.randn(50, 8, generator=g, dtype=torch.float64),
        torch.randn(50, 8, generator=g, dtype=torch.float64),
    )
    torch.testing.assert_close(grace_loss(h1, h2, tau), official_loss(h1, h2, tau))


@pytest.mark.parametrize("batch_size", [1, 7, 49, 50, 200])
def test_blocked_loss_and_gradient_equal_the_full_ones(batch_size: int) -> None:
    g = torch.Generator().manual_seed(1)
    h1 = torch.randn(50, 8, generator=g, requires_grad=True)
    h2 = torch.randn(50, 8, generator=g, requires_grad=True)
    full = grace_loss(h1, h2, 0.5)
    grads = torch.autograd.grad(full, (h1, h2))
    blocked = grace_loss(h1, h2, 0.5, batch_size=batch_size)
    blocked_grads = torch.autograd.grad(blocked, (h1, h2))
    torch.testing.assert_close(blocked, full, rtol=1e-5, atol=1e-6)
    for a, b in zip(blocked_grads, grads):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


def test_fit_with_batch_size_gives_the_full_loss_history() -> None:
    graph = small_graph()
    full = GRACE(num_hidden=16, num_proj_hidden=16, epochs=5).fit(graph)
    blocked = GRACE(num_hidden=16, num_proj_hidden=16, epochs=5, batch_size=32).fit(graph)
    np.testing.assert_allclose(blocked.loss_history_, full.loss_history_, rtol=1e-4)
    np.testing.assert_allclose(blocked.embeddings_, full.embeddings_, rtol=1e-3, atol=1e-4)


# --------------------------------------------------------------- training


def test_same_seed_same_embeddings_other_seed_other_embeddings() -> None:
    graph = small_graph()
    a = GRACE(num_hidden=16, num_proj_hidden=16, epochs=4, seed=5).fit(graph)
    b = GRACE(num_hidden=16, num_proj_hidden=16, epochs=4, seed=5).fit(graph)
    c = GRACE(num_hidden=16, num_proj_hidden=16, epochs=4, seed=6).fit(graph)
    np.testing.assert_array_equal(a.embeddings_, b.embeddings_)
    np.testing.assert_array_equal(a.loss_history_, b.loss_history_)
    assert not np.allclose(a.embeddings_, c.embeddings_)
    assert a.embeddings_.shape == (120, 16) and a.embeddings_.dtype == np.float32


@pytest.mark.parametrize("activation", ["relu", "prelu", "rrelu"])
def test_loss_decreases_on_an_sbm_graph(activation: str) -> None:
    model = GRACE(num_hidden=32, num_proj_hidden=32, epochs=40, learning_rate=0.01, activation=activation)
    history = model.fit(small_graph()).loss_history_
    assert history.shape == (40,)
    assert history[-5:].mean() < history[0] - 0.1


def test_sparse_and_dense_features_give_the_same_embeddings(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = small_graph()
    monkeypatch.setattr(grace_module, "_SPARSE_BELOW", 1.1)  # always sparse
    sparse = GRACE(num_hidden=16, num_proj_hidden=16, epochs=3).fit(graph)
    monkeypatch.setattr(grace_module, "_SPARSE_BELOW", 0.0)  # always dense
    dense = GRACE(num_hidden=16, num_proj_hidden=16, epochs=3).fit(graph)
    np.testing.assert_allclose(sparse.loss_history_, dense.loss_history_, rtol=1e-5)
    np.testing.assert_allclose(sparse.embeddings_, dense.embeddings_, rtol=1e-4, atol=1e-5)


def test_transform_reproduces_the_fitted_embeddings_and_checks_features() -> None:
    graph = small_graph()
    model = GRACE(num_hidden=8, num_proj_hidden=8, epochs=2)
    with pytest.raises(NotFittedError):
        model.transform(graph)
    model.fit(graph)
    np.testing.assert_allclose(model.transform(graph), model.embeddings_, rtol=1e-6)
    assert model.transform(small_graph(seed=1)).shape == (120, 8)  # another graph, same features
    with pytest.raises(GraphError, match="has 5 features, but the encoder was fitted on 24"):
        model.transform(sbm_graph(30, n_classes=2, n_features=5))


def test_features_are_row_normalised_like_pygs_normalize_features() -> None:
    x = np.array([[1.0, 1.0, 0.0, 2.0], [0.0, 0.0, 0.0, 0.0], [0.5, 0.0, 0.0, 0.0]], dtype=np.float32)
    np.testing.assert_allclose(
        grace_module._normalize_features(x), [[0.25, 0.25, 0, 0.5], [0, 0, 0, 0], [0.5, 0, 0, 0]]
    )


# ------------------------------------------------------------ configuration


def test_for_dataset_uses_the_official_configurations() -> None:
    cora = GRACE.for_dataset("cora")
    assert cora.get_params() == GRACE().get_params()  # the defaults are GRACE's Cora config
    citeseer = GRACE.for_dataset("CiteSeer", epochs=20, seed=3)
    assert (citeseer.tau, citeseer.activation, citeseer.num_hidden, citeseer.epochs) == (
        0.9,
        "prelu",
        256,
        20,
    )
    assert set(GRACE_CONFIGS) == {"cora", "citeseer", "amazon-photo", "coauthor-cs"}
    for config in GRACE_CONFIGS.values():
        GRACE(**config)._check_params()
    with pytest.raises(UnknownNameError, match="choose one of: cora, citeseer"):
        GRACE.for_dataset("pubmed")
    with pytest.raises(ConfigError, match="GRACE has no parameter 'lr'"):
        GRACE.for_dataset("cora", lr=0.1)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"num_hidden": 0}, "GRACE: num_hidden must be an integer ≥ 1, got 0"),
        ({"num_layers": 1}, "num_layers must be an integer ≥ 2"),
        ({"epochs": 2.5}, "epochs must be an integer ≥ 1"),
        ({"drop_edge_rate_1": 1.0}, r"GRACE: drop_edge_rate_1 must be a number in \[0, 1\), got 1.0"),
        ({"drop_feature_rate_2": -0.1}, "drop_feature_rate_2 must be a number in"),
        ({"tau": 0.0}, "tau must be a number ≥ 0.05, got 0.0"),
        ({"learning_rate": -1.0}, "learning_rate must be a number > 0, got -1.0"),
        ({"activation": "gelu"}, "activation must be one of 'relu', 'prelu', 'rrelu', got 'gelu'"),
        ({"batch_size": 0}, "batch_size must be an integer ≥ 1 or none, got 0"),
        ({"normalize_features": "yes"}, "normalize_features must be True or False"),
        ({"seed": -1}, "seed must be an integer ≥ 0"),
    ],
)
def test_bad_parameters_fail_before_any_work(params: dict, message: str) -> None:
    model = GRACE(**params)
    with pytest.raises(ConfigError, match=message) as info:
        model.fit(small_graph())
    assert "\n" not in str(info.value)
    assert not hasattr(model, "embeddings_")


def test_bad_graphs_fail_with_one_clear_line() -> None:
    with pytest.raises(GraphError, match="GRACE.fit expects a paperzoo_graph.Graph, got ndarray"):
        GRACE().fit(np.zeros((3, 3)))
    empty = Graph(x=np.zeros((0, 4)), edge_index=np.zeros((2, 0), dtype=int), y=np.zeros(0, dtype=int))
    with pytest.raises(GraphError, match="has 0 nodes and 4 features"):
        GRACE().fit(empty)
    nan = small_graph().replace(x=np.full((120, 24), np.nan))
    with pytest.raises(GraphError, match="NaN or infinite features"):
        GRACE().fit(nan)


# ------------------------------------------------------------------- Cora


@pytest.mark.skipif(
    any(locate_unverified(f) is None for f in PLANETOID_FILES["cora"].values()),
    reason="Cora not available (set PAPERZOO_DATA_MIRROR)",
)
def test_twenty_epochs_on_cora_give_embeddings_well_above_chance_and_raw_features() -> None:
    graph = load_graph("cora")
    splits = random_splits(graph.y, n_splits=3, seed=0)
    start = time.perf_counter()
    model = GRACE.for_dataset("cora", epochs=20, learning_rate=5e-3).fit(graph)
    assert time.perf_counter() - start < 60
    assert model.loss_history_[-1] < model.loss_history_[0] - 0.5
    probe = linear_probe(model.embeddings_, graph.y, splits)
    majority = max(np.bincount(graph.y[s.test]).max() / s.test.size for s in splits) * 100
    raw = linear_probe(graph.x, graph.y, splits)
    assert probe.mean > majority + 25  # chance (majority class) is about 32 %
    assert probe.mean > raw.mean + 3  # and the embeddings beat the bag of words they come from


def test_numpy_scalars_are_accepted_as_parameters() -> None:
    model = GRACE(num_hidden=np.int64(4), num_proj_hidden=4, epochs=np.int32(1), tau=np.float32(0.5),
                  normalize_features=np.True_, seed=np.int64(2))  # fmt: skip
    assert model.fit(small_graph()).embeddings_.shape == (120, 4)
    assert model.get_params()["epochs"] == np.int32(1)  # stored unchanged
