"""Figures of the experiments (skipped when matplotlib is not installed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from paperzoo.plotting import pyplot

if TYPE_CHECKING:
    from paperzoo.runs import Run


def plot_categories(run: Run, by_responder: Mapping[str, Mapping[str, float]]) -> None:
    """Per category, a bar per responder: the mean of the category's headline task scores."""
    plt = pyplot()
    if plt is None or not by_responder:
        return
    names = list(next(iter(by_responder.values())))
    y = np.arange(len(names))
    height = 0.8 / len(by_responder)
    fig, ax = plt.subplots(figsize=(7.5, 0.5 * len(names) * max(1, len(by_responder) / 2) + 1.5))
    for k, (responder, categories) in enumerate(by_responder.items()):
        values = [categories.get(n, float("nan")) for n in names]
        ax.barh(y + k * height - 0.4 + height / 2, values, height=height, label=responder)
    ax.set_yticks(y, [n.replace("_", " ") for n in names])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("mean score of the category's tasks (0–1)")
    ax.legend(loc="lower right", fontsize=8)
    fig.suptitle("Minerva by category")
    run.save_figure(fig, "categories", title="Score per category and responder")
