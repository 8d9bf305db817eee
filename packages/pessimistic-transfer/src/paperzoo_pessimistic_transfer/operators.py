"""Robust Bellman operators for L1 balls and their exact (model-based) fixed points.

For source k with kernel P_k and radius Γ_k (an L1 ball, sa-rectangular), the
worst case of q·V over ‖q − P_k(·|s,a)‖₁ ≤ Γ_k is bounded below by
P_k(·|s,a)·V − Γ_k·κ(V), κ(V) = (max V − min V)/2 = min_c ‖V − c‖_∞, giving the
paper's operator (``backup="kappa"``)

    T_k Q(s,a) = r(s,a) + γ [P_k(·|s,a)·V − Γ_k(s,a)·κ(V)],   V(s) = max_a Q(s,a)

(Zhang et al., ICML 2025, §4). The official FrozenLake experiments instead back up
the exact worst case over the ball restricted to the row's support (``backup="exact"``):

    σ_k(s,a) = min { q·V : ‖q − p‖₁ ≤ Γ_k(s,a), q ≥ 0, Σq = 1, supp q ⊆ supp p },  p = P_k(·|s,a),

attained by moving m = min(Γ/2, 1) of mass from the highest-V support states onto the
lowest-V one (:func:`l1_worst_case`). Since that moves at most Γ/2 across a gap of at
most 2κ(V), σ_k ≥ p·V − Γκ(V): the κ form is the more pessimistic of the two.
Every T_k is a γ-contraction in ‖·‖_∞, and so are

    T_AO = (1/K) Σ_k T_k          (Averaged Operator)
    T_MP = max_k T_k              (Minimal Pessimism, element-wise),

whose fixed points satisfy V_𝒫k ≤ V_AO ≤ V_MP ≤ V^{π*}_{P₀} when P₀ ∈ ∩_k 𝒫_k.
These are float64 numpy reference implementations; :mod:`.mdtl` runs the
distributed algorithms in JAX.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from paperzoo.errors import ConfigError
from paperzoo_pessimistic_transfer.mdps import TabularMDP, check_kernel

__all__ = [
    "BACKUPS",
    "averaged_operator",
    "evaluate_policy",
    "kappa",
    "l1_worst_case",
    "minimal_pessimism_operator",
    "optimal_q",
    "performance",
    "robust_bellman",
    "robust_expectation",
    "solve",
    "surrogate_value",
]

Aggregation = Literal["avg", "max"]
Backup = Literal["kappa", "exact", "exact-simplex"]
BACKUPS = ("kappa", "exact", "exact-simplex")
"""``"kappa"``: P·V − Γκ(V) (the paper, §4); ``"exact"``: the L1 worst case over distributions on
the row's support (the official FrozenLake script); ``"exact-simplex"``: over all distributions."""


def kappa(V: np.ndarray) -> np.ndarray:
    """κ(V) = (max_s V(s) − min_s V(s)) / 2 over the last axis."""
    return 0.5 * (V.max(axis=-1) - V.min(axis=-1))


def l1_worst_case(
    P: np.ndarray, V: np.ndarray, radius: float | np.ndarray, *, support_only: bool = True
) -> np.ndarray:
    """σ(s,a) = min q·V over ‖q − P(·|s,a)‖₁ ≤ Γ(s,a), q a distribution on supp P(·|s,a); exact.

    Greedy: m = min(Γ/2, 1) of mass leaves the support states in decreasing order of V
    and lands on the support's lowest-V state (on the lowest-V state of all, with
    ``support_only=False``: the worst case over the whole simplex). ``P`` (..., S) rows, ``V`` (S,), ``radius``
    broadcastable to ``P.shape[:-1]``. V is shared by every row, so one sort serves all.
    """
    P = np.asarray(P, dtype=float)
    V = np.asarray(V, dtype=float)
    order = np.argsort(-V, kind="stable")
    P_desc, V_desc = P[..., order], V[order]
    mass = np.minimum(0.5 * np.asarray(radius, dtype=float), 1.0)[..., None]
    before = np.cumsum(P_desc, axis=-1) - P_desc  # mass of the higher-V states
    removed = np.clip(mass - before, 0.0, P_desc)
    v_low = np.where(P > 0, V, np.inf).min(axis=-1) if support_only else V.min()
    return P @ V - (removed * V_desc).sum(-1) + removed.sum(-1) * v_low


def robust_expectation(P: np.ndarray, V: np.ndarray, radius: np.ndarray, backup: str = "kappa") -> np.ndarray:
    """The robust expectation of V under each row of P: P·V − Γκ(V) (``"kappa"``) or σ (``"exact"``)."""
    if backup == "kappa":
        return P @ V - radius * kappa(V)
    if backup in ("exact", "exact-simplex"):
        return l1_worst_case(P, V, radius, support_only=backup == "exact")
    raise ConfigError(f"backup must be one of {BACKUPS}, got {backup!r}")


def robust_bellman(
    Q: np.ndarray,
    P: np.ndarray,
    r: np.ndarray,
    radius: float | np.ndarray,
    gamma: float,
    backup: Backup = "kappa",
) -> np.ndarray:
    """T_k Q(s,a) = r(s,a) + γ σ(s,a), σ = P·V − Γκ(V) (``"kappa"``) or the exact worst case; V = max_a Q."""
    V = Q.max(axis=-1)
    return r + gamma * robust_expectation(P, V, np.asarray(radius, dtype=float), backup)


