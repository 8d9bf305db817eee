"""Manipulation-resistance axioms as checks on any instance (Ghosh et al., ICML 2025, §2–§3).

Each ``*_gain`` function applies one manipulation to an engagement matrix ``W``
and returns how much the manipulator gains under a rule; the axiom holds on that
instance when the gain is ``≤ 0`` (``= 0`` for Sybil-proofness, ``≥ 0`` for the two
monotonicity axioms, which are stated as changes). They work with any
:class:`~paperzoo_revdiv.rules.RevenueRule`, including your own.

:func:`axiom_report` searches random small instances for violations of every
axiom; on the four rules it reproduces the paper's Table 1.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from paperzoo.errors import ConfigError
from paperzoo_revdiv.rules import RevenueRule

__all__ = [
    "AXIOMS",
    "PAPER_TABLE",
    "Violation",
    "axiom_report",
    "bribery_gain",
    "fraud_gain",
    "max_suspicious_profit",
    "monotonicity_change",
    "pigou_dalton_change",
    "random_instance",
    "sybil_gain",
]

TOL = 1e-9


def _payments(rule: RevenueRule, W: Any) -> np.ndarray:
    return rule.__class__(**rule.get_params()).fit(W).payments_


def _rows(rows: Any) -> np.ndarray | sp.csr_matrix:
    return (
        sp.csr_matrix(rows, dtype=np.float64) if sp.issparse(rows) else np.atleast_2d(np.asarray(rows, float))
    )


def _coalition(coalition: Iterable[int] | int) -> np.ndarray:
    return np.atleast_1d(np.asarray(coalition, dtype=np.int64))


def fraud_gain(rule: RevenueRule, W: Any, bots: Any, coalition: Iterable[int] | int) -> float:
    """Net gain of adding bot users (Def. 2.4): ``φ_{I′}(C_b) − φ_I(C_b) − n_b``.

    Args:
        rule: The rule (its parameters are used; it is not modified).
        W: Engagement of the real users, ``n × m``.
        bots: Engagement rows of the ``n_b`` bots, ``n_b × m`` (or one row), each
            paying the fee of 1.
        coalition: Artists the fraudster owns, ``C_b``.

    Fraud-proof on this instance iff the result is ``≤ 0`` (breaking even is allowed).
    """
    bots = _rows(bots)
    stack = sp.vstack if sp.issparse(W) else np.vstack
    C = _coalition(coalition)
    before = _payments(rule, W)[C].sum()
    after = _payments(rule, stack([W, bots]))[C].sum()
    return float(after - before - bots.shape[0])


def bribery_gain(rule: RevenueRule, W: Any, bribed: dict[int, Any], coalition: Iterable[int] | int) -> float:
    """Net gain of bribing users to change their engagement (Def. 2.6).

    ``φ_{I′}(C_b) − φ_I(C_b) − k`` where the ``k`` users in ``bribed`` (index →
    new engagement row) are paid their fee of 1 each. Bribery-proof on this
    instance iff ``≤ 0``.
    """
    users = np.asarray(list(bribed), dtype=np.int64)
    rows = np.vstack([np.asarray(r, dtype=np.float64) for r in bribed.values()])
    if sp.issparse(W):  # users are anonymous: replace rows by dropping them and appending the new ones
        keep = np.setdiff1d(np.arange(W.shape[0]), users)
        W2: Any = sp.vstack([sp.csr_matrix(W)[keep], sp.csr_matrix(rows)], format="csr")
    else:
        W2 = np.array(W, dtype=np.float64)
        W2[users] = rows
    C = _coalition(coalition)
    return float(_payments(rule, W2)[C].sum() - _payments(rule, W)[C].sum() - len(bribed))


def sybil_gain(
    rule: RevenueRule, W: Any, W_after: Any, group: Sequence[int], group_after: Sequence[int]
) -> float:
    """Change in a group's total pay when its artists are split or merged (Defs. 2.9, 2.10).

    ``φ_{I′}(group_after) − φ_I(group)``. The other artists keep their columns (and
    positions) in ``W_after``. Sybil-proofness requires exactly 0 whenever every
    user's total engagement with the group is unchanged; strong Sybil-proofness
    whenever only the group's grand total is.
    """
    return float(
        _payments(rule, W_after)[np.asarray(group_after)].sum() - _payments(rule, W)[np.asarray(group)].sum()
    )


def monotonicity_change(rule: RevenueRule, W: Any, W_after: Any, artist: int) -> float:
    """``φ_{I′}(j*) − φ_I(j*)`` after more engagement with ``j*`` and less with others (Def. 2.11).

    Raises:
        ConfigError: ``W_after`` is not such a change.
    """
    delta = sp.csc_matrix(W_after, dtype=np.float64) - sp.csc_matrix(W, dtype=np.float64)  # sparse, O(nnz)
    column = delta[:, [artist]].toarray()
    others = delta[:, np.flatnonzero(np.arange(delta.shape[1]) != artist)]
    if (column < 0).any() or (others.data > 0).any():
        raise ConfigError(f"W_after must raise engagement with artist {artist} and lower it with others")
    return float(_payments(rule, W_after)[artist] - _payments(rule, W)[artist])


def pigou_dalton_change(
    rule: RevenueRule, W: Any, artist: int, giver: int, receiver: int, delta: float
) -> float:
    """``φ_{I′}(j) − φ_I(j)`` after moving ``δ`` of artist ``j``'s streams from a heavier to a
    lighter listener (Def. 2.12): ``w_ij − δ > 0`` and ``w_{i′j} + δ ≤ w_ij − δ``.

    Pigou–Dalton consistent on this instance iff the change is ``≥ 0``.

    Raises:
        ConfigError: the transfer does not meet the definition's conditions.
    """
    n, m = W.shape
    move = sp.csr_matrix(([-delta, delta], ([giver, receiver], [artist, artist])), shape=(n, m))
    after: Any = (
        (sp.csr_matrix(W, dtype=np.float64) + move)
        if sp.issparse(W)
        else np.asarray(W, float) + move.toarray()
    )
    if not (delta > 0 and after[giver, artist] > 0 and after[receiver, artist] <= after[giver, artist] + TOL):
        raise ConfigError(
            f"moving {delta} of artist {artist} from user {giver} to {receiver} is not a Pigou–Dalton transfer",
            hint="the giver must keep more than the receiver ends up with",
        )
    return float(_payments(rule, after)[artist] - _payments(rule, W)[artist])


def max_suspicious_profit(
    W: Any, k: int, alpha: float = 1.0
) -> tuple[float, tuple[int, ...], tuple[int, ...]]:
    """Brute-force the maximal "potentially suspicious profit" under GlobalProp (Def. 3.4).

    ``PSP(U) = max_{V ⊆ N} [αn · A(N,U)/T(N) − α(n−|V|) · A(N∖V,U)/T(N∖V) − |V|]``,
    maximised over artist sets ``|U| ≤ k``, where ``A(S,U)`` is the engagement of
    users ``S`` with ``U`` and ``T(S)`` their total engagement (pay 0 when no user
    is left). Deciding it is NP-hard (Thm. 3.5): this is ``O(C(m, ≤k) · 2^n)``,
    vectorised over ``V``, for instances with at most 20 users.

    Returns:
        ``(profit, U, V)``: the best value, artists and removed users.
    """
    W = np.asarray(W.toarray() if sp.issparse(W) else W, dtype=np.float64)
    n, m = W.shape
    if n > 20:
        raise ConfigError(f"brute force over 2^n user sets needs n <= 20, got n = {n}")
    if not 1 <= k <= m:
        raise ConfigError(f"k must be in [1, m={m}], got {k}")
    masks = ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(np.float64)  # V as 0/1 rows
    remaining = n - masks.sum(axis=1)
    L = W.sum(axis=1)
    T_rest = (1 - masks) @ L
    best: tuple[float, tuple[int, ...], tuple[int, ...]] = (0.0, (), ())
    for size in range(1, k + 1):
        for U in itertools.combinations(range(m), size):
            A_user = W[:, list(U)].sum(axis=1)
            A_rest = (1 - masks) @ A_user
            with np.errstate(divide="ignore", invalid="ignore"):
                pay_rest = np.where(T_rest > 0, alpha * remaining * A_rest / T_rest, 0.0)
            profit = alpha * n * A_user.sum() / L.sum() - pay_rest - masks.sum(axis=1)
            i = int(np.argmax(profit))
            if profit[i] > best[0] + TOL:
                best = (float(profit[i]), U, tuple(np.flatnonzero(masks[i]).tolist()))
    return best


# ---------------------------------------------------------------- random search


@dataclass(frozen=True)
class Violation:
    """A counterexample to an axiom.

    Attributes:
        axiom: Which axiom.
        amount: How much it is violated by (always > 0).
        W: The instance.
        detail: The manipulation, e.g. the bot's row and the coalition.
    """

    axiom: str
    amount: float
    W: np.ndarray
    detail: dict[str, Any] = field(default_factory=dict)


def random_instance(rng: np.random.Generator) -> np.ndarray:
    """A small random instance: 2–6 users, 2–4 artists, integer engagement, no empty user."""
    n, m = int(rng.integers(2, 7)), int(rng.integers(2, 5))
    W = rng.integers(0, 6, size=(n, m)).astype(np.float64) * (rng.random((n, m)) < 0.7)
    W[np.arange(n), rng.integers(0, m, size=n)] += 1.0  # everyone engages
    return W


def _try_fraud(rule: RevenueRule, W: np.ndarray, rng: np.random.Generator) -> Violation | None:
    m = W.shape[1]
    coalition = np.flatnonzero(rng.random(m) < 0.5)
    if coalition.size == 0:
        coalition = np.array([int(rng.integers(m))])
    bot = np.zeros(m)
    bot[coalition] = rng.integers(1, 100, size=coalition.size) * rng.choice([1.0, 100.0])
    gain = fraud_gain(rule, W, bot, coalition)
    return Violation("fraud", gain, W, {"bot": bot, "coalition": coalition}) if gain > TOL else None


def _try_bribery(rule: RevenueRule, W: np.ndarray, rng: np.random.Generator) -> Violation | None:
    n, m = W.shape
    user = int(rng.integers(n))
    coalition = np.array([int(rng.integers(m))])
    row = np.zeros(m)
    row[coalition] = float(rng.integers(1, 1000))
    gain = bribery_gain(rule, W, {user: row}, coalition)
    return (
        Violation("bribery", gain, W, {"user": user, "row": row, "coalition": coalition})
        if gain > TOL
        else None
    )


def _split(W: np.ndarray, artist: int, shares: np.ndarray) -> np.ndarray:
    """Split column ``artist`` into itself and a clone, user i keeping ``shares[i]``."""
    clone = W[:, artist] * (1 - shares)
    out = np.column_stack([W, clone])
    out[:, artist] = W[:, artist] * shares
    return out


def _try_sybil(rule: RevenueRule, W: np.ndarray, rng: np.random.Generator) -> Violation | None:
    m = W.shape[1]
    artist = int(rng.integers(m))
    after = _split(W, artist, rng.choice([0.0, 0.3, 0.5, 1.0], size=W.shape[0]))
    change = sybil_gain(rule, W, after, [artist], [artist, m])
    return (
        Violation("sybil", abs(change), W, {"artist": artist, "W_after": after})
        if abs(change) > TOL
        else None
    )


def _try_strong_sybil(rule: RevenueRule, W: np.ndarray, rng: np.random.Generator) -> Violation | None:
    artist = int(rng.integers(W.shape[1]))
    total = W[:, artist].sum()
    after = W.copy()
    after[:, artist] = rng.dirichlet(np.ones(W.shape[0])) * total  # same grand total, other listeners
    if (after.sum(axis=1) <= 0).any():
        return None
    change = sybil_gain(rule, W, after, [artist], [artist])
    return (
        Violation("strong sybil", abs(change), W, {"artist": artist, "W_after": after})
        if abs(change) > TOL
        else None
    )


def _try_monotonicity(rule: RevenueRule, W: np.ndarray, rng: np.random.Generator) -> Violation | None:
    artist = int(rng.integers(W.shape[1]))
    after = W * np.where(np.arange(W.shape[1]) == artist, 1.0, rng.choice([0.5, 1.0], size=W.shape))
    after[:, artist] += rng.integers(0, 5, size=W.shape[0])
    if (after.sum(axis=1) <= 0).any():
        return None
    change = monotonicity_change(rule, W, after, artist)
    return (
        Violation("engagement monotonicity", -change, W, {"artist": artist, "W_after": after})
        if change < -TOL
        else None
    )


def _try_pigou_dalton(rule: RevenueRule, W: np.ndarray, rng: np.random.Generator) -> Violation | None:
    artist = int(rng.integers(W.shape[1]))
    column = W[:, artist]
    a, b = rng.choice(W.shape[0], size=2, replace=False)
    giver, receiver = (a, b) if column[a] >= column[b] else (b, a)  # the heavier listener gives
    room = (column[giver] - column[receiver]) / 2
    if room <= 0:
        return None
    delta = float(room * rng.choice([0.25, 0.5, 1.0]))
    change = pigou_dalton_change(rule, W, artist, int(giver), int(receiver), delta)
    detail = {"artist": artist, "giver": int(giver), "receiver": int(receiver), "delta": delta}
    return Violation("Pigou–Dalton", -change, W, detail) if change < -TOL else None


AXIOMS: dict[str, Callable[[RevenueRule, np.ndarray, np.random.Generator], Violation | None]] = {
    "fraud": _try_fraud,
    "bribery": _try_bribery,
    "sybil": _try_sybil,
    "strong sybil": _try_strong_sybil,
    "engagement monotonicity": _try_monotonicity,
    "Pigou–Dalton": _try_pigou_dalton,
}
"""Random-search checkers per axiom, in the order of the paper's Table 1."""


