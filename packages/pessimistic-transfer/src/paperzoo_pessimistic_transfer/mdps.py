"""Tabular MDPs of the paper and their source families (Zhang et al., ICML 2025, §6).

An MDP is a kernel ``P`` (S × A × S), a reward ``r`` (S × A), a discount ``γ`` and
an initial distribution ``μ``; sources share ``S``, ``A`` and ``r`` with the target
and differ only in their kernel. The discrepancy of a source is the largest L1
distance between its rows and the target's,

    Γ_k = max_{s,a} ‖P_k(·|s,a) − P₀(·|s,a)‖₁,

so that the target lies in every source's uncertainty set 𝒫_k = {P : ‖P − P_k‖₁ ≤ Γ_k}.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from paperzoo.errors import ConfigError

__all__ = [
    "FROZENLAKE_8X8",
    "TabularMDP",
    "bad_source",
    "check_kernel",
    "frozenlake",
    "garnet",
    "garnet_kernel",
    "l1_discrepancy",
    "mix_towards",
    "perturb_kernel",
    "recycling_robot",
    "sources_at_discrepancy",
]

FROZENLAKE_8X8 = (
    "SFFFFFFF",
    "FFFFFFFF",
    "FFFHFFFF",
    "FFFFFHFF",
    "FFFHFFFF",
    "FHHFFFHF",
    "FHFFHFHF",
    "FFFHFFFG",
)
"""gymnasium's ``FrozenLake-v1`` 8×8 map: S start, F frozen, H hole, G goal."""


def check_kernel(P: np.ndarray, name: str = "P") -> np.ndarray:
    """``P`` as a float array of shape (S, A, S) whose rows are probability vectors."""
    P = np.asarray(P, dtype=float)
    if P.ndim != 3 or P.shape[0] != P.shape[2]:
        raise ConfigError(
            f"{name} must have shape (S, A, S), got {P.shape}",
            hint="index it as P[state, action, next_state]",
        )
    if not np.isfinite(P).all() or (P < -1e-12).any():
        raise ConfigError(
            f"{name} has negative or non-finite entries", hint="transition probabilities lie in [0, 1]"
        )
    sums = P.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=1e-8):
        s, a = np.unravel_index(int(np.argmax(np.abs(sums - 1.0))), sums.shape)
        raise ConfigError(
            f"{name}[{s}, {a}, :] sums to {sums[s, a]:.6g}, not 1",
            hint="normalise each row P[s, a, :] to a probability vector",
        )
    return P


@dataclass(frozen=True)
class TabularMDP:
    """A finite MDP ``(P, r, γ, μ)``.

    Attributes:
        P: transition kernel, ``P[s, a, s']``.
        r: expected reward ``r(s, a)``.
        gamma: discount factor in [0, 1).
        initial: initial-state distribution ``μ``; performance is ``μ·V``.
        name: what it is, for tables and plots.
    """

    P: np.ndarray
    r: np.ndarray
    gamma: float
    initial: np.ndarray
    name: str = "mdp"
    info: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        P = check_kernel(self.P)
        r = np.asarray(self.r, dtype=float)
        if r.shape != P.shape[:2]:
            raise ConfigError(f"r must have shape (S, A) = {P.shape[:2]}, got {r.shape}")
        if not 0.0 <= self.gamma < 1.0:
            raise ConfigError(f"gamma must lie in [0, 1), got {self.gamma}", hint="e.g. gamma=0.95")
        mu = np.asarray(self.initial, dtype=float)
        if mu.shape != (P.shape[0],) or not np.isclose(mu.sum(), 1.0) or (mu < 0).any():
            raise ConfigError(f"initial must be a probability vector over the {P.shape[0]} states")
        object.__setattr__(self, "P", P)
        object.__setattr__(self, "r", r)
        object.__setattr__(self, "initial", mu)

    @property
    def n_states(self) -> int:
        return int(self.P.shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.P.shape[1])


def l1_discrepancy(P: np.ndarray, Q: np.ndarray) -> float:
    """Γ(P, Q) = max_{s,a} ‖P(·|s,a) − Q(·|s,a)‖₁ (between 0 and 2)."""
    return float(np.abs(np.asarray(P) - np.asarray(Q)).sum(axis=-1).max())


