"""ML2GCL as an estimator: determinism, training, bad input (the core's contract is in test_experiments.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

from paperzoo.errors import ConfigError, NotFittedError
from paperzoo_graph.graph import Graph
from paperzoo_ml2gcl import estimator as estimator_module
from paperzoo_ml2gcl.estimator import ML2GCL


def small_graph() -> Graph:
    rng = np.random.default_rng(0)
    n = 40
    upper = np.triu(rng.random((n, n)) < 0.15, 1)
    src, dst = np.nonzero(upper | upper.T)
    return Graph((rng.random((n, 12)) < 0.3).astype(np.float32), np.stack([src, dst]), rng.integers(0, 2, n))


FAST = {"hidden": 16, "epochs": 3}


def test_defaults_are_the_papers() -> None:
    p = ML2GCL().get_params()
    assert (p["tau"], p["epsilon"], p["hidden"], p["dropout"]) == (0.7, 0.01, 500, 0.5)
    assert (p["lr"], p["weight_decay"], p["epochs"], p["weights"]) == (5e-4, 5e-5, 40, "ridge")


def test_training_lowers_the_loss(make_graph: Callable[..., Graph]) -> None:
    model = ML2GCL(hidden=32, epochs=30, lr=5e-3, dropout=0.0).fit(make_graph(n=80))
    assert model.loss_history_[-1] < model.loss_history_[0] - 0.01
    assert model.embeddings_.shape == (80, 32)
    assert model.embeddings_.dtype == np.float32


def test_seed_decides_the_embeddings_and_the_global_rng_is_left_alone() -> None:
    g = small_graph()
    torch.manual_seed(123)
    expected_next = torch.rand(1)
    torch.manual_seed(123)
    a = ML2GCL(**FAST, seed=1).fit(g).embeddings_
    assert torch.rand(1) == expected_next
    b = ML2GCL(**FAST, seed=1).fit(g).embeddings_
    c = ML2GCL(**FAST, seed=2).fit(g).embeddings_
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_transform_of_the_training_graph_is_the_embeddings() -> None:
    g = small_graph()
    model = ML2GCL(**FAST).fit(g)
    np.testing.assert_allclose(model.transform(g), model.embeddings_, atol=1e-6)


def test_sparse_and_dense_feature_paths_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    g = small_graph()
    dense = ML2GCL(**FAST).fit(g).embeddings_
    monkeypatch.setattr(estimator_module, "_SPARSE_BELOW", 1.1)  # force the sparse product
    np.testing.assert_allclose(ML2GCL(**FAST).fit(g).embeddings_, dense, atol=1e-5)


def test_sampled_negatives_train(make_graph: Callable[..., Graph]) -> None:
    model = ML2GCL(hidden=16, epochs=5, num_negatives=8).fit(make_graph(n=50))
    assert np.isfinite(model.embeddings_).all()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"tau": 0.0}, "ML2GCL: tau must be a number > 0, got 0.0"),
        ({"tau": float("inf")}, "tau must be a number > 0, got inf"),
        ({"epsilon": -1.0}, "epsilon must be a number > 0, got -1.0"),
        ({"hidden": 0}, "hidden must be an integer ≥ 1, got 0"),
        ({"epochs": 2.5}, "epochs must be an integer ≥ 1, got 2.5"),
        ({"dropout": 1.0}, r"dropout must be a number in \[0, 1\), got 1.0"),
        ({"lr": 0}, "lr must be a number > 0, got 0"),
        ({"weight_decay": -1e-5}, "weight_decay must be a number ≥ 0"),
        ({"num_negatives": 0}, "num_negatives must be an integer ≥ 1 or none, got 0"),
        ({"weights": "pca"}, "weights must be one of 'ridge', 'lle', got 'pca'"),
        ({"negatives": "all"}, "negatives must be one of 'non-neighbours', 'zero-weight', got 'all'"),
    ],
)
def test_bad_parameters_fail_before_any_work(params: dict[str, Any], message: str) -> None:
    model = ML2GCL(**params)
    with pytest.raises(ConfigError, match=message):
        model.fit(small_graph())
    assert not hasattr(model, "embeddings_")


def test_bad_inputs_are_refused_clearly() -> None:
    with pytest.raises(ConfigError, match="expects a paperzoo_graph.Graph, got ndarray"):
        ML2GCL().fit(np.zeros((3, 3)))  # type: ignore[arg-type]
    lonely = Graph(np.ones((3, 2)), np.zeros((2, 0), dtype=np.int64), np.zeros(3, dtype=np.int64))
    with pytest.raises(ConfigError, match="need at least 2 nodes and one edge"):
        ML2GCL().fit(lonely)
    with pytest.raises(NotFittedError):
        ML2GCL().transform(small_graph())
    model = ML2GCL(**FAST).fit(small_graph())
    other = small_graph().replace(x=np.ones((40, 5), dtype=np.float32))
    with pytest.raises(ConfigError, match="has 5 features; the encoder was fitted on 12"):
        model.transform(other)
