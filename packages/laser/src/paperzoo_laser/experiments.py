"""Experiments of paperzoo-laser: each reproduces one table or figure of the paper.

An experiment is ``def name(run: paperzoo.Run) -> paperzoo.Result``. It reads its
settings from ``run.settings`` and draws randomness from ``run.rng()``, and returns
rows (metric, value, paper's value, unit, setting): it never prints tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperzoo import Result
from paperzoo_laser.estimators import ShrunkMean

if TYPE_CHECKING:
    from paperzoo import Run

TRUE_MEAN = 2.0


def example(run: Run) -> Result:
    """Placeholder: absolute error of ``ShrunkMean`` on y ~ N(2, 1), n samples.

    error = |(1 − shrinkage) · ȳ − 2|
    """
    n = run.settings["n"]
    shrinkage = run.settings["shrinkage"]
    rng = run.rng()
    X = rng.normal(size=(n, 3))
    y = TRUE_MEAN + rng.normal(size=n)
    model = ShrunkMean(shrinkage=shrinkage).fit(X, y)
    error = abs(model.mean_ - TRUE_MEAN)
    run.log_metric("absolute error", error)
    return Result().add("absolute error of the mean", error, setting={"n": n, "shrinkage": shrinkage})
