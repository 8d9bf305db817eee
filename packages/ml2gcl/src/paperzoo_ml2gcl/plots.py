"""Figures of the experiments (skipped when matplotlib is not installed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paperzoo.plotting import pyplot

if TYPE_CHECKING:
    from paperzoo.runs import Run

_COLOURS = {"ml2gcl": "#d62728", "grace": "#1f77b4"}
_LABELS = {"ml2gcl": "ML²-GCL", "grace": "GRACE"}


def plot_accuracy(run: Run, records: Sequence[dict[str, Any]]) -> None:
    """Bars of mean accuracy (± std over splits) per dataset, one bar per method."""
    plt = pyplot()
    if plt is None or not records:
        return
    datasets = list(dict.fromkeys(r["dataset"] for r in records))
    methods = list(dict.fromkeys(r["method"] for r in records))
    width = 0.8 / len(methods)
    fig, ax = plt.subplots(figsize=(1.6 + 1.5 * len(datasets), 3.6))
    for k, method in enumerate(methods):
        rows = {r["dataset"]: r for r in records if r["method"] == method}
        xs = [i + (k - (len(methods) - 1) / 2) * width for i, d in enumerate(datasets) if d in rows]
        ys = [rows[d]["mean"] for d in datasets if d in rows]
        err = [rows[d]["std"] for d in datasets if d in rows]
        ax.bar(
            xs,
            ys,
            width,
            yerr=err,
            capsize=3,
            color=_COLOURS.get(method, "gray"),
            label=_LABELS.get(method, method),
        )
    ax.set_xticks(range(len(datasets)), datasets)
    ax.set_ylabel("test accuracy (%)")
    low = min(r["mean"] - r["std"] for r in records)
    ax.set_ylim(max(0.0, low - 10), 100)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    run.save_figure(fig, "accuracy", title="Linear-probe accuracy")


def plot_efficiency(run: Run, records: Sequence[dict[str, Any]]) -> None:
    """Seconds per epoch and peak memory against N (log–log), a line per method."""
    plt = pyplot()
    ok = [r for r in records if r.get("status") == "ok"]
    if plt is None or not ok:
        return
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 3.6))
    for method in dict.fromkeys(r["method"] for r in ok):
        rows = sorted((r for r in ok if r["method"] == method), key=lambda r: r["n_nodes"])
        n = [r["n_nodes"] for r in rows]
        style = {"marker": "o", "color": _COLOURS.get(method, "gray"), "label": _LABELS.get(method, method)}
        axes[0].plot(n, [r["epoch_s"] for r in rows], **style)
        axes[1].plot(n, [r["peak_rss_mb"] for r in rows], **style)
    for ax, label in zip(axes, ("seconds per epoch", "peak resident memory (MiB)")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("nodes N")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    run.save_figure(fig, "efficiency", title="Time and memory against graph size")
