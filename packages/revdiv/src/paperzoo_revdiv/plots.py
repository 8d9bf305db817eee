"""Figures of the experiments (skipped when matplotlib is not installed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paperzoo.plotting import pyplot

if TYPE_CHECKING:
    from paperzoo.runs import Run

COLORS = {"GP": "black", "UP": "tab:blue", "UEQ": "tab:orange", "SCUP": "tab:green"}


def plot_pps_curves(
    run: Run,
    alphas: list[float],
    curves: dict[str, np.ndarray],
    spread: dict[str, np.ndarray] | None,
    *,
    k: int,
    title: str,
) -> None:
    """Two panels, top-k and bottom-k PPS relative to GlobalProp against α."""
    plt = pyplot()
    if plt is None:
        return
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharex=True)
    for ax, which in zip(axes, ("top", "bottom")):
        ax.axhline(1.0, color=COLORS["GP"], lw=1, ls="--", label="GP")
        for name in ("UP", "UEQ", "SCUP"):
            y = curves[f"{name}/{which}"]
            ax.plot(alphas, y, marker="o", ms=3, color=COLORS[name], label=name)
            if spread is not None:
                err = spread[f"{name}/{which}"]
                ax.fill_between(alphas, y - err, y + err, color=COLORS[name], alpha=0.2)
        values = np.concatenate([curves[f"{name}/{which}"] for name in ("UP", "UEQ", "SCUP")])
        if values.max() / max(values.min(), 1e-12) > 20:
            ax.set_yscale("log")  # real data: the top artists are paid thousands of times the GP rate
        ax.set_xlabel("α (share of revenue paid to artists)")
        ax.set_ylabel(f"mean PPS of {which}-{k} artists / GlobalProp PPS")
        ax.set_title(f"{which.capitalize()}-{k} artists by pay-per-stream")
        ax.legend()
    fig.suptitle(title)
    run.save_figure(fig, "relative_pps_vs_alpha", title=f"{title}: relative PPS against α")


def plot_fraud(
    run: Run, bots: list[int], gains: dict[str, list[float]], *, alpha: float, n_users: int
) -> None:
    """Net gain of the bots' owner against the number of bots, per rule."""
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, values in gains.items():
        ax.plot(bots, values, marker="o", color=COLORS[name], label=name)
    ax.axhline(0.0, color="grey", lw=1)
    ax.set_xscale("log")
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_xlabel("number of bots (each pays a fee of 1)")
    ax.set_ylabel("net gain = pay to fake artist − fees (fees)")
    ax.legend()
    fig.suptitle(f"Fraud: bots streaming to a fake artist (α = {alpha}, {n_users:,} real users)")
    run.save_figure(fig, "fraud_gain", title="Net gain of bots under each rule")
