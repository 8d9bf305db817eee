"""Figures of the experiments (skipped when matplotlib is not installed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paperzoo.plotting import pyplot

if TYPE_CHECKING:
    from paperzoo.runs import Run


def _show(ax, image: np.ndarray) -> None:
    img = np.clip((image + 1.0) / 2.0, 0.0, 1.0)
    ax.imshow(img[..., 0] if img.shape[-1] == 1 else img, cmap="gray", vmin=0, vmax=1)
    ax.set_xticks([])
    ax.set_yticks([])


def plot_grid(run: Run, columns: dict[str, np.ndarray], name: str, title: str) -> None:
    """One row per sample, one column per source (network | ELS | IS | nearest training image)."""
    plt = pyplot()
    if plt is None:
        return
    rows = min(len(next(iter(columns.values()))), 8)
    fig, axes = plt.subplots(rows, len(columns), figsize=(1.4 * len(columns), 1.4 * rows), squeeze=False)
    for j, (label, images) in enumerate(columns.items()):
        axes[0, j].set_title(label, fontsize=8)
        for i in range(rows):
            _show(axes[i, j], images[i])
    fig.suptitle(title, fontsize=9)
    run.save_figure(fig, name, title=title)


def plot_mosaic(run: Run, outputs: np.ndarray, provenance: np.ndarray, name: str, title: str) -> None:
    """ELS output beside maps of where each pixel's best patch comes from: the training
    image μ (colour = image id) and the source location's displacement |q − p| in pixels."""
    plt = pyplot()
    if plt is None:
        return
    rows = min(len(outputs), 4)
    h, w = outputs.shape[1:3]
    rr, cc = np.indices((h, w))
    fig, axes = plt.subplots(rows, 3, figsize=(5.4, 1.8 * rows), squeeze=False)
    for i in range(rows):
        _show(axes[i, 0], outputs[i])
        _, ids = np.unique(provenance[i, ..., 0], return_inverse=True)
        axes[i, 1].imshow(ids.reshape(h, w), cmap="tab20", interpolation="nearest")
        shift = np.hypot(provenance[i, ..., 1] - rr, provenance[i, ..., 2] - cc)
        im = axes[i, 2].imshow(shift, cmap="viridis", interpolation="nearest")
        fig.colorbar(im, ax=axes[i, 2], fraction=0.046, label="pixels")
        for ax in axes[i, 1:]:
            ax.set_xticks([])
            ax.set_yticks([])
    axes[0, 0].set_title("ELS output", fontsize=8)
    axes[0, 1].set_title("source training image μ", fontsize=8)
    axes[0, 2].set_title("source shift |q − p|", fontsize=8)
    fig.suptitle(title, fontsize=9)
    run.save_figure(fig, name, title=title)


def plot_schedule(run: Run, schedules: dict[str, list[int]], name: str) -> None:
    """Calibrated patch size against the sampler time t."""
    plt = pyplot()
    if plt is None:
        return
    fig, ax = plt.subplots(figsize=(4.5, 3.2))
    for label, sched in schedules.items():
        t = (np.arange(len(sched)) + 1) / len(sched)
        ax.plot(t, sched, marker="o", label=label)
    ax.set_xlabel("time t (1 = pure noise)")
    ax.set_ylabel("calibrated patch size P (pixels)")
    ax.set_title("Patch size calibrated against the network", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    run.save_figure(fig, name, title="Calibrated patch size P(t)")
