"""Revenue division rules (Ghosh, Neoh, Teh & Tyrovolas, ICML 2025, §2–§4).

``n`` users each pay 1; the platform keeps ``(1 − α)n`` and pays ``αn`` to the
artists. Every rule here lets user ``i`` contribute a budget ``c_i`` that is split
over the artists the user engaged with:

    φ(j) = Σ_i c_i · w_ij / L_i          (UserEq: Σ_i c_i · 1[w_ij > 0] / k_i)

=================  ==========================================  ===================
rule               user budget c_i                              split by
=================  ==========================================  ===================
GlobalProp (GP)    αn · L_i / Σ_i′ L_i′                         engagement w_ij/L_i
UserProp (UP)      α                                            engagement
UserEq (UEQ)       α                                            count 1/k_i
ScaledUserProp     min(γ L_i, 1), γ solving Σ_i min(γL_i,1)=αn  engagement
=================  ==========================================  ===================

so ``Σ_j φ(j) = Σ_i c_i = αn`` for every rule. Each rule is one pass over the
sparse matrix (a transposed mat-vec) plus, for ScaledUserProp, an exact solve for γ.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from paperzoo.base import BaseEstimator
from paperzoo.errors import ConfigError
from paperzoo_revdiv.engagement import Engagement, OnEmpty, check_alpha, check_engagement, preview

log = logging.getLogger("paperzoo")

__all__ = ["RULES", "GlobalProp", "RevenueRule", "ScaledUserProp", "UserEq", "UserProp", "solve_gamma"]


class RevenueRule(BaseEstimator):
    """Base class: ``fit(W)`` computes ``payments_`` from per-user budgets.

    Args:
        alpha: Share of the ``n`` subscription fees paid out, in (0, 1].
        on_empty: ``"raise"`` on users with zero engagement, or ``"drop"`` them.

    Attributes:
        payments_: ``φ(j)`` per artist, shape ``(m,)``; sums to ``αn``.
        budgets_: ``c_i`` per (kept) user, shape ``(n,)``: what each user's fee pays out.
        users_: Indices of the users kept (all of them unless ``on_empty="drop"``).
        n_users_: ``n``, the number of users kept.
    """

    name = "rule"

    def __init__(self, alpha: float = 1.0, on_empty: OnEmpty = "raise") -> None:
        self.alpha = alpha
        self.on_empty = on_empty

    def budgets(self, E: Engagement, alpha: float) -> np.ndarray:
        """Per-user budgets ``c_i`` (overridden by each rule)."""
        raise NotImplementedError

    def split(self, E: Engagement, budgets: np.ndarray) -> np.ndarray:
        """``φ(j) = Σ_i c_i w_ij / L_i``: one transposed sparse mat-vec."""
        return np.asarray(E.W.T @ (budgets / E.L)).ravel()

    def fit(self, W: Any, y: None = None) -> RevenueRule:
        """Divide revenue over the engagement matrix ``W`` (users × artists)."""
        alpha = check_alpha(self.alpha)
        E = check_engagement(W, on_empty=self.on_empty)
        if E.n_dropped:
            dropped = np.setdiff1d(np.arange(E.n_users + E.n_dropped), E.kept)
            log.warning(
                "%s dropped %d of %d users with zero total engagement (rows %s)",
                type(self).__name__, E.n_dropped, E.n_users + E.n_dropped, preview(dropped),
            )  # fmt: skip
        budgets = self.budgets(E, alpha)
        self.budgets_ = budgets
        self.payments_ = self.split(E, budgets)
        self.users_ = E.kept
        self.n_users_ = E.n_users
        return self

    def payments(self, W: Any) -> np.ndarray:
        """``fit(W).payments_`` on a copy: the rule as a function of the instance."""
        return self.__class__(**self.get_params()).fit(W).payments_


class GlobalProp(RevenueRule):
    """Pro-rata: ``φ(j) = αn · Σ_i w_ij / Σ_ij w_ij`` (what streaming platforms use)."""

    name = "GP"

    def budgets(self, E: Engagement, alpha: float) -> np.ndarray:
        return alpha * E.n_users * E.L / E.L.sum()


class UserProp(RevenueRule):
    """User-centric: each user's ``α`` split by engagement, ``φ(j) = α Σ_i w_ij / L_i``."""

    name = "UP"

    def budgets(self, E: Engagement, alpha: float) -> np.ndarray:
        return np.full(E.n_users, alpha)


