"""GRACE: deep graph contrastive representation learning (Zhu et al., 2020).

Each epoch draws two views of the graph, G̃₁ and G̃₂, by removing each directed edge
with probability p_{e,k} and zeroing each feature column with probability p_{f,k};
a shared GCN encoder f maps both to U = f(G̃₁), V = f(G̃₂), and a projection head
g(·) = W₂ ELU(W₁ · + b₁) + b₂ gives the vectors that are compared. With
s(u, v) = cos(g(u), g(v)) / τ, the loss of node i in view 1 is

    ℓ(uᵢ, vᵢ) = −log  e^{s(uᵢ,vᵢ)} / ( e^{s(uᵢ,vᵢ)} + Σ_{k≠i} e^{s(uᵢ,vₖ)} + Σ_{k≠i} e^{s(uᵢ,uₖ)} )

(inter-view and intra-view negatives), and the objective is
J = (1/2N) Σᵢ [ℓ(uᵢ, vᵢ) + ℓ(vᵢ, uᵢ)], minimised with Adam.

The encoder is GRACE's: ``num_layers`` GCN layers (in → 2h → … → 2h → h), each
followed by the activation (one ``PReLU`` shared by all layers, as in the
official code). Features are row-normalised first, as the official code's
``T.NormalizeFeatures()`` does. The embeddings are the encoder's output on the
whole graph without augmentation.

Hyper-parameters of the official configurations are in :data:`GRACE_CONFIGS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn
from torch.nn.functional import elu, normalize
from torch.utils.checkpoint import checkpoint

from paperzoo.base import BaseEstimator, check_is_fitted
from paperzoo.errors import ConfigError, UnknownNameError
from paperzoo.settings import Setting
from paperzoo_graph.graph import Graph, GraphError, require_graph
from paperzoo_graph.nn import GCNConv, gcn_norm, to_sparse_csr

__all__ = ["ACTIVATIONS", "GRACE", "GRACE_CONFIGS", "grace_loss"]

ACTIVATIONS = ("relu", "prelu", "rrelu")
"""Encoder activations: ReLU, one PReLU shared by every layer, and RReLU in evaluation
mode (a leaky ReLU of slope (1/8 + 1/3)/2, as GCA's ``F.rrelu`` computes)."""

_SPARSE_BELOW = 0.1
"""Features with fewer non-zeros than this fraction are multiplied as a sparse matrix."""

_DROP_RATE = Setting(low=0, high=1, high_open=True)
"""Allowed values of a drop rate: a probability below 1 (1 would drop everything)."""


def _config(**values: Any) -> Mapping[str, Any]:
    return MappingProxyType({"num_layers": 2, "weight_decay": 1e-5, **values})


GRACE_CONFIGS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        # config.yaml of github.com/CRIPAC-DIG/GRACE (commit b3b5ac3)
        "cora": _config(
            learning_rate=5e-4,
            num_hidden=128,
            num_proj_hidden=128,
            activation="relu",
            drop_edge_rate_1=0.2,
            drop_edge_rate_2=0.4,
            drop_feature_rate_1=0.3,
            drop_feature_rate_2=0.4,
            tau=0.4,
            epochs=200,
        ),
        "citeseer": _config(
            learning_rate=1e-3,
            num_hidden=256,
            num_proj_hidden=256,
            activation="prelu",
            drop_edge_rate_1=0.2,
            drop_edge_rate_2=0.0,
            drop_feature_rate_1=0.3,
            drop_feature_rate_2=0.2,
            tau=0.9,
            epochs=200,
        ),
        # GRACE's repository has no Amazon/Coauthor settings; these are param/amazon_photo.json
        # and param/coauthor_cs.json of its authors' follow-up github.com/CRIPAC-DIG/GCA (commit
        # 0f17497), whose code with --drop_scheme uniform is GRACE (GCA's weight decay 1e-5)
        "amazon-photo": _config(
            learning_rate=0.1,
            num_hidden=256,
            num_proj_hidden=64,
            activation="relu",
            drop_edge_rate_1=0.3,
            drop_edge_rate_2=0.5,
            drop_feature_rate_1=0.1,
            drop_feature_rate_2=0.1,
            tau=0.3,
            epochs=2000,
        ),
        "coauthor-cs": _config(
            learning_rate=5e-4,
            num_hidden=256,
            num_proj_hidden=256,
            activation="rrelu",
            drop_edge_rate_1=0.3,
            drop_edge_rate_2=0.2,
            drop_feature_rate_1=0.3,
            drop_feature_rate_2=0.4,
            tau=0.4,
            epochs=1000,
        ),
    }
)
"""Official hyper-parameters by dataset name (the ``seed`` of the official files is not
kept: our random streams differ from theirs, so it would not reproduce their draws)."""


