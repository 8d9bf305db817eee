"""Figures of the experiments (skipped when matplotlib is not installed)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from paperzoo.plotting import pyplot

if TYPE_CHECKING:
    from paperzoo.runs import Run

_STYLE = {
    "bloom": ("black", "--"),
    "lbf": ("#1f77b4", "-"),
    "sandwiched": ("#17becf", "-"),
    "plbf": ("#9467bd", "-"),
    "ensemble": ("#d62728", "-"),
    "ensemble-independent": ("#ff7f0e", ":"),
    "ensemble-2": ("#e377c2", "-."),
    "ensemble-shared": ("#8c564b", ":"),
}


def plot_fpr(run: Run, records: Sequence[dict[str, Any]], by: str | None) -> None:
    """FPR (log scale) against bits per key, a line per method; one panel per value of ``by``."""
    plt = pyplot()
    if plt is None or not records:
        return
    panels = sorted({r[by] for r in records}) if by else [None]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), sharey=True, squeeze=False)
    for ax, panel in zip(axes[0], panels):
        rows = [r for r in records if by is None or r[by] == panel]
        for method in dict.fromkeys(r["method"] for r in rows):
            pts = sorted(
                (r["bits_per_key"], r["fpr"]) for r in rows if r["method"] == method and r["fpr"] > 0
            )
            if pts:
                color, line = _STYLE.get(method, ("gray", "-"))
                ax.plot(*zip(*pts), marker="o", ms=3, color=color, linestyle=line, label=method)
        ax.set_yscale("log")
        ax.set_xlabel("total bits per key (oracles included)")
        if panel is not None:
            ax.set_title(f"{by} = {panel}")
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("false-positive rate (test non-keys)")
    axes[0][-1].legend(fontsize=7)
    fig.tight_layout()
    run.save_figure(fig, "fpr", title="FPR against bits per key")


def plot_analytic(run: Run, records: Sequence[dict[str, Any]]) -> None:
    """Analytic against empirical FPR of every built filter, with the ±10 % band."""
    plt = pyplot()
    rows = [r for r in records if r["fpr"] > 0 and r["analytic_fpr"] > 0]
    if plt is None or not rows:
        return
    fig, ax = plt.subplots(figsize=(4.5, 4.2))
    lo = min(min(r["fpr"], r["analytic_fpr"]) for r in rows) / 1.5
    hi = max(max(r["fpr"], r["analytic_fpr"]) for r in rows) * 1.5
    ax.fill_between([lo, hi], [lo / 1.1, hi / 1.1], [lo * 1.1, hi * 1.1], color="0.9", label="±10 %")
    ax.plot([lo, hi], [lo, hi], color="0.5", lw=0.8)
    for method in dict.fromkeys(r["method"] for r in rows):
        pts = [(r["fpr"], r["analytic_fpr"]) for r in rows if r["method"] == method]
        ax.scatter(*zip(*pts), s=10, color=_STYLE.get(method, ("gray", "-"))[0], label=method)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("empirical FPR (test non-keys)")
    ax.set_ylabel("analytic FPR (built filters, held-out non-keys)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    run.save_figure(fig, "analytic", title="Analytic against empirical FPR")
