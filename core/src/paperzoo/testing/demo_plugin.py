"""A complete, tiny reference plugin used by paperzoo's own tests.

It registers one of everything — estimator, metric, dataset, experiment — so
tests (ours and third parties') can exercise a host end to end without
installing a real paper plugin::

    host = paperzoo.testing.isolated_host(paperzoo.testing.demo_plugin)
    paperzoo.execute(paperzoo.RunRequest("demo.noisy-mean"), host=host)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from paperzoo.base import BaseEstimator, check_is_fitted
from paperzoo.data import DataFile, fetch
from paperzoo.errors import ConfigError
from paperzoo.hookspecs import hookimpl
from paperzoo.plotting import pyplot
from paperzoo.results import Result
from paperzoo.specs import DatasetSpec, EstimatorSpec, ExperimentSpec, MetricSpec, PluginInfo

if TYPE_CHECKING:
    import numpy as np

    from paperzoo.runs import Run

NUMBERS_CSV = b"x\n1.0\n2.0\n3.0\n4.0\n"
NUMBERS = DataFile(
    path="demo/numbers.csv",
    url="https://example.invalid/paperzoo/demo/numbers.csv",
    sha256="5b8618b4495ebe30faf22633a12198c314068393c9e1ae2ed3476ddb746a36ea",
)


class ShrunkMean(BaseEstimator):
    """Mean shrunk towards a prior: μ̂ = (Σx + λ·μ₀) / (n + λ)."""

    def __init__(self, shrinkage: float = 0.0, prior: float = 0.0) -> None:
        self.shrinkage = shrinkage
        self.prior = prior

    def fit(self, x: np.ndarray) -> ShrunkMean:
        import numpy as np

        x = np.asarray(x, dtype=float)
        if x.ndim != 1 or x.size == 0:
            raise ConfigError(f"expected a non-empty 1-d array, got shape {x.shape}")
        if self.shrinkage < 0:
            raise ConfigError(f"shrinkage must be >= 0, got {self.shrinkage}")
        self.mean_ = float((x.sum() + self.shrinkage * self.prior) / (x.size + self.shrinkage))
        self.n_samples_ = int(x.size)
        return self

    def predict(self, n: int) -> np.ndarray:
        import numpy as np

        check_is_fitted(self)
        return np.full(n, self.mean_)


def squared_error(estimate: float, truth: float) -> float:
    """(μ̂ − μ)²."""
    return float((estimate - truth) ** 2)


def load_numbers(*, scale: float = 1.0) -> list[float]:
    """The four numbers of ``demo/numbers.csv``, times ``scale``."""
    lines = fetch(NUMBERS).read_text().split()[1:]
    return [scale * float(v) for v in lines]


def load_numbers_experiment(run: Run) -> Result:
    """Load ``demo.numbers`` inside a run and report their sum."""
    return Result().add("sum", sum(load_numbers()))


def noisy_mean(run: Run) -> Result:
    """Estimate the mean of N(loc, 1) from ``n`` samples; optionally fail."""
    s = run.settings
    if s["fail"]:
        raise RuntimeError("failing on purpose (fail=true)")
    x = run.rng().normal(s["loc"], 1.0, s["n"])
    estimator = ShrunkMean(shrinkage=s["shrinkage"]).fit(x)
    for step in range(s["steps"]):
        run.log_step(step, loss=1.0 / (step + 1))
    run.log_metric("estimate", estimator.mean_)
    run.save_json({"samples": int(s["n"]), "estimate": estimator.mean_}, "estimate")
    plt = pyplot()
    if plt is not None:
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.hist(x, bins=20)
        ax.set_xlabel("x")
        ax.set_ylabel("count")
        fig.suptitle("Samples")
        run.save_figure(fig, "samples")
    return (
        Result(notes="a demo: the paper value is the true mean")
        .add("mean", estimator.mean_, paper=s["loc"], setting={"n": s["n"]})
        .add("squared error", squared_error(estimator.mean_, s["loc"]), unit="")
    )


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(id="demo", framework="numpy", paper="A demo paper", venue="nowhere")


@hookimpl
def paperzoo_register_estimators(register: Callable[[EstimatorSpec], None]) -> None:
    register(EstimatorSpec("demo.shrunk-mean", f"{__name__}:ShrunkMean", "Shrunk mean"))


@hookimpl
def paperzoo_register_metrics(register: Callable[[MetricSpec], None]) -> None:
    register(
        MetricSpec(
            "demo.squared-error",
            f"{__name__}:squared_error",
            "Squared error",
            formula="(μ̂ − μ)²",
            greater_is_better=False,
        )
    )


@hookimpl
def paperzoo_register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    register(
        DatasetSpec(
            "demo.numbers",
            f"{__name__}:load_numbers",
            "Four numbers",
            files=(NUMBERS,),
            homepage="https://example.invalid/paperzoo",
            license="CC0-1.0",
        )
    )


@hookimpl
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    register(
        ExperimentSpec(
            "demo.noisy-mean",
            f"{__name__}:noisy_mean",
            "Mean of normal samples against the truth",
            settings={"n": 1000, "loc": 1.0, "shrinkage": 0.0, "steps": 3, "fail": False},
            scales={"smoke": {"n": 50}, "paper": {"n": 100_000}},
            reproduces="Table 1",
        )
    )


def write_numbers(directory: Path) -> Path:
    """Write ``demo/numbers.csv`` under ``directory`` (a mirror for tests)."""
    path = directory / NUMBERS.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(NUMBERS_CSV)
    return path
