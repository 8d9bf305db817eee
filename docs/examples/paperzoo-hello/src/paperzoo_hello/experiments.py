"""Experiment of paperzoo-hello: the estimate converges to the true mean."""

from __future__ import annotations

import math

from paperzoo import Result, Run
from paperzoo_hello.mean import ShrunkMean, abs_error


def mean(run: Run) -> Result:
    """Draw ``n`` samples of N(loc, 1), fit ShrunkMean, compare with ``loc``."""
    n, loc = run.settings["n"], run.settings["loc"]
    x = run.rng().normal(loc, 1.0, size=n)
    estimator = ShrunkMean(shrinkage=run.settings["shrinkage"]).fit(x)
    error = abs_error(estimator.mean_, loc)
    run.log_metric("abs_error", error)
    run.save_json({"mean": estimator.mean_, "n": n}, "estimate")
    return (
        Result(notes="The 'paper' value of the mean is the true loc; of the error, 1/sqrt(n).")
        .add("mean", estimator.mean_, paper=loc)
        .add("absolute error", error, paper=1 / math.sqrt(n))
    )
