"""Figures of the experiments (skipped when matplotlib is not installed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paperzoo.plotting import pyplot

if TYPE_CHECKING:
    from paperzoo.runs import Run


def plot_rate(run: Run, sizes: list[int], risk: np.ndarray, slope: float, intercept: float) -> None:
    """Excess risk against n, log–log, with the fitted line."""
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(5.5, 4))
    mean, std = risk.mean(axis=1), risk.std(axis=1)
    ax.errorbar(sizes, mean, yerr=std, marker="o", capsize=3, label="post-processed groupwise OLS")
    grid = np.array([sizes[0], sizes[-1]], dtype=float)
    ax.plot(grid, np.exp(intercept) * grid**slope, ls="--", color="black", label=f"fit: slope {slope:.2f}")
    ax.plot(grid, mean[0] * (grid / grid[0]) ** -1.0, ls=":", color="grey", label="theory: slope −1")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("training samples n")
    ax.set_ylabel("excess risk E(ĝ − g*)² against the fair oracle")
    ax.legend()
    fig.suptitle("Fair regression rate on Gaussian-linear groups")
    run.save_figure(fig, "rate", title="Excess risk of the fair predictor against n (log-log)")


def plot_tradeoff(run: Run, curves: dict[str, dict[str, list[float]]]) -> None:
    """MSE against KS unfairness as the fairness level goes from 0 to 1, per base."""
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for base, curve in curves.items():
        ax.plot(curve["ks"], curve["mse"], marker="o", label=base)
        ax.annotate(
            "α=0", (curve["ks"][0], curve["mse"][0]), fontsize=7, textcoords="offset points", xytext=(4, 4)
        )
        ax.annotate("α=1", (curve["ks"][-1], curve["mse"][-1]), fontsize=7, textcoords="offset points",
                    xytext=(4, 4))  # fmt: skip
    ax.set_xlabel("KS unfairness (max over groups)")
    ax.set_ylabel("test MSE")
    ax.legend(title="base regressor")
    fig.suptitle("Communities & Crime: risk–unfairness trade-off over fairness levels α")
    run.save_figure(fig, "risk_unfairness", title="Risk against unfairness as α goes from 0 to 1")
