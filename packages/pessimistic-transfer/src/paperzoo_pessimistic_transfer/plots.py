"""Figures of the experiments (skipped when matplotlib is not installed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from paperzoo.plotting import pyplot

if TYPE_CHECKING:
    from paperzoo.runs import Run


def plot_curves(run: Run, records: Sequence[dict[str, Any]], methods: Sequence[str], every: int, name: str,
                title: str) -> None:  # fmt: skip
    """Mean ν of the greedy policy against the round, one line per method."""
    plt = pyplot()
    if plt is None or not records:
        return
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for method in methods:
        curves = np.array([r[f"{method} curve"] for r in records])
        x = np.arange(curves.shape[1]) * every + 1
        ax.plot(x, curves.mean(0), label=method)
        ax.fill_between(x, curves.min(0), curves.max(0), alpha=0.2)
    ax.set_xlabel("round (synchronisation)")
    ax.set_ylabel("normalised target performance ν")
    ax.set_title(title, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    run.save_figure(fig, name, title=title)


def plot_bad_source(run: Run, records: Sequence[dict[str, Any]]) -> None:
    """Mean ν against the bad source's ε, a line per method."""
    plt = pyplot()
    if plt is None or not records:
        return
    eps = sorted({r["eps"] for r in records})
    fig, ax = plt.subplots(figsize=(5, 3.6))
    for method in ("MDTL-Max", "MDTL-Avg", "DR"):
        ax.plot(
            eps,
            [np.mean([r[method] for r in records if r["eps"] == e]) for e in eps],
            marker="o",
            label=method,
        )
    ax.set_xlabel("bad source perturbation ε")
    ax.set_ylabel("normalised target performance ν")
    ax.set_title("FrozenLake 8×8: one bad source", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    run.save_figure(fig, "frozenlake_bad_source", title="ν against the bad source's ε")


def plot_local_steps(run: Run, records: Sequence[dict[str, Any]]) -> None:
    """Relative distance to the exact fixed point against the round (log scale), a line per E."""
    plt = pyplot()
    if plt is None or not records:
        return
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), sharey=True)
    for ax, method in zip(axes, ("MDTL-Max", "MDTL-Avg")):
        for E in sorted({r["E"] for r in records}):
            errs = np.array([r["error"] for r in records if r["method"] == method and r["E"] == E])
            ax.semilogy(np.arange(1, errs.shape[1] + 1), errs.mean(0), label=f"E = {E}")
        ax.set_title(method, fontsize=9)
        ax.set_xlabel("round")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("‖Q_t − Q_fix‖∞ / ‖Q_fix‖∞")
    axes[1].legend()
    fig.tight_layout()
    run.save_figure(fig, "local_steps", title="Convergence against rounds for E local steps")
