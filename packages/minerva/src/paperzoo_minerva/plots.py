"""Figures of the experiments (skipped when matplotlib is not installed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from paperzoo.plotting import pyplot

if TYPE_CHECKING:
    from paperzoo.runs import Run


def plot_categories(run: Run, categories: Mapping[str, float], responder: str) -> None:
    """A bar per category: the mean of its tasks' headline scores."""
    plt = pyplot()
    if plt is None:
        return
    names = list(categories)
    fig, ax = plt.subplots(figsize=(7, 3.8))
    ax.barh(range(len(names)), [categories[n] for n in names], color="#2f6fb0")
    ax.set_yticks(range(len(names)), [n.replace("_", " ") for n in names])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("mean score of the category's tasks (0–1)")
    fig.suptitle(f"Minerva by category: {responder}")
    run.save_figure(fig, "categories", title=f"Score per category ({responder})")