PAPER_TABLE: dict[str, dict[str, bool]] = {
    "GP": {"fraud": False, "bribery": False, "sybil": True, "strong sybil": True,
           "engagement monotonicity": True, "Pigou–Dalton": True},
    "UP": {"fraud": True, "bribery": True, "sybil": True, "strong sybil": False,
           "engagement monotonicity": True, "Pigou–Dalton": False},
    "UEQ": {"fraud": True, "bribery": True, "sybil": False, "strong sybil": False,
            "engagement monotonicity": True, "Pigou–Dalton": True},
    "SCUP": {"fraud": True, "bribery": True, "sybil": True, "strong sybil": False,
             "engagement monotonicity": True, "Pigou–Dalton": False},
}  # fmt: skip
"""Table 1 of the paper: does the rule satisfy the axiom?"""


def axiom_report(
    rule: RevenueRule, *, trials: int = 2000, seed: int = 0, axioms: Sequence[str] | None = None
) -> dict[str, Violation | None]:
    """Search ``trials`` random small instances per axiom for a violation.

    ``None`` means no violation was found (evidence, not proof); a
    :class:`Violation` is a verified counterexample. ``rule.alpha`` is used as given.
    """
    rng = np.random.default_rng(seed)
    out: dict[str, Violation | None] = {}
    for name in axioms or list(AXIOMS):
        if name not in AXIOMS:
            raise ConfigError(f"unknown axiom {name!r}", hint=f"axioms are: {', '.join(AXIOMS)}")
        found = None
        for _ in range(trials):
            found = AXIOMS[name](rule, random_instance(rng), rng)
            if found is not None:
                break
        out[name] = found
    return out
