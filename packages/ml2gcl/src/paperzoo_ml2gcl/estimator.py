"""The ML²-GCL estimator: ``ML2GCL().fit(graph).embeddings_``."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

import numpy as np
import scipy.sparse as sp
import torch

from paperzoo.base import BaseEstimator, check_is_fitted
from paperzoo.errors import ConfigError
from paperzoo.settings import Setting
from paperzoo_graph.graph import Graph, require_graph
from paperzoo_graph.nn import gcn_norm, to_sparse_csr
from paperzoo_ml2gcl.encoder import Encoder
from paperzoo_ml2gcl.loss import NEGATIVES, ContrastiveLoss
from paperzoo_ml2gcl.weights import WEIGHT_METHODS, neighbour_weights

__all__ = ["ML2GCL"]

_SPARSE_BELOW = 0.25  # feature density under which the first layer multiplies a sparse X


def _as_input(x: np.ndarray) -> torch.Tensor:
    """Features as a tensor: sparse CSR when mostly zero (binary bag-of-words), else dense."""
    dense = torch.from_numpy(x)
    return to_sparse_csr(dense) if np.count_nonzero(x) < _SPARSE_BELOW * x.size else dense


class ML2GCL(BaseEstimator):
    """Manifold-learning-inspired lightweight graph contrastive learning (Liang et al., ICML 2025).

    One view, no augmentation: positives are each node's graph neighbours, weighted
    by how well they linearly reconstruct the node's features (closed form, computed
    once before training); the loss contrasts them with the mean negative.
    Defaults are the paper's (official code): τ = 0.7, ε = 0.01, hidden 500,
    dropout 0.5, Adam lr 5e-4, weight decay 5e-5, 40 full-batch epochs.

    Args:
        hidden: Width of both GCN layers (= embedding size).
        tau: Temperature τ of the loss.
        epsilon: Ridge ε of the closed-form weights.
        weights: ``"ridge"`` (official) or ``"lle"`` (sum-to-one constrained).
        negatives: ``"non-neighbours"`` (default) or ``"zero-weight"`` (official:
            clipped neighbours and the node itself count as negatives).
        num_negatives: ``None``: exact loss over all negatives (memory O(block_size · N));
            an int k: k negatives sampled each epoch, shared by all nodes (for very large graphs).
        block_size: Rows per block of the exact loss.
        dropout: Dropout between the two layers.
        lr: Adam learning rate.
        weight_decay: Adam weight decay.
        epochs: Full-batch training epochs.
        binarize: Use 1[x > 0] as features, for the weights and the encoder (paper).
        seed: Seeds the initialisation, dropout and negative sampling; the caller's
            global torch RNG state is left untouched.

    Attributes:
        embeddings_: ``(N, hidden)`` float32 embeddings of the training graph.
        encoder_: The trained :class:`~paperzoo_ml2gcl.encoder.Encoder` (eval mode).
        weights_: The ``(N, N)`` CSR positive weights.
        loss_history_: The loss at each epoch.
        timings_: Seconds spent on ``"weights"`` and ``"training"``.
    """

    def __init__(
        self,
        hidden: int = 500,
        tau: float = 0.7,
        epsilon: float = 0.01,
        weights: Literal["ridge", "lle"] = "ridge",
        negatives: Literal["non-neighbours", "zero-weight"] = "non-neighbours",
        num_negatives: int | None = None,
        block_size: int = 2048,
        dropout: float = 0.5,
        lr: float = 5e-4,
        weight_decay: float = 5e-5,
        epochs: int = 40,
        binarize: bool = True,
        seed: int = 0,
    ) -> None:
        self.hidden = hidden
        self.tau = tau
        self.epsilon = epsilon
        self.weights = weights
        self.negatives = negatives
        self.num_negatives = num_negatives
        self.block_size = block_size
        self.dropout = dropout
        self.lr = lr
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.binarize = binarize
        self.seed = seed

    _parameters: ClassVar[Mapping[str, Setting]] = {
        "hidden": Setting(low=1),
        "tau": Setting(low=0, low_open=True),
        "epsilon": Setting(low=0, low_open=True, help="makes G + εI invertible"),
        "weights": Setting(choices=WEIGHT_METHODS),
        "negatives": Setting(choices=NEGATIVES),
        "num_negatives": Setting(None, type="int", low=1, allow_none=True, help="none: the exact loss"),
        "block_size": Setting(low=1),
        "dropout": Setting(low=0, high=1, high_open=True),
        "lr": Setting(low=0, low_open=True),
        "weight_decay": Setting(low=0),
        "epochs": Setting(low=1),
    }
    """Allowed values of the parameters, checked by :meth:`fit` before any work."""

    def _features(self, graph: Graph) -> np.ndarray:
        return (graph.x > 0).astype(np.float32) if self.binarize else graph.x

    def fit(self, graph: Graph) -> ML2GCL:
        """Compute the weights, train the encoder, store the embeddings; return ``self``."""
        require_graph(graph, "ML2GCL.fit")
        if graph.num_nodes < 2 or graph.num_edges == 0:
            raise ConfigError(f"{graph.name}: need at least 2 nodes and one edge, got {graph!r}")
        p: dict[str, Any] = self._validate_params()
        x = self._features(graph)
        start = time.perf_counter()
        weights = neighbour_weights(x, graph.edge_index, epsilon=p["epsilon"], method=p["weights"])
        weights_s = time.perf_counter() - start

        loss_fn = ContrastiveLoss(
            weights,
            tau=p["tau"],
            negatives=p["negatives"],
            num_negatives=p["num_negatives"],
            block_size=p["block_size"],
        )
        features = _as_input(x)
        adj = gcn_norm(graph.edge_index, graph.num_nodes)
        start = time.perf_counter()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            generator = torch.Generator().manual_seed(self.seed + 1)
            encoder = Encoder(graph.num_features, p["hidden"], dropout=p["dropout"])
            optimiser = torch.optim.Adam(encoder.parameters(), lr=p["lr"], weight_decay=p["weight_decay"])
            history = []
            encoder.train()
            for _ in range(p["epochs"]):
                optimiser.zero_grad()
                loss = loss_fn(encoder(features, adj), generator=generator)
                loss.backward()
                optimiser.step()
                history.append(float(loss.detach()))
            encoder.eval()
            with torch.no_grad():
                embeddings = encoder(features, adj).numpy()
        self.encoder_ = encoder
        self.weights_: sp.csr_array = weights
        self.embeddings_ = embeddings
        self.loss_history_ = history
        self.timings_ = {"weights": weights_s, "training": time.perf_counter() - start}
        return self

    def transform(self, graph: Graph) -> np.ndarray:
        """Embeddings of ``graph``'s nodes by the trained encoder (the graph may be new)."""
        check_is_fitted(self, "encoder_")
        require_graph(graph, "ML2GCL.transform")
        expected = self.encoder_.conv1.weight.shape[0]
        if graph.num_features != expected:
            raise ConfigError(
                f"{graph.name} has {graph.num_features} features; the encoder was fitted on {expected}"
            )
        with torch.no_grad():
            x = _as_input(self._features(graph))
            return self.encoder_(x, gcn_norm(graph.edge_index, graph.num_nodes)).numpy()

    def fit_transform(self, graph: Graph) -> np.ndarray:
        """``fit(graph).embeddings_``."""
        return self.fit(graph).embeddings_
