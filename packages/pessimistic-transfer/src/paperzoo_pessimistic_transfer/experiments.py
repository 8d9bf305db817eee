"""Experiments: zero-shot transfer on Garnet and FrozenLake, and the effect of E local steps.

* ``pessimistic-transfer.garnet`` — Garnet(30, 4, 3), γ = 0.95, K sources at
  Γ_k = ``discrepancies`` (P_k mixed towards fresh Garnet kernels); MDTL-Max,
  MDTL-Avg (model-based, E = 5, λ = 0.05, 300 rounds), domain randomisation and
  target-only learning; normalised target performance ν = μ·V^π_{P₀} / μ·V*_{P₀}
  and, at convergence (exact fixed points), whether each surrogate is a lower bound.
* ``pessimistic-transfer.frozenlake`` — FrozenLake 8×8 slippery, γ = 0.99: three good
  sources (support-preserving perturbations, ε = 0.010–0.020) and one bad one at
  ε ∈ {0.1, …, 0.4}; ν of MDTL-Max against uniform averaging (MDTL-Avg) and DR.
* ``pessimistic-transfer.local-steps`` — Garnet with E ∈ {1, 2, 5, 10}: the distance of
  the MDTL iterate to the exact T_AO / T_MP fixed point after each round, and ν.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from paperzoo.results import Result
from paperzoo_pessimistic_transfer.baselines import domain_randomisation, target_only
from paperzoo_pessimistic_transfer.mdps import (
    TabularMDP,
    frozenlake,
    garnet,
    perturb_kernel,
    sources_at_discrepancy,
)
from paperzoo_pessimistic_transfer.mdtl import mdtl
from paperzoo_pessimistic_transfer.operators import optimal_q, performance, solve, surrogate_value

if TYPE_CHECKING:
    from paperzoo.runs import Run

__all__ = ["frozenlake_bad_source", "garnet_transfer", "local_steps"]


def _mdtl_kwargs(s: Mapping[str, Any]) -> dict[str, Any]:
    return {"local_steps": s["local_steps"], "step_size": s["step_size"], "rounds": s["rounds"],
            "sampling": s["sampling"], "n_samples": s["n_samples"], "mlmc_levels": s["mlmc_levels"],
            "backup": s["backup"]}  # fmt: skip


def _garnet_problem(
    s: Mapping[str, Any], radii: np.ndarray, seed: int
) -> tuple[TabularMDP, np.ndarray, float]:
    """The target Garnet of ``seed``, its sources at ``radii`` and the optimal policy's performance."""
    target = garnet(s["n_states"], s["n_actions"], s["branching"], s["gamma"], seed=seed)
    Ps = sources_at_discrepancy(target, radii, s["branching"], seed=seed + 500_000)
    opt = performance(target, optimal_q(target.P, target.r, target.gamma).argmax(1))
    return target, Ps, opt


