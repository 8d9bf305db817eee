"""Experiment of paperzoo-hello: the estimate converges to the true mean."""

from __future__ import annotations

import math

from paperzoo import Ref, Result, Run
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
        Result()
        .add("mean", estimator.mean_, ref=Ref(loc, "the true mean, loc", kind="oracle"))
        .add("absolute error", error, ref=Ref(1 / math.sqrt(n), "standard error 1/√n", kind="theorem"))
    )
