"""The ML²-GCL estimator: ``ML2GCL().fit(graph).embeddings_``."""

from __future__ import annotations

import time
from typing import Literal

import numpy as np
import scipy.sparse as sp
import torch

from paperzoo.base import BaseEstimator, check_int, check_is_fitted
from paperzoo.errors import ConfigError
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

    def _check_params(self) -> None:
        for name in ("hidden", "epochs", "block_size"):
            check_int(name, getattr(self, name), low=1)
        check_int("num_negatives", self.num_negatives, low=1, allow_none=True)
        if not self.tau > 0:
            raise ConfigError(f"tau must be > 0, got {self.tau!r}")
        if not self.epsilon > 0:
            raise ConfigError(f"epsilon must be > 0 (it makes G + εI invertible), got {self.epsilon!r}")
        if not 0 <= self.dropout < 1:
            raise ConfigError(f"dropout must be in [0, 1), got {self.dropout!r}")
        if not self.lr > 0 or self.weight_decay < 0:
            raise ConfigError(
                f"need lr > 0 and weight_decay ≥ 0, got lr={self.lr!r}, weight_decay={self.weight_decay!r}"
            )
        if self.weights not in WEIGHT_METHODS:
            raise ConfigError(f"unknown weights {self.weights!r}; choose one of {', '.join(WEIGHT_METHODS)}")
        if self.negatives not in NEGATIVES:
            raise ConfigError(f"unknown negatives {self.negatives!r}; choose one of {', '.join(NEGATIVES)}")

    def _features(self, graph: Graph) -> np.ndarray:
        return (graph.x > 0).astype(np.float32) if self.binarize else graph.x

    def fit(self, graph: Graph) -> ML2GCL:
        """Compute the weights, train the encoder, store the embeddings; return ``self``."""
        require_graph(graph, "ML2GCL.fit")
        if graph.num_nodes < 2 or graph.num_edges == 0:
            raise ConfigError(f"{graph.name}: need at least 2 nodes and one edge, got {graph!r}")
        self._check_params()
        x = self._features(graph)
        start = time.perf_counter()
        weights = neighbour_weights(x, graph.edge_index, epsilon=self.epsilon, method=self.weights)
        weights_s = time.perf_counter() - start

        loss_fn = ContrastiveLoss(
            weights,
            tau=self.tau,
            negatives=self.negatives,
            num_negatives=self.num_negatives,
            block_size=self.block_size,
        )
        features = _as_input(x)
        adj = gcn_norm(graph.edge_index, graph.num_nodes)
        start = time.perf_counter()
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            generator = torch.Generator().manual_seed(self.seed + 1)
            encoder = Encoder(graph.num_features, self.hidden, dropout=self.dropout)
            optimiser = torch.optim.Adam(encoder.parameters(), lr=self.lr, weight_decay=self.weight_decay)
            history = []
            encoder.train()
            for _ in range(self.epochs):
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