def garnet_transfer(run: Run) -> Result:
    """ν of MDTL-Max/Avg and the peers on Garnet; the lower-bound property at convergence."""
    s = run.settings
    radii = np.asarray(s["discrepancies"], dtype=float)
    rng = run.rng(1)
    records: list[dict[str, Any]] = []
    for i in run.progress(range(s["seeds"]), total=s["seeds"], description="seeds"):
        seed = run.seed * 1000 + i
        target, Ps, opt = _garnet_problem(s, radii, seed)
        rec: dict[str, Any] = {"seed": seed, "optimal": opt}
        for agg, name in (("max", "MDTL-Max"), ("avg", "MDTL-Avg")):
            out = mdtl(Ps, target.r, radii, target.gamma, aggregation=agg, seed=seed, **_mdtl_kwargs(s))
            rec[name] = performance(target, out.Q.argmax(1)) / opt
            rec[f"{name} curve"] = [
                performance(target, q.argmax(1)) / opt for q in out.history[:: s["curve_every"]]
            ]
            fixed = solve(Ps, target.r, radii, target.gamma, agg, backup=s["backup"])
            true = performance(target, fixed.argmax(1))
            rec[f"{name} surrogate"] = surrogate_value(target, fixed)
            rec[f"{name} true"] = true
        dr = domain_randomisation(Ps, target.r, target.gamma)
        rec["DR"] = performance(target, dr.argmax(1)) / opt
        rec["DR surrogate"] = surrogate_value(target, dr)
        rec["DR true"] = performance(target, dr.argmax(1))
        rec["target-only"] = (
            performance(target, target_only(target, s["target_samples"], rng).argmax(1)) / opt
        )
        records.append(rec)
    result = Result()
    setting = {
        "S": s["n_states"],
        "A": s["n_actions"],
        "γ": s["gamma"],
        "E": s["local_steps"],
        "T": s["rounds"],
    }
    for name in ("MDTL-Max", "MDTL-Avg", "DR", "target-only"):
        vals = np.array([r[name] for r in records])
        result.add("normalised target performance ν", float(vals.mean()), setting={"method": name, **setting})
        result.add("ν, worst seed", float(vals.min()), setting={"method": name, **setting})
    tol = 1e-9
    for name in ("MDTL-Max", "MDTL-Avg", "DR"):
        bound = np.mean([r[f"{name} surrogate"] <= r[f"{name} true"] + tol for r in records])
        result.add(
            "surrogate ≤ true value (share of seeds)",
            float(bound),
            setting={"method": name, "at": "convergence"},
        )
    mp_ge_ao = np.mean([r["MDTL-Max surrogate"] >= r["MDTL-Avg surrogate"] - tol for r in records])
    result.add("MP surrogate ≥ AO surrogate (share of seeds)", float(mp_ge_ao), setting={"at": "convergence"})
    run.save_json(records, "garnet")
    from paperzoo_pessimistic_transfer.plots import plot_curves

    plot_curves(
        run,
        records,
        ["MDTL-Max", "MDTL-Avg"],
        s["curve_every"],
        "garnet",
        "Garnet: ν of the greedy policy per round",
    )
    result.notes = (
        f"{s['seeds']} seeds; sources P_k = (1 − ρ_k)P₀ + ρ_k P̃_k at Γ_k = {list(radii)} (L1); ν = μ·V^π/μ·V* with "
        f"uniform μ. 'paper' for ν is the official code's 0.99–1.0 (Garnet_exp1); DR = domain randomisation (optimal policy of the "
        f"mean kernel), target-only = {s['target_samples']} samples per (s, a). Lower bounds are checked at the "
        "exact fixed points (value iteration), not after T noisy rounds."
    )
    return result