# ------------------------------------------------------------------ loss


def _block_sums(
    a: torch.Tensor, b: torch.Tensor, start: int, stop: int, tau: float
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Rows [start, stop) of the similarity sums, shifted by the largest possible value 1/τ.

    With S = a bᵀ/τ − 1/τ, Rₐ = a aᵀ/τ − 1/τ and R_b = b bᵀ/τ − 1/τ (diagonals of R
    excluded): returns the positives Sᵢᵢ, the row sums of e^S, e^{Rₐ}, e^{R_b} over
    the block's rows, and the block's contribution to the column sums of e^S.
    """
    shift = torch.tensor(-1.0 / tau, dtype=a.dtype)
    scale = 1.0 / tau
    between = torch.addmm(shift, a[start:stop], b.T, alpha=scale)  # s(aᵢ, bₖ) − 1/τ
    positive = between.diagonal(offset=start)
    e_between = between.exp()
    sums = []
    for u in (a, b):
        refl = torch.addmm(shift, u[start:stop], u.T, alpha=scale)
        refl.diagonal(offset=start).fill_(float("-inf"))  # k ≠ i
        sums.append(refl.exp().sum(dim=1))
    return positive, e_between.sum(dim=1), sums[0], sums[1], e_between.sum(dim=0)


def grace_loss(
    h1: torch.Tensor, h2: torch.Tensor, tau: float, *, batch_size: int | None = None
) -> torch.Tensor:
    """J = (1/2N) Σᵢ [ℓ(h1ᵢ, h2ᵢ) + ℓ(h2ᵢ, h1ᵢ)] of projected views ``h1``, ``h2`` (N × d).

    The inter-view similarities S = a bᵀ are computed once and serve both
    directions (ℓ(h2ᵢ, h1ᵢ) uses the columns of S); every exponent is shifted by
    the largest possible similarity 1/τ, so nothing overflows, and nothing that
    matters underflows in float32 for τ ≥ 0.05.

    With ``batch_size``, rows are processed in blocks of that many, each under
    activation checkpointing: memory O(batch_size · N) instead of O(N²), for one
    more pass over the blocks in the backward; the value equals the full loss up
    to rounding.
    """
    a, b = normalize(h1, dim=1), normalize(h2, dim=1)
    n = a.shape[0]
    if batch_size is None or batch_size >= n:
        positive, row_ab, row_aa, row_bb, col_ab = _block_sums(a, b, 0, n, tau)
    else:
        blocks = [
            checkpoint(_block_sums, a, b, start, min(start + batch_size, n), tau, use_reentrant=False)
            for start in range(0, n, batch_size)  # blocks of rows, not nodes one by one
        ]
        positive, row_ab, row_aa, row_bb = (torch.cat([blk[k] for blk in blocks]) for k in range(4))
        col_ab = torch.stack([blk[4] for blk in blocks]).sum(dim=0)
    loss_ab = torch.log(row_ab + row_aa) - positive  # ℓ(aᵢ, bᵢ)
    loss_ba = torch.log(col_ab + row_bb) - positive  # ℓ(bᵢ, aᵢ)
    return (loss_ab.sum() + loss_ba.sum()) / (2 * n)


# ----------------------------------------------------------------- model


class _Encoder(nn.Module):
    """``num_layers`` GCN layers in → 2h → … → 2h → h, each followed by the activation."""

    def __init__(self, in_features: int, hidden: int, num_layers: int, activation: str) -> None:
        super().__init__()
        dims = [in_features] + [2 * hidden] * (num_layers - 1) + [hidden]
        self.convs = nn.ModuleList(GCNConv(i, o) for i, o in pairwise(dims))
        if activation == "prelu":
            self.activation: nn.Module = nn.PReLU()  # one slope shared by all layers, as in GRACE
        elif activation == "rrelu":
            self.activation = nn.LeakyReLU((1 / 8 + 1 / 3) / 2)  # F.rrelu(x, training=False)
        else:
            self.activation = nn.ReLU()

    def forward(self, x: torch.Tensor, adj: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            x = self.activation(conv(x, adj))
        return x


class _Projection(nn.Module):
    """g(z) = W₂ ELU(W₁ z + b₁) + b₂ (h → proj → h)."""

    def __init__(self, hidden: int, proj_hidden: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(hidden, proj_hidden)
        self.fc2 = nn.Linear(proj_hidden, hidden)

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        return self.fc2(elu(self.fc1(z)))


def _normalize_features(x: np.ndarray) -> np.ndarray:
    """PyG's ``NormalizeFeatures``: x − min(x), then each row divided by max(row sum, 1)."""
    x = x - x.min() if x.size and x.min() != 0 else x
    return x / np.maximum(x.sum(axis=1, keepdims=True), 1.0, dtype=np.float32)


def _features(x: np.ndarray) -> torch.Tensor:
    """Features as a tensor: sparse CSR when mostly zero (bag-of-words), else dense."""
    dense = torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
    return to_sparse_csr(dense) if np.count_nonzero(x) < _SPARSE_BELOW * x.size else dense


def _mask_columns(x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """x with the columns where ``keep`` is 0 zeroed (dense, or sparse CSR without densifying)."""
    if x.layout == torch.sparse_csr:
        columns = x.col_indices()
        values = x.values() * keep[columns]
        return torch.sparse_csr_tensor(x.crow_indices(), columns, values, x.shape, check_invariants=False)
    return x * keep


# ------------------------------------------------------------- estimator


class GRACE(BaseEstimator):
    """GRACE node embeddings (Zhu et al., "Deep Graph Contrastive Representation Learning", 2020).

    Defaults are GRACE's Cora configuration; :meth:`for_dataset` takes another one
    from :data:`GRACE_CONFIGS`.

    Args:
        num_hidden: Embedding size h (the encoder's hidden layers have 2h).
        num_proj_hidden: Hidden size of the projection head.
        activation: ``"relu"``, ``"prelu"`` or ``"rrelu"`` (see :data:`ACTIVATIONS`).
        num_layers: GCN layers of the encoder (≥ 2).
        drop_edge_rate_1: Probability p_{e,1} of removing an edge in view 1.
        drop_edge_rate_2: p_{e,2}, for view 2.
        drop_feature_rate_1: Probability p_{f,1} of masking a feature column in view 1.
        drop_feature_rate_2: p_{f,2}, for view 2.
        tau: Temperature τ.
        learning_rate: Adam's learning rate.
        weight_decay: Adam's weight decay.
        epochs: Training epochs (one gradient step each, on the whole graph).
        normalize_features: Row-normalise the features first, as the official code does.
        batch_size: Rows per block of the loss (bounds memory to O(batch_size · N));
            None computes the N × N similarities at once.
        seed: Seeds the parameter initialisation and the augmentations (the global
            torch RNG is left as it was).

    Attributes:
        embeddings_: ``(N, num_hidden)`` float32 embeddings of the fitted graph.
        loss_history_: The loss J of every epoch.
        encoder_: The trained encoder (a torch module), used by :meth:`transform`.
        n_features_in_: Number of node features seen in fit.
    """

    def __init__(
        self,
        num_hidden: int = 128,
        num_proj_hidden: int = 128,
        activation: str = "relu",
        num_layers: int = 2,
        drop_edge_rate_1: float = 0.2,
        drop_edge_rate_2: float = 0.4,
        drop_feature_rate_1: float = 0.3,
        drop_feature_rate_2: float = 0.4,
        tau: float = 0.4,
        learning_rate: float = 5e-4,
        weight_decay: float = 1e-5,
        epochs: int = 200,
        normalize_features: bool = True,
        batch_size: int | None = None,
        seed: int = 0,
    ) -> None:
        self.num_hidden = num_hidden
        self.num_proj_hidden = num_proj_hidden
        self.activation = activation
        self.num_layers = num_layers
        self.drop_edge_rate_1 = drop_edge_rate_1
        self.drop_edge_rate_2 = drop_edge_rate_2
        self.drop_feature_rate_1 = drop_feature_rate_1
        self.drop_feature_rate_2 = drop_feature_rate_2
        self.tau = tau
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.normalize_features = normalize_features
        self.batch_size = batch_size
        self.seed = seed

    @classmethod
    def for_dataset(cls, name: str, **overrides: Any) -> GRACE:
        """GRACE with the official hyper-parameters for ``name`` (a key of :data:`GRACE_CONFIGS`).

        >>> GRACE.for_dataset("citeseer", epochs=20).tau
        0.9

        Raises:
            UnknownNameError: no configuration for ``name``.
            ConfigError: an override is not a parameter of GRACE.
        """
        key = str(name).lower()
        if key not in GRACE_CONFIGS:
            raise UnknownNameError(
                f"GRACE has no configuration for {name!r}", hint=f"choose one of: {', '.join(GRACE_CONFIGS)}"
            )
        unknown = sorted(set(overrides) - set(cls._get_param_names()))
        if unknown:
            raise ConfigError(
                f"GRACE has no parameter {unknown[0]!r}",
                hint=f"its parameters are: {', '.join(cls._get_param_names())}",
            )
        return cls(**{**GRACE_CONFIGS[key], **overrides})

    # ---------------------------------------------------------- validation

    _parameters: ClassVar[Mapping[str, Setting]] = {
        "num_hidden": Setting(low=1),
        "num_proj_hidden": Setting(low=1),
        "activation": Setting(choices=ACTIVATIONS),
        "num_layers": Setting(low=2),
        "drop_edge_rate_1": _DROP_RATE,
        "drop_edge_rate_2": _DROP_RATE,
        "drop_feature_rate_1": _DROP_RATE,
        "drop_feature_rate_2": _DROP_RATE,
        "tau": Setting(low=0.05, help="below 0.05 float32 loses the loss's precision"),
        "learning_rate": Setting(low=0, low_open=True),
        "weight_decay": Setting(low=0),
        "epochs": Setting(low=1),
        "batch_size": Setting(None, type="int", low=1, allow_none=True),
        "seed": Setting(low=0),
    }
    """Allowed values of the parameters, checked by :meth:`fit` before any work."""

    def _check_params(self) -> dict[str, Any]:
        """The parameters, checked against :attr:`_parameters` (one ``ConfigError`` line)."""
        params = self._validate_params()
        # a bool Setting refuses numpy.bool_, which GRACE has always accepted: checked here
        if not isinstance(params["normalize_features"], (bool, np.bool_)):
            raise ConfigError(
                f"GRACE: normalize_features must be True or False, got {self.normalize_features!r}"
            )
        return params

    @staticmethod
    def _check_graph(graph: Any, verb: str) -> Graph:
        require_graph(graph, f"GRACE.{verb}")
        if graph.num_nodes == 0 or graph.num_features == 0:
            raise GraphError(
                f"GRACE.{verb}: {graph.name} has {graph.num_nodes} nodes and {graph.num_features} features; "
                "it needs at least one of each"
            )
        if not np.isfinite(graph.x).all():
            raise GraphError(f"GRACE.{verb}: {graph.name} has NaN or infinite features", hint="clean x first")
        return graph

    def _inputs(self, graph: Graph) -> torch.Tensor:
        return _features(_normalize_features(graph.x) if self.normalize_features else graph.x)

    # ------------------------------------------------------------- fitting

    def fit(self, graph: Graph) -> GRACE:
        """Train on ``graph`` for ``epochs`` epochs; set :attr:`embeddings_` and :attr:`loss_history_`."""
        p = self._check_params()
        graph = self._check_graph(graph, "fit")
        n = graph.num_nodes
        x = self._inputs(graph)
        edges = torch.from_numpy(graph.edge_index)
        generator = torch.Generator().manual_seed(p["seed"])
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(p["seed"])
            encoder = _Encoder(graph.num_features, p["num_hidden"], p["num_layers"], p["activation"])
            projection = _Projection(p["num_hidden"], p["num_proj_hidden"])
        parameters = list(encoder.parameters()) + list(projection.parameters())
        optimiser = torch.optim.Adam(parameters, lr=p["learning_rate"], weight_decay=p["weight_decay"])
        rates = (
            (p["drop_edge_rate_1"], p["drop_feature_rate_1"]),
            (p["drop_edge_rate_2"], p["drop_feature_rate_2"]),
        )
        history = np.empty(p["epochs"])
        encoder.train()
        projection.train()
        for epoch in range(p["epochs"]):
            optimiser.zero_grad()
            views = []
            for edge_rate, feature_rate in rates:
                kept = edges[:, torch.rand(edges.shape[1], generator=generator) >= edge_rate]
                keep = (torch.rand(graph.num_features, generator=generator) >= feature_rate).to(torch.float32)
                views.append(projection(encoder(_mask_columns(x, keep), gcn_norm(kept, n))))
            loss = grace_loss(views[0], views[1], p["tau"], batch_size=p["batch_size"])
            loss.backward()
            optimiser.step()
            history[epoch] = float(loss.detach())
        encoder.eval()
        with torch.inference_mode():
            embeddings = encoder(x, gcn_norm(edges, n))
        self.encoder_ = encoder
        self.n_features_in_ = graph.num_features
        self.embeddings_ = embeddings.numpy().astype(np.float32, copy=False)
        self.loss_history_ = history
        return self

    def transform(self, graph: Graph) -> np.ndarray:
        """``(N, num_hidden)`` embeddings of ``graph`` (the fitted one or another with as many features)."""
        check_is_fitted(self, "encoder_")
        graph = self._check_graph(graph, "transform")
        if graph.num_features != self.n_features_in_:
            raise GraphError(
                f"GRACE.transform: {graph.name} has {graph.num_features} features, "
                f"but the encoder was fitted on {self.n_features_in_}"
            )
        self.encoder_.eval()
        with torch.inference_mode():
            out = self.encoder_(self._inputs(graph), gcn_norm(graph.edge_index, graph.num_nodes))
        return out.numpy().astype(np.float32, copy=False)

    def fit_transform(self, graph: Graph) -> np.ndarray:
        """``fit(graph).embeddings_``."""
        return self.fit(graph).embeddings_
