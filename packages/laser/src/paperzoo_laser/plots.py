"""Figures of ``laser.lm`` (skipped when matplotlib is not installed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from paperzoo.plotting import pyplot
from paperzoo_laser.model import PROJECTIONS

if TYPE_CHECKING:
    from paperzoo.runs import Run

COLOURS = {"softmax": "tab:blue", "laser": "tab:red"}


def plot_val_loss(run: Run, records: Sequence[dict[str, Any]]) -> None:
    """Validation loss against the step (mean ± std over seeds, from the first evaluation after
    initialisation), and the paired difference LASER − softmax per seed (mean ± std)."""
    plt = pyplot()
    if plt is None or not records:
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
    curves = {}
    for kind in COLOURS:
        rows = sorted((r for r in records if r["attention"] == kind), key=lambda r: r["seed"])
        if not rows:
            continue
        steps = np.array(rows[0]["steps"])
        curves[kind] = np.array([r["val_loss"] for r in rows])
        mean, std = curves[kind].mean(0), curves[kind].std(0)
        left.plot(steps[1:], mean[1:], color=COLOURS[kind], label=f"{kind} ({len(rows)} seeds)")
        left.fill_between(steps[1:], (mean - std)[1:], (mean + std)[1:], color=COLOURS[kind], alpha=0.2)
    left.set_xlabel("training step")
    left.set_ylabel("validation loss (nats per byte)")
    left.set_title("Validation loss (mean ± std over seeds)", fontsize=9)
    left.grid(alpha=0.3)
    left.legend()
    if len(curves) == 2:
        diff = curves["laser"] - curves["softmax"]
        mean, std = diff.mean(0), diff.std(0)
        right.axhline(0.0, color="grey", lw=0.8)
        right.plot(steps[1:], mean[1:], color=COLOURS["laser"])
        right.fill_between(steps[1:], (mean - std)[1:], (mean + std)[1:], color=COLOURS["laser"], alpha=0.2)
    right.set_xlabel("training step")
    right.set_ylabel("LASER − softmax (nats per byte)")
    right.set_title("Paired difference, same seed (below 0: LASER better)", fontsize=9)
    right.grid(alpha=0.3)
    title = "Validation loss, softmax vs LASER"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    run.save_figure(fig, "val_loss", title=title)


def plot_grad_norms(run: Run, records: Sequence[dict[str, Any]]) -> None:
    """Gradient norm of each attention projection against the step (mean over seeds, log scale)."""
    plt = pyplot()
    if plt is None or not records:
        return
    fig, axes = plt.subplots(1, len(PROJECTIONS), figsize=(12, 3.2), sharex=True)
    for ax, p in zip(axes, PROJECTIONS):
        for kind in COLOURS:
            rows = [r for r in records if r["attention"] == kind]
            if rows:
                norms = np.array([r["grad_norms"][p] for r in rows]).mean(0)
                ax.semilogy(rows[0]["steps"], norms, color=COLOURS[kind], label=kind)
        ax.set_title(f"‖∂L/∂{p}‖", fontsize=9)
        ax.set_xlabel("training step")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("gradient norm (Frobenius)")
    axes[0].legend()
    title = "Attention-projection gradient norms (step 0 = initialisation)"
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    run.save_figure(fig, "grad_norms", title=title)