def _stack(
    Q: np.ndarray, Ps: np.ndarray, r: np.ndarray, radii: np.ndarray, gamma: float, backup: str = "kappa"
) -> np.ndarray:
    """[T_1 Q, …, T_K Q] of shape (K, S, A); ``radii`` of shape (K,) or (K, S, A)."""
    V = Q.max(axis=-1)
    radii = np.asarray(radii, dtype=float)
    radii = radii[:, None, None] if radii.ndim == 1 else radii
    return r + gamma * robust_expectation(Ps, V, np.broadcast_to(radii, Ps.shape[:3]), backup)


def averaged_operator(
    Q: np.ndarray, Ps: np.ndarray, r: np.ndarray, radii: np.ndarray, gamma: float, backup: Backup = "kappa"
) -> np.ndarray:
    """T_AO Q = (1/K) Σ_k T_k Q."""
    return _stack(Q, Ps, r, radii, gamma, backup).mean(axis=0)


def minimal_pessimism_operator(
    Q: np.ndarray, Ps: np.ndarray, r: np.ndarray, radii: np.ndarray, gamma: float, backup: Backup = "kappa"
) -> np.ndarray:
    """T_MP Q = max_k T_k Q (element-wise over (s, a))."""
    return _stack(Q, Ps, r, radii, gamma, backup).max(axis=0)


def check_sources(Ps: np.ndarray, radii: np.ndarray, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate K source kernels (K, S, A, S) and radii (K,) or (K, S, A) against rewards (S, A)."""
    Ps = np.asarray(Ps, dtype=float)
    if Ps.ndim != 4:
        raise ConfigError(
            f"source kernels must have shape (K, S, A, S), got {Ps.shape}", hint="stack them with np.stack"
        )
    for k in range(len(Ps)):
        check_kernel(Ps[k], f"P_sources[{k}]")
    if Ps.shape[1:3] != np.shape(r):
        raise ConfigError(f"sources have (S, A) = {Ps.shape[1:3]} but r has shape {np.shape(r)}")
    radii = np.asarray(radii, dtype=float)
    if radii.shape not in ((len(Ps),), (len(Ps), *Ps.shape[1:3])):
        raise ConfigError(f"radii must have shape (K,) = ({len(Ps)},) or (K, S, A), got {radii.shape}")
    if (radii < 0).any() or not np.isfinite(radii).all():
        raise ConfigError("radii Γ_k must be finite and ≥ 0", hint="Γ_k is an L1 distance, in [0, 2]")
    return Ps, radii


def solve(
    Ps: np.ndarray,
    r: np.ndarray,
    radii: np.ndarray,
    gamma: float,
    aggregation: Aggregation = "max",
    *,
    backup: Backup = "kappa",
    tol: float = 1e-10,
    max_iter: int = 100_000,
) -> np.ndarray:
    """The fixed point Q of T_AO (``"avg"``) or T_MP (``"max"``) by value iteration.

    ``backup`` picks the robust expectation: ``"kappa"`` (P·V − Γκ(V)) or ``"exact"``.

    Stops when ‖T Q − Q‖_∞ ≤ tol (1 − γ)/γ, so that ‖Q − Q_fix‖_∞ ≤ tol.
    """
    Ps, radii = check_sources(Ps, radii, r)
    if aggregation not in ("avg", "max"):
        raise ConfigError(f"aggregation must be 'avg' or 'max', got {aggregation!r}")
    if backup not in BACKUPS:
        raise ConfigError(f"backup must be one of {BACKUPS}, got {backup!r}")
    op = averaged_operator if aggregation == "avg" else minimal_pessimism_operator
    Q = np.zeros(np.shape(r))
    stop = tol * (1 - gamma) / max(gamma, 1e-12)
    for _ in range(max_iter):
        new = op(Q, Ps, r, radii, gamma, backup)
        if np.abs(new - Q).max() <= stop:
            return new
        Q = new
    raise ConfigError(f"value iteration did not converge in {max_iter} iterations", hint="raise max_iter")


def optimal_q(P: np.ndarray, r: np.ndarray, gamma: float, *, tol: float = 1e-10) -> np.ndarray:
    """Q* of the (non-robust) MDP (P, r, γ): the fixed point with one source and Γ = 0."""
    return solve(np.asarray(P)[None], r, np.zeros(1), gamma, "avg", tol=tol)


def evaluate_policy(P: np.ndarray, r: np.ndarray, policy: np.ndarray, gamma: float) -> np.ndarray:
    """V^π = (I − γ P_π)⁻¹ r_π for a deterministic policy π (S,), solved exactly."""
    S = P.shape[0]
    policy = np.asarray(policy, dtype=int)
    idx = np.arange(S)
    return np.linalg.solve(np.eye(S) - gamma * P[idx, policy], r[idx, policy])


def performance(mdp: TabularMDP, policy: np.ndarray) -> float:
    """μ·V^π_{P₀}: the policy's value on the true target from its initial distribution."""
    return float(mdp.initial @ evaluate_policy(mdp.P, mdp.r, policy, mdp.gamma))


def surrogate_value(mdp: TabularMDP, Q: np.ndarray) -> float:
    """μ·max_a Q: the value a surrogate Q-table claims for the target."""
    return float(mdp.initial @ Q.max(axis=-1))