def frozenlake_bad_source(run: Run) -> Result:
    """ν of MDTL-Max against uniform averaging with one bad source on FrozenLake 8×8."""
    s = run.settings
    target = frozenlake(gamma=s["gamma"])
    Q_star = optimal_q(target.P, target.r, target.gamma)
    opt = performance(target, Q_star.argmax(1))
    result = Result()
    result.add("V*(s₀)", float(Q_star.max(1)[0]), setting={"γ": s["gamma"]})
    records: list[dict[str, Any]] = []
    for i in run.progress(range(s["seeds"]), total=s["seeds"], description="seeds"):
        rng = np.random.default_rng(run.seed * 1000 + i)
        good = [perturb_kernel(target.P, e, rng) for e in s["good_eps"]]
        for eps in s["bad_eps"]:
            bad = perturb_kernel(target.P, eps, rng)
            Ps = np.stack([g[0] for g in good] + [bad[0]])
            radii = np.stack([g[1] for g in good] + [bad[1]])
            lost = int(((bad[0] == 0) & (target.P > 0)).sum())  # entries clipped to 0: P₀ leaves supp-ball
            rec: dict[str, Any] = {
                "seed": i,
                "eps": eps,
                "bad Γ": float(bad[1].max()),
                "bad lost support": lost,
            }
            for agg, name in (("max", "MDTL-Max"), ("avg", "MDTL-Avg")):
                out = mdtl(Ps, target.r, radii, target.gamma, aggregation=agg, seed=i, **_mdtl_kwargs(s))
                rec[name] = performance(target, out.Q.argmax(1)) / opt
                fixed = solve(Ps, target.r, radii, target.gamma, agg, backup=s["backup"], tol=1e-8)
                rec[f"{name} exact"] = performance(target, fixed.argmax(1)) / opt
                rec[f"{name} lower bound"] = bool(
                    fixed.max(1)[0] <= performance(target, fixed.argmax(1)) + 1e-9
                )
            rec["DR"] = performance(target, domain_randomisation(Ps, target.r, target.gamma).argmax(1)) / opt
            records.append(rec)
    for eps in s["bad_eps"]:
        rows = [r for r in records if r["eps"] == eps]
        for name in ("MDTL-Max", "MDTL-Avg", "DR"):
            where = {"method": name, "bad ε": eps}
            result.add(
                "normalised target performance ν", float(np.mean([r[name] for r in rows])), setting=where
            )
            if name != "DR":
                result.add(
                    "ν at convergence", float(np.mean([r[f"{name} exact"] for r in rows])), setting=where
                )
                result.add("surrogate ≤ true value (share)", float(np.mean([r[f"{name} lower bound"] for r in rows])),
                           setting=where)  # fmt: skip
    run.save_json(records, "frozenlake")
    from paperzoo_pessimistic_transfer.plots import plot_bad_source

    plot_bad_source(run, records)
    result.notes = (
        f"{s['seeds']} seeds; good sources perturb each nonzero P₀(s'|s,a) by U[−ε, ε] (ε = {s['good_eps']}), the bad "
        f"one by ε = bad ε; local radii Γ_k(s,a) = L1 distances; robust backup {s['backup']!r} (the official "
        "script: 'exact', the L1 worst case on each row's support). 'paper' for MDTL-Avg is the official code's uniform "
        "averaging (Frozenlake_exp2), for MDTL-Max its similarity-aware ≈ 1.00 (MP plays that role here). Step λ = "
        f"{s['step_size']}, E = {s['local_steps']}, {s['rounds']} rounds (the official FrozenLake script's 500 "
        "local iterations at λ = 0.5)."
    )
    return result


def local_steps(run: Run) -> Result:
    """Distance to the exact fixed point and ν after T rounds, for each E."""
    s = run.settings
    radii = np.asarray(s["discrepancies"], dtype=float)
    records: list[dict[str, Any]] = []
    for i in run.progress(range(s["seeds"]), total=s["seeds"], description="seeds"):
        seed = run.seed * 1000 + i
        target, Ps, opt = _garnet_problem(s, radii, seed)
        for agg, name in (("max", "MDTL-Max"), ("avg", "MDTL-Avg")):
            fixed = solve(Ps, target.r, radii, target.gamma, agg)
            scale = np.abs(fixed).max()
            for E in s["local_steps_grid"]:
                out = mdtl(Ps, target.r, radii, target.gamma, aggregation=agg, local_steps=E,
                           step_size=s["step_size"], rounds=s["rounds"])  # fmt: skip
                err = np.abs(out.history - fixed).max(axis=(1, 2)) / scale
                records.append({"seed": seed, "method": name, "E": E, "error": err.tolist(),
                                "nu": performance(target, out.Q.argmax(1)) / opt})  # fmt: skip
    result = Result()
    for name in ("MDTL-Max", "MDTL-Avg"):
        for E in s["local_steps_grid"]:
            rows = [r for r in records if r["method"] == name and r["E"] == E]
            where = {"method": name, "E": E, "T": s["rounds"]}
            result.add(
                "‖Q_T − Q_fix‖∞ / ‖Q_fix‖∞", float(np.mean([r["error"][-1] for r in rows])), setting=where
            )
            result.add(
                "normalised target performance ν", float(np.mean([r["nu"] for r in rows])), setting=where
            )
    run.save_json(records, "local_steps")
    from paperzoo_pessimistic_transfer.plots import plot_local_steps

    plot_local_steps(run, records)
    result.notes = (
        "Model-based MDTL on Garnet; Q_fix is the exact fixed point of T_MP (Max) or T_AO (Avg). More local "
        "steps per round converge faster per round; for E > 1 the iteration's limit drifts from Q_fix by "
        "O((E − 1)λΓ), the (E − 1)Γ/T term of the paper's bound. The paper reports this as a figure, no number."
    )
    return result
