"""The MDPs and the robust operators against exact and closed-form values."""

from __future__ import annotations

import numpy as np
import pytest

from paperzoo.errors import ConfigError
from paperzoo_pessimistic_transfer.mdps import (
    TabularMDP,
    frozenlake,
    garnet,
    l1_discrepancy,
    perturb_kernel,
    recycling_robot,
    sources_at_discrepancy,
)
from paperzoo_pessimistic_transfer.operators import (
    evaluate_policy,
    kappa,
    l1_worst_case,
    optimal_q,
    robust_bellman,
    solve,
)


def test_frozenlake_8x8_optimal_value_at_start_is_0_41464() -> None:
    fl = frozenlake(gamma=0.99)
    assert optimal_q(fl.P, fl.r, fl.gamma).max(1)[0] == pytest.approx(0.41464, abs=1e-4)


def test_frozenlake_tables_equal_gymnasiums_p_table() -> None:
    gym = pytest.importorskip("gymnasium")
    env = gym.make("FrozenLake-v1", map_name="8x8", is_slippery=True).unwrapped
    fl = frozenlake()
    P, r = np.zeros_like(fl.P), np.zeros_like(fl.r)
    for s in range(64):
        for a in range(4):
            for p, nxt, reward, _ in env.P[s][a]:  # duplicate next states are summed
                P[s, a, nxt] += p
                r[s, a] += p * reward
    np.testing.assert_allclose(fl.P, P, atol=1e-12)
    np.testing.assert_allclose(fl.r, r, atol=1e-12)


def test_recycling_robot_value_matches_bellman_equation_solution() -> None:
    m = recycling_robot()
    Q = optimal_q(m.P, m.r, m.gamma)
    V = evaluate_policy(m.P, m.r, Q.argmax(1), m.gamma)
    np.testing.assert_allclose(V, Q.max(1), atol=1e-8)


def test_robust_bellman_closed_form_on_a_two_state_chain() -> None:
    P = np.array([[[0.5, 0.5]], [[0.0, 1.0]]])  # S = 2, A = 1
    Q = np.array([[1.0], [3.0]])
    r = np.array([[0.2], [0.0]])
    # V = (1, 3), κ = 1; T Q(0) = 0.2 + 0.9 (2 − 0.4 · 1)
    np.testing.assert_allclose(robust_bellman(Q, P, r, 0.4, 0.9), [[0.2 + 0.9 * 1.6], [0.9 * 2.6]])
    assert kappa(np.array([1.0, 3.0])) == 1.0


def test_robust_fixed_point_of_an_absorbing_state_is_closed_form() -> None:
    # one state: κ = 0, so the robust value is r / (1 − γ) whatever Γ is
    Ps = np.ones((2, 1, 1, 1))
    Q = solve(Ps, np.array([[1.0]]), np.array([0.5, 1.5]), 0.9, "avg")
    assert Q[0, 0] == pytest.approx(10.0, abs=1e-8)


def test_zero_radius_single_source_equals_value_iteration() -> None:
    g = garnet(8, 3, 2, seed=3)
    Q = solve(g.P[None], g.r, np.zeros(1), g.gamma, "max")
    V_pi = evaluate_policy(g.P, g.r, Q.argmax(1), g.gamma)
    np.testing.assert_allclose(Q.max(1), V_pi, atol=1e-7)


@pytest.mark.parametrize("seed", range(6))
def test_surrogates_are_lower_bounds_and_mp_dominates_ao_at_convergence(seed: int) -> None:
    g = garnet(15, 3, 3, seed=seed)
    radii = np.array([0.1, 0.3, 0.8])
    Ps = sources_at_discrepancy(g, radii, 3, seed=seed + 100)
    Q_ao, Q_mp = solve(Ps, g.r, radii, g.gamma, "avg"), solve(Ps, g.r, radii, g.gamma, "max")
    V_star = optimal_q(g.P, g.r, g.gamma).max(1)
    for Q in (Q_ao, Q_mp):  # pointwise: V_f ≤ V^π_{P₀} ≤ V*
        V_true = evaluate_policy(g.P, g.r, Q.argmax(1), g.gamma)
        assert (Q.max(1) <= V_true + 1e-9).all()
        assert (V_true <= V_star + 1e-9).all()
    assert (Q_mp.max(1) >= Q_ao.max(1) - 1e-9).all()
    for k in range(3):  # each single source's robust value is below both
        Q_k = solve(Ps[k : k + 1], g.r, radii[k : k + 1], g.gamma, "max")
        assert (Q_k.max(1) <= Q_mp.max(1) + 1e-9).all()


def test_sources_hit_their_prescribed_discrepancy() -> None:
    g = garnet(10, 2, 3, seed=0)
    Ps = sources_at_discrepancy(g, [0.05, 0.5, 1.0], 3, seed=1)
    assert [l1_discrepancy(P, g.P) for P in Ps] == pytest.approx([0.05, 0.5, 1.0])


