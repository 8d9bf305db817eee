"""Distributed multi-source transfer: MDTL-Avg and MDTL-Max (Zhang et al., ICML 2025, §5).

Each source k is a worker holding a local table Q_k. A round is E local robust
updates with step λ,

    Q_k ← (1 − λ) Q_k + λ T̂_k Q_k,     T_k Q = r + γ [P_k V − Γ_k κ(V)],

(or, with ``backup="exact"`` / ``"exact-simplex"``, T_k Q = r + γ σ_k with σ_k the exact
L1 worst case of :func:`.operators.l1_worst_case`, model-based only),

then a synchronisation Q ← (1/K) Σ_k Q_k (MDTL-Avg) or Q ← max_k Q_k
(MDTL-Max, element-wise), broadcast back to every worker. Model-based T̂_k = T_k;
sample-based T̂_k replaces P_k(·|s,a)·V by the mean of V over ``n_samples`` draws
s' ~ P_k(·|s,a). That estimate is unbiased for the average but not for a max of
expectations, so sample-based MDTL-Max takes its last local step and the max
together with a multilevel Monte Carlo (MLMC) estimator of max_k E[X_k]
(Blanchet & Glynn 2015):

    Ẑ = f(X̄₁) + Δ_N / p_N,   N ~ p_n ∝ q(1 − q)ⁿ (n = 0 … L),  f = max_k,
    Δ_n = f(X̄_{2^{n+1}}) − ½ [f(X̄^{odd}_{2^n}) + f(X̄^{even}_{2^n})],

whose mean telescopes to E f(X̄_{2^{L+1}}): unbiased up to the bias of 2^{L+1} samples.

One function runs a block of sources, vectorised with ``jax.vmap``; the
aggregation reduces over the block and, when the sources are sharded across
devices with ``jax.shard_map``, over the mesh axis ``"sources"`` too
(``psum``/``pmax``), so the same code is the single-device and the sharded path.
With E = 1 the model-based iterations are Q ← (1 − λ) Q + λ T_AO Q and
Q ← (1 − λ) Q + λ T_MP Q, converging to the fixed points of :mod:`.operators`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Any, ClassVar, Literal

import numpy as np

from paperzoo import BaseEstimator, Setting, check_is_fitted
from paperzoo.errors import ConfigError
from paperzoo_pessimistic_transfer.operators import BACKUPS, check_sources, robust_expectation

__all__ = ["MDTL", "MDTLResult", "mdtl", "mdtl_numpy", "mlmc_max"]

MLMC_Q = 1.0 - 2.0**-1.5
"""Geometric parameter of the MLMC level distribution (finite variance and cost)."""

SOURCES = "sources"
LEVEL_STREAM = 2**31 - 1  # key stream of the MLMC levels, shared by every source


@dataclass(frozen=True)
class MDTLResult:
    """Q: the aggregated table after the last round (S, A); history: after each round (T, S, A)."""

    Q: np.ndarray
    history: np.ndarray


def mlmc_max(X: Any, key: Any, levels: int, reduce_max: Any = None) -> Any:
    """MLMC estimate of max_k E[X_k] from draws X of shape (K, 2^{L+1}, ...) (Blanchet & Glynn 2015).

    Ẑ = f(X̄₁) + Δ_N / p_N with f = max over k, the level N ~ p_n ∝ q(1 − q)ⁿ drawn once
    per entry from ``key``, Δ_n = f(X̄_{2^{n+1}}) − ½ [f(X̄^{first}_{2^n}) + f(X̄^{second}_{2^n})].
    E Ẑ = E f(X̄_{2^{L+1}}): unbiased for max_k E[X_k] up to the (small) bias of 2^{L+1} draws.
    ``reduce_max`` replaces the max over axis 0 (e.g. to add a ``pmax`` over devices).
    """
    import jax
    import jax.numpy as jnp

    reduce_max = reduce_max or (lambda x: x.max(0))
    stats = [X[:, 0]]
    for n in range(levels + 1):
        h = 2**n
        stats += [X[:, : 2 * h].mean(1), X[:, :h].mean(1), X[:, h : 2 * h].mean(1)]
    F = reduce_max(jnp.stack(stats, axis=1))  # max over the sources: (1 + 3(L+1), ...)
    base, rest = F[0], F[1:].reshape(levels + 1, 3, *F.shape[1:])
    deltas = rest[:, 0] - 0.5 * (rest[:, 1] + rest[:, 2])  # (L+1, ...)
    p = MLMC_Q * (1 - MLMC_Q) ** jnp.arange(levels + 1)
    p = p / p.sum()
    level = jax.random.categorical(key, jnp.log(p), shape=base.shape)  # one level per entry
    chosen = jnp.take_along_axis(deltas, level[None], axis=0)[0]
    return base + chosen / p[level]


def _check(aggregation: str, local_steps: int, step_size: float, rounds: int, sampling: str, n_samples: int,
           mlmc_levels: int, backup: str = "kappa") -> None:  # fmt: skip
    if aggregation not in ("avg", "max"):
        raise ConfigError(f"aggregation must be 'avg' or 'max', got {aggregation!r}")
    if backup not in BACKUPS:
        raise ConfigError(f"backup must be one of {BACKUPS}, got {backup!r}")
    if backup != "kappa" and sampling != "model":
        raise ConfigError(
            f"backup={backup!r} needs the source kernels (the worst case depends on each row)",
            hint="use sampling='model', or backup='kappa' with sampling='samples'",
        )
    if sampling not in ("model", "samples"):
        raise ConfigError(f"sampling must be 'model' or 'samples', got {sampling!r}")
    if local_steps < 1 or rounds < 1 or n_samples < 1 or mlmc_levels < 0:
        raise ConfigError(
            f"local_steps, rounds and n_samples must be ≥ 1 and mlmc_levels ≥ 0, got E={local_steps}, "
            f"T={rounds}, n_samples={n_samples}, mlmc_levels={mlmc_levels}"
        )
    if not 0.0 < step_size <= 1.0:
        raise ConfigError(f"step_size λ must lie in (0, 1], got {step_size}", hint="the paper uses 0.05")


def _block(
    Ps: Any, radii: Any, ids: Any, r: Any, key: Any, *, gamma: float, lam: float, E: int, T: int,
    aggregation: str, sampling: str, n_samples: int, levels: int, axis: str | None, backup: str = "kappa",
) -> Any:  # fmt: skip
    """Run T rounds on a block of sources (Kb, S, A, S); returns the aggregated tables (T, S, A)."""
    import jax
    import jax.numpy as jnp

    Kb, S, A, _ = Ps.shape
    logits = jnp.log(jnp.clip(Ps, 1e-30, None))

    def kappa(V: Any) -> Any:
        return 0.5 * (V.max(-1) - V.min(-1))

    def exact_worst_case(P: Any, V: Any, radius: Any) -> Any:
        """σ(s,a): m = min(Γ/2, 1) of mass moves from the highest-V support states to the lowest."""
        order = jnp.argsort(-V)
        P_desc, V_desc = P[..., order], V[order]
        before = jnp.cumsum(P_desc, axis=-1) - P_desc
        removed = jnp.clip(jnp.minimum(0.5 * radius, 1.0)[..., None] - before, 0.0, P_desc)
        v_low = jnp.where(P > 0, V, jnp.inf).min(-1) if backup == "exact" else V.min()
        return P @ V - (removed * V_desc).sum(-1) + removed.sum(-1) * v_low

    def next_values(V: Any, logit: Any, k: Any, n: int) -> Any:
        """V(s') for n draws s' ~ P_k(·|s,a): shape (n, S, A)."""
        draws = jax.random.categorical(k, logit, axis=-1, shape=(n, S, A))
        return V[draws]

    def local_step(Q: Any, P: Any, logit: Any, radius: Any, k: Any) -> Any:
        V = Q.max(-1)
        if backup != "kappa":
            return (1 - lam) * Q + lam * (r + gamma * exact_worst_case(P, V, radius))
        PV = P @ V if sampling == "model" else next_values(V, logit, k, n_samples).mean(0)
        return (1 - lam) * Q + lam * (r + gamma * (PV - radius * kappa(V)))

    local = jax.vmap(local_step)

    def reduce_mean(x: Any) -> Any:
        total, count = x.sum(0), jnp.asarray(x.shape[0], x.dtype)
        if axis is not None:
            total, count = jax.lax.psum(total, axis), jax.lax.psum(count, axis)
        return total / count

    def reduce_max(x: Any) -> Any:
        m = x.max(0)
        return jax.lax.pmax(m, axis) if axis is not None else m

    def mlmc_max_step(Q: Any, key_t: Any) -> Any:
        """MLMC estimate of max_k [(1 − λ) Q_k + λ T_k Q_k], unbiased up to 2^{L+1} samples."""
        M = 2 ** (levels + 1)

        def samples(Qk: Any, logit: Any, radius: Any, k: Any) -> Any:
            V = Qk.max(-1)
            x = (1 - lam) * Qk + lam * (r + gamma * (next_values(V, logit, k, M) - radius * kappa(V)))
            return x  # (M, S, A)

        keys = jax.vmap(lambda i: jax.random.fold_in(key_t, i))(ids)
        X = jax.vmap(samples)(Q, logits, radii, keys)  # (Kb, M, S, A)
        return mlmc_max(X, jax.random.fold_in(key_t, LEVEL_STREAM), levels, reduce_max)

    def one_round(Q: Any, t: Any) -> tuple[Any, Any]:
        key_t = jax.random.fold_in(key, t)
        Qs = jnp.broadcast_to(Q, (Kb, S, A))
        last = E - 1 if (aggregation == "max" and sampling == "samples") else E

        def body(e: Any, Qs: Any) -> Any:
            keys = jax.vmap(lambda i: jax.random.fold_in(jax.random.fold_in(key_t, e), i))(ids)
            return local(Qs, Ps, logits, radii, keys)

        Qs = jax.lax.fori_loop(0, last, body, Qs)
        if aggregation == "avg":
            new = reduce_mean(Qs)
        elif sampling == "model":
            new = reduce_max(Qs)
        else:
            new = mlmc_max_step(Qs, jax.random.fold_in(key_t, E))
        return new, new

    _, history = jax.lax.scan(one_round, jnp.zeros((S, A), Ps.dtype), jnp.arange(T))
    return history


@lru_cache(maxsize=32)
def _compiled(static: tuple[tuple[str, Any], ...], devices: int | None) -> Any:
    """The jitted run for one static configuration (cached: a second call does not recompile)."""
    import jax

    if devices is None:
        return jax.jit(partial(_block, axis=None, **dict(static)))
    from jax.sharding import Mesh
    from jax.sharding import PartitionSpec as Spec

    mesh = Mesh(np.array(jax.devices()[:devices]), (SOURCES,))
    split = Spec(SOURCES)
    specs = {"mesh": mesh, "in_specs": (split, split, split, Spec(), Spec()), "out_specs": Spec()}
    block = partial(_block, axis=SOURCES, **dict(static))
    if hasattr(jax, "shard_map"):  # jax ≥ 0.7
        return jax.jit(jax.shard_map(block, check_vma=False, **specs))
    from jax.experimental.shard_map import shard_map  # jax 0.4.30 – 0.6

    return jax.jit(shard_map(block, check_rep=False, **specs))


def mdtl(
    P_sources: np.ndarray,
    r: np.ndarray,
    radii: np.ndarray,
    gamma: float,
    *,
    aggregation: Literal["avg", "max"] = "max",
    local_steps: int = 5,
    step_size: float = 0.05,
    rounds: int = 300,
    sampling: Literal["model", "samples"] = "model",
    n_samples: int = 1,
    mlmc_levels: int = 6,
    backup: Literal["kappa", "exact", "exact-simplex"] = "kappa",
    seed: int = 0,
    devices: int | None = None,
) -> MDTLResult:
    """MDTL-Avg (``aggregation="avg"``) or MDTL-Max (``"max"``), in JAX.

    Args:
        P_sources: source kernels (K, S, A, S).
        r: rewards (S, A), shared by all domains.
        radii: Γ_k, shape (K,) or (K, S, A).
        gamma: discount factor.
        aggregation: ``"avg"`` averages the local tables, ``"max"`` takes their element-wise max.
        local_steps: E, local robust updates per round.
        step_size: λ.
        rounds: T, synchronisations.
        sampling: ``"model"`` (exact P_k V) or ``"samples"`` (``n_samples`` draws of s' per (s, a)).
        n_samples: draws per (s, a) and local step (sample-based only).
        mlmc_levels: L, the MLMC levels of sample-based MDTL-Max (2^{L+1} draws at most).
        backup: ``"kappa"`` (P_k V − Γ_k κ(V), the paper), ``"exact"`` (support-restricted L1
            worst case, the official FrozenLake script) or ``"exact-simplex"`` (exact L1 worst case
            over all distributions); the exact ones are model-based only.
        seed: seeds the draws (sample-based only).
        devices: shard the K sources over this many devices (``jax.shard_map``; K must be a
            multiple); ``None`` runs them vectorised (``jax.vmap``) on the default device.
    """
    import jax
    import jax.numpy as jnp

    _check(aggregation, local_steps, step_size, rounds, sampling, n_samples, mlmc_levels, backup)
    Ps, radii = check_sources(P_sources, radii, r)
    if not 0.0 <= gamma < 1.0:
        raise ConfigError(f"gamma must lie in [0, 1), got {gamma}")
    K, S, A, _ = Ps.shape
    radii = np.broadcast_to(radii[:, None, None] if radii.ndim == 1 else radii, (K, S, A))
    args = (
        jnp.asarray(Ps, jnp.float32),
        jnp.asarray(radii, jnp.float32),
        jnp.arange(K),
        jnp.asarray(r, jnp.float32),
        jax.random.key(seed),
    )
    static = dict(gamma=gamma, lam=step_size, E=local_steps, T=rounds, aggregation=aggregation,
                  sampling=sampling, n_samples=n_samples, levels=mlmc_levels, backup=backup)  # fmt: skip
    if devices is not None:
        available = jax.devices()
        if not 1 <= devices <= len(available):
            raise ConfigError(
                f"devices={devices} but JAX sees {len(available)}",
                hint="on CPU set XLA_FLAGS=--xla_force_host_platform_device_count=N before importing jax",
            )
        if K % devices:
            raise ConfigError(
                f"K = {K} sources cannot be split evenly over {devices} devices", hint="use a divisor of K"
            )
    history = _compiled(tuple(sorted(static.items())), devices)(*args)
    history = np.asarray(history, dtype=float)
    return MDTLResult(Q=history[-1], history=history)


def mdtl_numpy(
    P_sources: np.ndarray,
    r: np.ndarray,
    radii: np.ndarray,
    gamma: float,
    *,
    aggregation: Literal["avg", "max"] = "max",
    local_steps: int = 5,
    step_size: float = 0.05,
    rounds: int = 300,
    backup: Literal["kappa", "exact", "exact-simplex"] = "kappa",
) -> np.ndarray:
    """Model-based MDTL as a plain numpy loop over rounds, local steps and sources (the reference)."""
    _check(aggregation, local_steps, step_size, rounds, "model", 1, 0, backup)
    Ps, radii = check_sources(P_sources, radii, r)
    K = len(Ps)
    radius = radii[:, None, None] if radii.ndim == 1 else radii
    Q = np.zeros(np.shape(r))
    for _ in range(rounds):
        local = []
        for k in range(K):
            Qk = Q.copy()
            for _ in range(local_steps):
                V = Qk.max(-1)
                Qk = (1 - step_size) * Qk + step_size * (
                    r + gamma * robust_expectation(Ps[k], V, np.broadcast_to(radius[k], np.shape(r)), backup)
                )
            local.append(Qk)
        Q = np.mean(local, axis=0) if aggregation == "avg" else np.max(local, axis=0)
    return Q


class MDTL(BaseEstimator):
    """Zero-shot transfer with MDTL-Avg or MDTL-Max, as a scikit-learn-style estimator.

    ``fit(P_sources, radii, r)`` learns the aggregated table Q from K sources with
    discrepancies Γ_k; the transferred policy is π(s) = argmax_a Q(s, a) and
    max_a Q(s, a) is the surrogate, a lower bound of the policy's value on any
    target within Γ_k of every source (at convergence).

    Args:
        aggregation: ``"max"`` (Minimal Pessimism) or ``"avg"`` (Averaged Operator).
        gamma, local_steps, step_size, rounds, sampling, n_samples, mlmc_levels, backup, seed, devices:
            see :func:`mdtl`.
    """

    _parameters: ClassVar[dict[str, Setting]] = {
        "aggregation": Setting(choices=("avg", "max")),
        "gamma": Setting(low=0, high=1, high_open=True),
        "local_steps": Setting(low=1),
        "step_size": Setting(low=0, high=1, low_open=True),
        "rounds": Setting(low=1),
        "sampling": Setting(choices=("model", "samples")),
        "n_samples": Setting(low=1),
        "mlmc_levels": Setting(low=0),
        "backup": Setting(choices=BACKUPS),
        "seed": Setting(),
        "devices": Setting(None, type="int", low=1, allow_none=True),
    }

    def __init__(
        self,
        aggregation: str = "max",
        gamma: float = 0.95,
        local_steps: int = 5,
        step_size: float = 0.05,
        rounds: int = 300,
        sampling: str = "model",
        n_samples: int = 1,
        mlmc_levels: int = 6,
        backup: str = "kappa",
        seed: int = 0,
        devices: int | None = None,
    ):
        self.aggregation = aggregation
        self.gamma = gamma
        self.local_steps = local_steps
        self.step_size = step_size
        self.rounds = rounds
        self.sampling = sampling
        self.n_samples = n_samples
        self.mlmc_levels = mlmc_levels
        self.backup = backup
        self.seed = seed
        self.devices = devices

    def fit(self, P_sources: np.ndarray, radii: np.ndarray, r: np.ndarray) -> MDTL:
        """Run MDTL on the sources; sets ``q_`` (S, A), ``history_`` (T, S, A) and ``policy_`` (S,)."""
        params = self._validate_params()
        gamma = params.pop("gamma")
        out = mdtl(P_sources, r, radii, gamma, **params)
        self.q_ = out.Q
        self.history_ = out.history
        self.policy_ = out.Q.argmax(axis=1)
        self.n_sources_ = int(np.shape(P_sources)[0])
        return self

    def predict(self, states: np.ndarray) -> np.ndarray:
        """The transferred policy's action in each state."""
        check_is_fitted(self)
        return self.policy_[np.asarray(states, dtype=int)]

    def value(self) -> np.ndarray:
        """The surrogate V(s) = max_a Q(s, a)."""
        check_is_fitted(self)
        return self.q_.max(axis=1)