def garnet_kernel(n_states: int, n_actions: int, branching: int, rng: np.random.Generator) -> np.ndarray:
    """A Garnet kernel: each (s, a) reaches ``branching`` distinct states, with Dirichlet(1) weights."""
    if n_states < 1 or n_actions < 1 or not 1 <= branching <= n_states:
        raise ConfigError(
            f"Garnet needs S ≥ 1, A ≥ 1 and 1 ≤ branching ≤ S, got S={n_states}, A={n_actions}, "
            f"branching={branching}"
        )
    P = np.zeros((n_states, n_actions, n_states))
    for s in range(n_states):
        for a in range(n_actions):
            nxt = rng.choice(n_states, size=branching, replace=False)
            P[s, a, nxt] = rng.dirichlet(np.ones(branching))
    return P


def garnet(
    n_states: int = 30, n_actions: int = 4, branching: int = 3, gamma: float = 0.95, *, seed: int = 0
) -> TabularMDP:
    """Garnet(S, A, b): random sparse kernel, rewards ~ U[0, 1), uniform initial state."""
    rng = np.random.default_rng(seed)
    P = garnet_kernel(n_states, n_actions, branching, rng)
    r = rng.uniform(0.0, 1.0, size=(n_states, n_actions))
    return TabularMDP(
        P, r, gamma, np.full(n_states, 1.0 / n_states), name=f"Garnet({n_states},{n_actions},{branching})"
    )


def frozenlake(
    desc: tuple[str, ...] = FROZENLAKE_8X8, gamma: float = 0.99, *, slip: float = 2.0 / 3.0
) -> TabularMDP:
    """FrozenLake with gymnasium's dynamics, as exact tables.

    Actions LEFT, DOWN, RIGHT, UP = 0, 1, 2, 3. Slippery ice moves in the intended
    direction with probability 1 − slip and in each perpendicular one with slip/2
    (gymnasium: 1/3 each, slip = 2/3); moves off the grid stay put. Holes and the
    goal are absorbing with zero reward; r(s, a) = P(next state is G | s, a).
    """
    grid = np.array([list(row) for row in desc])
    if grid.ndim != 2 or not set(grid.ravel()) <= set("SFHG") or (grid == "S").sum() != 1:
        raise ConfigError("desc must be equal-length rows of S/F/H/G with exactly one S")
    if not 0.0 <= slip <= 1.0:
        raise ConfigError(f"slip must lie in [0, 1], got {slip}")
    nrow, ncol = grid.shape
    S, A = nrow * ncol, 4
    moves = {0: (0, -1), 1: (1, 0), 2: (0, 1), 3: (-1, 0)}
    P = np.zeros((S, A, S))
    goal = np.zeros(S)
    for s in range(S):
        row, col = divmod(s, ncol)
        if grid[row, col] in "HG":
            P[s, :, s] = 1.0
            continue
        for a in range(A):
            for b, p in (((a - 1) % 4, slip / 2), (a, 1.0 - slip), ((a + 1) % 4, slip / 2)):
                dr, dc = moves[b]
                nr, nc = min(max(row + dr, 0), nrow - 1), min(max(col + dc, 0), ncol - 1)
                P[s, a, nr * ncol + nc] += p
    goal[(grid.ravel() == "G")] = 1.0
    r = P @ goal
    r[np.isin(grid.ravel(), ["H", "G"])] = 0.0
    mu = (grid.ravel() == "S").astype(float)
    return TabularMDP(P, r, gamma, mu, name=f"FrozenLake {nrow}x{ncol}", info={"desc": desc, "slip": slip})


def recycling_robot(
    alpha: float = 0.8,
    beta: float = 0.6,
    r_search: float = 2.0,
    r_wait: float = 1.0,
    r_rescue: float = -3.0,
    gamma: float = 0.9,
) -> TabularMDP:
    """Sutton & Barto's recycling robot (Example 3.3): states high/low, actions search/wait/recharge.

    search keeps a high battery w.p. α and a low one w.p. β (else it is rescued:
    reward r_rescue, back to high); wait keeps the state; recharge (low only; at
    high it is a wait) brings the battery high. Rewards are expected rewards r(s, a).
    """
    if not (0 <= alpha <= 1 and 0 <= beta <= 1):
        raise ConfigError(f"alpha and beta are probabilities, got alpha={alpha}, beta={beta}")
    HIGH, LOW = 0, 1
    SEARCH, WAIT, RECHARGE = 0, 1, 2
    P = np.zeros((2, 3, 2))
    r = np.zeros((2, 3))
    P[HIGH, SEARCH] = [alpha, 1 - alpha]
    r[HIGH, SEARCH] = r_search
    P[LOW, SEARCH] = [1 - beta, beta]
    r[LOW, SEARCH] = beta * r_search + (1 - beta) * r_rescue
    P[HIGH, WAIT] = [1, 0]
    P[LOW, WAIT] = [0, 1]
    r[:, WAIT] = r_wait
    P[HIGH, RECHARGE] = [1, 0]
    r[HIGH, RECHARGE] = r_wait
    P[LOW, RECHARGE] = [1, 0]
    return TabularMDP(P, r, gamma, np.array([1.0, 0.0]), name="recycling robot")