def test_perturbed_kernel_keeps_support_and_reports_local_radii() -> None:
    fl = frozenlake()
    P, radii = perturb_kernel(fl.P, 0.1, np.random.default_rng(0))
    assert ((P > 0) <= (fl.P > 0)).all()
    np.testing.assert_allclose(P.sum(-1), 1.0)
    np.testing.assert_allclose(radii, np.abs(P - fl.P).sum(-1))


def test_rejects_a_kernel_whose_rows_do_not_sum_to_one() -> None:
    P = np.full((2, 1, 2), 0.4)
    with pytest.raises(ConfigError, match=r"P\[0, 0, :\] sums to 0.8"):
        TabularMDP(P, np.zeros((2, 1)), 0.9, np.array([1.0, 0.0]))


def test_rejects_discount_of_one() -> None:
    with pytest.raises(ConfigError, match="gamma must lie in"):
        garnet(4, 2, 2, gamma=1.0)


def test_rejects_negative_radii() -> None:
    g = garnet(4, 2, 2)
    with pytest.raises(ConfigError, match="radii"):
        solve(g.P[None], g.r, np.array([-0.1]), 0.9)


def _lp_worst_case(p: np.ndarray, V: np.ndarray, radius: float) -> float:
    """min q·V s.t. |q − p| ≤ t, Σt ≤ Γ, q ≥ 0, Σq = 1, q = 0 off supp p: a brute-force LP."""
    linprog = pytest.importorskip("scipy.optimize").linprog
    n = len(p)
    eye, zero = np.eye(n), np.zeros((1, n))
    res = linprog(
        np.r_[V, np.zeros(n)],
        A_ub=np.block([[eye, -eye], [-eye, -eye], [zero, np.ones((1, n))]]),
        b_ub=np.r_[p, -p, radius],
        A_eq=np.r_[np.ones(n), np.zeros(n)][None],
        b_eq=[1.0],
        bounds=[(0, None if p[i] > 0 else 0) for i in range(n)] + [(0, None)] * n,
    )
    assert res.success
    return float(res.fun)


@pytest.mark.parametrize("seed", range(4))
def test_exact_l1_worst_case_equals_a_brute_force_lp(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(25):
        n = int(rng.integers(2, 7))
        p = rng.dirichlet(np.ones(n)) * (rng.random(n) > 0.3)
        p = p / p.sum() if p.sum() > 0 else np.eye(n)[0]
        V, radius = rng.normal(size=n), float(rng.uniform(0.0, 2.5))
        ours = l1_worst_case(p[None], V, np.array([radius]))[0]
        assert ours == pytest.approx(_lp_worst_case(p, V, radius), abs=1e-7)


def test_kappa_penalty_never_exceeds_the_exact_worst_case() -> None:
    # σ moves ≤ Γ/2 of mass across a gap ≤ 2κ(V), so P·V − Γκ(V) ≤ σ_simplex ≤ σ_support
    rng = np.random.default_rng(7)
    P = rng.dirichlet(np.ones(9), size=(40, 3)) * (rng.random((40, 3, 9)) > 0.4)
    P[..., 0] += P.sum(-1) == 0
    P /= P.sum(-1, keepdims=True)
    V, radius = rng.normal(size=9), rng.uniform(0.0, 2.0, size=(40, 3))
    penalty = P @ V - radius * kappa(V)
    simplex = l1_worst_case(P, V, radius, support_only=False)
    support = l1_worst_case(P, V, radius)
    assert (penalty <= simplex + 1e-12).all() and (simplex <= support + 1e-12).all()
    assert (support <= P @ V + 1e-12).all()
    assert (support - penalty).max() > 0.1  # the κ form is strictly looser somewhere


@pytest.mark.parametrize("backup", ["exact", "exact-simplex"])
def test_exact_backup_surrogates_are_lower_bounds_when_target_is_in_every_ball(backup: str) -> None:
    g = garnet(15, 3, 3, seed=2)
    radii = np.array([0.1, 0.3, 0.8])
    # mixtures with P₀ keep P₀'s support, so P₀ lies in every support-restricted ball
    Ps = sources_at_discrepancy(g, radii, 3, seed=102)
    for agg in ("avg", "max"):
        Q = solve(Ps, g.r, radii, g.gamma, agg, backup=backup)
        V_true = evaluate_policy(g.P, g.r, Q.argmax(1), g.gamma)
        assert (Q.max(1) <= V_true + 1e-9).all()
    kappa_mp = solve(Ps, g.r, radii, g.gamma, "max").max(1)
    assert (kappa_mp <= solve(Ps, g.r, radii, g.gamma, "max", backup=backup).max(1) + 1e-9).all()