class UserEq(RevenueRule):
    """Equal split (the Shapley value): ``φ(j) = α Σ_i 1[w_ij > 0] / k_i``, ``k_i = #{j: w_ij > 0}``."""

    name = "UEQ"

    def budgets(self, E: Engagement, alpha: float) -> np.ndarray:
        return np.full(E.n_users, alpha)

    def split(self, E: Engagement, budgets: np.ndarray) -> np.ndarray:
        counts = np.diff(E.W.indptr)  # explicit zeros were removed by check_engagement
        per_entry = np.repeat(budgets / counts, counts)
        return np.bincount(E.W.indices, weights=per_entry, minlength=E.n_artists)


def solve_gamma(L: np.ndarray, alpha: float) -> float:
    """The smallest ``γ > 0`` with ``Σ_i min(γ L_i, 1) = αn``, exactly.

    ``f(γ) = Σ_i min(γL_i, 1)`` is continuous, piecewise linear and non-decreasing,
    with breakpoints ``1/L_i``. With ``L`` sorted in decreasing order and ``k``
    users capped, ``f(γ) = k + γ Σ_{i ≥ k} L_(i)``; the right ``k`` is found by a
    binary search over ``f`` at the breakpoints, so the cost is one sort.

    Args:
        L: Total engagement per user, all ``> 0``.
        alpha: Share paid out, in (0, 1].
    """
    scaled, scale = _solve_scaled(L, alpha)
    return scaled / scale


def _solve_scaled(L: np.ndarray, alpha: float) -> tuple[float, float]:
    """``(γ·s, s)`` with ``s`` the power of two just below ``max L``: γ in units of ``L/s``."""
    L = np.asarray(L, dtype=np.float64)
    n = L.size
    if n == 0 or not np.isfinite(L).all() or (L <= 0).any():
        raise ConfigError("solve_gamma needs at least one user and finite engagement L_i > 0")
    scale = float(np.ldexp(1.0, np.frexp(L.max())[1] - 1))  # a power of two: L / scale is exact
    L = L / scale  # in (0, 2)
    if L.min() == 0.0:
        raise ConfigError("engagement spans more than 300 orders of magnitude; rescale it")
    target = alpha * n
    asc = np.sort(L)
    desc = asc[::-1]
    # rest[k] = Σ of the n − k smallest = what is left uncapped when the k largest are
    # capped; summed from the small end so that no large sums cancel
    rest = np.concatenate((np.cumsum(asc)[::-1], [0.0]))
    # f at breakpoint b_k = 1/desc[k]: users 0..k capped, the others contribute L_i/desc[k]
    at_breakpoints = np.arange(1, n + 1) + rest[1:] / desc
    k = min(int(np.searchsorted(at_breakpoints, target, side="left")), n - 1)
    # on [b_{k-1}, b_k] exactly the k largest users are capped: f(γ) = k + γ rest[k]
    gamma = (target - k) / rest[k]
    # one Newton step against the pairwise-summed f removes the cumulative sum's rounding
    uncapped = gamma * L < 1.0
    gamma += (target - np.minimum(gamma * L, 1.0).sum()) / L[uncapped].sum() if uncapped.any() else 0.0
    return float(gamma), scale


class ScaledUserProp(RevenueRule):
    """The paper's rule: user-centric with budgets ``min(γ L_i, 1)``.

    ``γ`` is the unique scale at which the budgets sum to ``αn`` (:func:`solve_gamma`).
    Heavy users are capped at their fee (so a bot can never pay out more than it
    paid: fraud-proofness), light users pay out in proportion to their engagement.
    ``α = 1`` gives UserProp; if every ``L_i ≤ ΣL/(nα)`` it equals GlobalProp.

    Attributes:
        gamma_: The scale ``γ``.
        capped_: Boolean mask of users whose budget is capped at 1.
    """

    name = "SCUP"

    def budgets(self, E: Engagement, alpha: float) -> np.ndarray:
        gamma_scaled, scale = _solve_scaled(E.L, alpha)
        scaled = gamma_scaled * (E.L / scale)
        self.gamma_ = gamma_scaled / scale
        self.capped_ = scaled >= 1.0
        return np.minimum(scaled, 1.0)


RULES: dict[str, type[RevenueRule]] = {
    "GP": GlobalProp,
    "UP": UserProp,
    "UEQ": UserEq,
    "SCUP": ScaledUserProp,
}
"""The rules by their short names, as in the paper's tables."""