def mix_towards(P0: np.ndarray, P_other: np.ndarray, discrepancy: float) -> np.ndarray:
    """P = (1 − ρ) P₀ + ρ P̃ with ρ chosen so that Γ(P, P₀) = ``discrepancy`` exactly.

    Γ is linear in ρ along the segment, so ρ = Γ / Γ(P̃, P₀) (needs Γ ≤ Γ(P̃, P₀)).
    """
    base = l1_discrepancy(P_other, P0)
    if discrepancy < 0 or discrepancy > base + 1e-12 or base == 0:
        raise ConfigError(
            f"cannot reach discrepancy {discrepancy:g}: the other kernel is only {base:.3g} away in L1",
            hint="ask for a discrepancy in [0, Γ(P̃, P₀)] or draw another P̃",
        )
    rho = discrepancy / base
    return (1.0 - rho) * P0 + rho * P_other


def sources_at_discrepancy(
    target: TabularMDP, discrepancies: list[float] | np.ndarray, branching: int, *, seed: int = 0
) -> np.ndarray:
    """K source kernels P_k = (1 − ρ_k) P₀ + ρ_k P̃_k with Γ(P_k, P₀) = Γ_k, P̃_k a fresh Garnet kernel.

    Returns an array of shape (K, S, A, S).
    """
    rng = np.random.default_rng(seed)
    out = []
    for g in np.asarray(discrepancies, dtype=float):
        for _ in range(200):
            other = garnet_kernel(target.n_states, target.n_actions, branching, rng)
            if l1_discrepancy(other, target.P) >= g:
                break
        else:
            raise ConfigError(
                f"no Garnet kernel is {g:g} away from the target in L1", hint="Γ lies in [0, 2]"
            )
        out.append(mix_towards(target.P, other, float(g)))
    return np.stack(out)


def bad_source(
    target: TabularMDP,
    discrepancy: float | None,
    branching: int,
    *,
    mix: float | None = None,
    n_candidates: int = 20,
    seed: int = 0,
) -> np.ndarray:
    """A deliberately bad source: of ``n_candidates`` random kernels P̃ moved towards the target,
    the one whose nominal optimal policy does worst on the target (the paper's stress test).

    Give either ``discrepancy`` (Γ(P, P₀) exactly, via :func:`mix_towards`) or ``mix``
    (P = (1 − mix) P₀ + mix P̃; its Γ is then whatever that gives).
    """
    from paperzoo_pessimistic_transfer.operators import optimal_q, performance

    if (discrepancy is None) == (mix is None):
        raise ConfigError("give exactly one of discrepancy and mix")
    if mix is not None and not 0.0 <= mix <= 1.0:
        raise ConfigError(f"mix must lie in [0, 1], got {mix}")
    rng = np.random.default_rng(seed)
    worst, worst_perf = None, np.inf
    tries = 0
    while tries < n_candidates:
        other = garnet_kernel(target.n_states, target.n_actions, branching, rng)
        if mix is not None:
            P = (1.0 - mix) * target.P + mix * other
        elif l1_discrepancy(other, target.P) < discrepancy:
            continue
        else:
            P = mix_towards(target.P, other, float(discrepancy))
        tries += 1
        policy = optimal_q(P, target.r, target.gamma, tol=1e-6).argmax(axis=1)
        perf = performance(target, policy)
        if perf < worst_perf:
            worst, worst_perf = P, perf
    assert worst is not None
    return worst


def perturb_kernel(P0: np.ndarray, eps: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A support-preserving source: each nonzero P₀(s'|s,a) moves by U[−ε, ε], clipped at 0, renormalised.

    Returns the kernel and its local radii Γ(s,a) = ‖P(·|s,a) − P₀(·|s,a)‖₁ (S, A), as the
    official FrozenLake experiments build their sources.
    """
    if eps < 0:
        raise ConfigError(f"eps must be ≥ 0, got {eps}")
    P = np.where(P0 > 0, P0 + rng.uniform(-eps, eps, size=P0.shape), 0.0).clip(0.0, None)
    sums = P.sum(axis=-1, keepdims=True)
    P = np.where(
        sums > 1e-12, P / np.where(sums > 1e-12, sums, 1.0), (P0 > 0) / (P0 > 0).sum(-1, keepdims=True)
    )
    return P, np.abs(P - P0).sum(axis=-1)
