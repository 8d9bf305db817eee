"""paperzoo plugin ``fairpp``: the manifest (no numpy or scikit-learn at import).

Everything is named here and pointed at by a package-relative ``".module:attr"``
target, imported on first use.
"""

from __future__ import annotations

from paperzoo import DataFile, Plugin, Ref, Setting

SIZES = [250, 500, 1000, 2000, 4000, 8000]
LEVELS = [round(0.1 * i, 1) for i in range(11)]
BASE_NAMES = ("linear", "random-forest", "gradient-boosting")

CRIME_FILE = DataFile(
    path="fairness/communities_crime.csv",
    url=(
        "https://raw.githubusercontent.com/tailequy/fairness_dataset/"
        "f8726608fe1e7a77a3d3f14d7244e6b46e77aebd/experiments/data/communities_crime.csv"
    ),
    sha256="6ca7f7a9c71b7aa61b2b0a95769f296e8194ab212b1b2723f2017b8780492fa7",
    size=984_911,
)

plugin = Plugin(
    "fairpp",
    framework="numpy",
    paper="Meta Optimality for Demographic Parity Constrained Regression via Post-Processing",
    venue="ICML 2025",
    url="https://arxiv.org/abs/2506.13947",
)

plugin.estimator("demographic-parity-regressor", ".regressor:DemographicParityRegressor",
                 "Any scikit-learn regressor made demographic-parity fair by post-processing.")  # fmt: skip
plugin.estimator("barycenter-postprocessor", ".postprocess:BarycenterPostProcessor",
                 "Wasserstein-barycenter post-processing of given predictions.")  # fmt: skip
plugin.estimator("dp-penalized-linear", ".baselines:PenalizedLinearRegression",
                 "Baseline: ridge regression with a penalty on group mean differences.")  # fmt: skip

plugin.metric("ks-unfairness", ".metrics:ks_unfairness", "Max over group pairs of the KS distance of predictions.",
              formula="max_{a,b} sup_t |F_a(t) - F_b(t)|", greater_is_better=False)  # fmt: skip
plugin.metric("w2-unfairness", ".metrics:w2_unfairness", "Max over group pairs of the W2 distance of predictions.",
              formula="max_{a,b} (int_0^1 |Q_a(u) - Q_b(u)|^2 du)^(1/2)", greater_is_better=False)  # fmt: skip
plugin.metric("mse", ".metrics:mse", "Mean squared error.", formula="(1/n) sum (y - yhat)^2",
              greater_is_better=False)  # fmt: skip

plugin.dataset(
    "communities-crime",
    ".datasets:communities_crime",
    "Communities & Crime: 1,994 US communities, 99 features, violent crime rate, binary group.",
    files=(CRIME_FILE,),
    homepage="https://archive.ics.uci.edu/dataset/183/communities+and+crime",
    license="CC BY 4.0",
    citation="Redmond & Baveja, A data-driven software tool for enabling cooperative information sharing "
    "among police departments, EJOR 2002.",
)
plugin.dataset(
    "gaussian-groups",
    ".datasets:gaussian_linear_groups",
    "Synthetic Gaussian-linear groups with a closed-form fair oracle.",
    homepage="https://arxiv.org/abs/2506.13947",
    license="generated (no licence needed)",
)

plugin.experiment(
    "rate",
    ".experiments:rate",
    "Excess risk against the closed-form fair oracle as n grows (log-log slope).",
    settings={
        "sizes": Setting(
            SIZES, each=Setting(1000, low=20), min_len=2, help="training sizes n (a slope needs two)"
        ),
        "repeats": Setting(20, low=1),
        "d": Setting(5, low=1, help="number of features"),
        "n_groups": Setting(2, low=2),
        "test_size": Setting(20_000, low=1, help="test points the excess risk is measured on"),
        "noise": Setting(1.0, low=0, help="standard deviation of the label noise"),
    },
    scales={
        "smoke": {"sizes": [250, 1000, 4000], "repeats": 3, "test_size": 5_000},
        "paper": {"repeats": 50, "n_groups": 3},
    },
    references={
        "log-log slope of excess risk": Ref(
            -1.0, "meta-theorem: the parametric rate n^-1 of the groupwise linear base", kind="theorem"
        ),
        "log-log slope of KS unfairness": Ref(
            -0.5, "n^-1/2 rate of the empirical CDFs the post-processing estimates", kind="theorem"
        ),
    },
    test_scale={"sizes": [100, 400], "repeats": 2, "test_size": 1_000},
    reproduces="the rate of the meta-theorem (excess risk ~ n^-1)",
)

# The paper's Communities & Crime numbers for a random-forest base, read approximately (not a table).
CRIME = "Communities & Crime, random-forest base (approximate reading of the paper's result)"
plugin.experiment(
    "crime",
    ".experiments:crime",
    "Communities & Crime: MSE and unfairness before/after, risk-unfairness curves per base regressor.",
    settings={
        "bases": Setting.choice_list(BASE_NAMES),
        "repeats": Setting(10, low=1, help="random 70/30 splits averaged"),
        "test_size": Setting(
            0.3, low=0, high=1, low_open=True, high_open=True, help="share of each split tested on"
        ),
        "levels": Setting(
            LEVELS, each=Setting(0.5, low=0, high=1), min_len=1, help="fairness levels of the curves"
        ),
        "trees": Setting(200, low=1, help="trees (or boosting iterations) of the ensemble bases"),
    },
    scales={
        "smoke": {"bases": ["linear", "random-forest"], "repeats": 1, "trees": 50, "levels": [0.0, 0.5, 1.0]},
        "paper": {"repeats": 30},
    },
    references={
        name: Ref(value, CRIME, setting="base=random-forest")
        for name, value in (("MSE before", 0.014), ("KS before", 0.60), ("MSE after", 0.03))
    },
    test_scale={"bases": ["linear"], "repeats": 1, "levels": [0.0, 1.0]},
    datasets=("communities-crime",),
    reproduces="the Communities & Crime before/after comparison",
)
