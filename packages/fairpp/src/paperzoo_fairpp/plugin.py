"""paperzoo plugin ``fairpp``: hook implementations only (no numpy or scikit-learn at import)."""

from __future__ import annotations

from collections.abc import Callable

from paperzoo import DataFile, DatasetSpec, EstimatorSpec, ExperimentSpec, MetricSpec, PluginInfo, hookimpl

PAPER = "Meta Optimality for Demographic Parity Constrained Regression via Post-Processing"
SIZES = [250, 500, 1000, 2000, 4000, 8000]
LEVELS = [round(0.1 * i, 1) for i in range(11)]

CRIME_FILE = DataFile(
    path="fairness/communities_crime.csv",
    url=(
        "https://raw.githubusercontent.com/tailequy/fairness_dataset/"
        "f8726608fe1e7a77a3d3f14d7244e6b46e77aebd/experiments/data/communities_crime.csv"
    ),
    sha256="6ca7f7a9c71b7aa61b2b0a95769f296e8194ab212b1b2723f2017b8780492fa7",
    size=984_911,
)


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(
        id="fairpp", framework="numpy", paper=PAPER, venue="ICML 2025", url="https://arxiv.org/abs/2506.13947"
    )


@hookimpl
def paperzoo_register_estimators(register: Callable[[EstimatorSpec], None]) -> None:
    register(
        EstimatorSpec(
            "fairpp.demographic-parity-regressor",
            "paperzoo_fairpp.regressor:DemographicParityRegressor",
            "Any scikit-learn regressor made demographic-parity fair by post-processing.",
        )
    )
    register(
        EstimatorSpec(
            "fairpp.barycenter-postprocessor",
            "paperzoo_fairpp.postprocess:BarycenterPostProcessor",
            "Wasserstein-barycenter post-processing of given predictions.",
        )
    )
    register(
        EstimatorSpec(
            "fairpp.dp-penalized-linear",
            "paperzoo_fairpp.baselines:PenalizedLinearRegression",
            "Baseline: ridge regression with a penalty on group mean differences.",
        )
    )


@hookimpl
def paperzoo_register_metrics(register: Callable[[MetricSpec], None]) -> None:
    register(
        MetricSpec(
            "fairpp.ks-unfairness",
            "paperzoo_fairpp.metrics:ks_unfairness",
            "Max over group pairs of the KS distance of predictions.",
            formula="max_{a,b} sup_t |F_a(t) - F_b(t)|",
            greater_is_better=False,
        )
    )
    register(
        MetricSpec(
            "fairpp.w2-unfairness",
            "paperzoo_fairpp.metrics:w2_unfairness",
            "Max over group pairs of the W2 distance of predictions.",
            formula="max_{a,b} (int_0^1 |Q_a(u) - Q_b(u)|^2 du)^(1/2)",
            greater_is_better=False,
        )
    )
    register(
        MetricSpec(
            "fairpp.mse",
            "paperzoo_fairpp.metrics:mse",
            "Mean squared error.",
            formula="(1/n) sum (y - yhat)^2",
            greater_is_better=False,
        )
    )


@hookimpl
def paperzoo_register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    register(
        DatasetSpec(
            "fairpp.communities-crime",
            "paperzoo_fairpp.datasets:communities_crime",
            "Communities & Crime: 1,994 US communities, 99 features, violent crime rate, binary group.",
            files=(CRIME_FILE,),
            homepage="https://archive.ics.uci.edu/dataset/183/communities+and+crime",
            license="CC BY 4.0",
            citation="Redmond & Baveja, A data-driven software tool for enabling cooperative information sharing "
            "among police departments, EJOR 2002.",
        )
    )
    register(
        DatasetSpec(
            "fairpp.gaussian-groups",
            "paperzoo_fairpp.datasets:gaussian_linear_groups",
            "Synthetic Gaussian-linear groups with a closed-form fair oracle.",
            homepage="https://arxiv.org/abs/2506.13947",
            license="generated (no licence needed)",
        )
    )


@hookimpl
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    register(
        ExperimentSpec(
            "fairpp.rate",
            "paperzoo_fairpp.experiments:rate",
            "Excess risk against the closed-form fair oracle as n grows (log-log slope).",
            settings={
                "sizes": SIZES,
                "repeats": 20,
                "d": 5,
                "n_groups": 2,
                "test_size": 20_000,
                "noise": 1.0,
            },
            scales={
                "smoke": {"sizes": [250, 1000, 4000], "repeats": 3, "test_size": 5_000},
                "paper": {"repeats": 50, "n_groups": 3},
            },
            reproduces="the rate of the meta-theorem (excess risk ~ n^-1)",
        )
    )
    register(
        ExperimentSpec(
            "fairpp.crime",
            "paperzoo_fairpp.experiments:crime",
            "Communities & Crime: MSE and unfairness before/after, risk-unfairness curves per base regressor.",
            settings={
                "bases": ["linear", "random-forest", "gradient-boosting"],
                "repeats": 10,
                "test_size": 0.3,
                "levels": LEVELS,
                "trees": 200,
            },
            scales={
                "smoke": {
                    "bases": ["linear", "random-forest"],
                    "repeats": 1,
                    "trees": 50,
                    "levels": [0.0, 0.5, 1.0],
                },
                "paper": {"repeats": 30},
            },
            reproduces="the Communities & Crime before/after comparison",
        )
    )
