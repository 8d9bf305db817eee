"""paperzoo plugin ``cik``: the manifest (nothing heavy imported).

Everything is named here and pointed at by a package-relative ``".module:attr"``
target, imported on first use: listing plugins never imports numpy or statsmodels.
"""

from __future__ import annotations

from paperzoo import DataFile, Plugin, Ref, Setting

TASKS_FILE = DataFile(
    path="cik/all_tasks.json",
    url=(
        "https://raw.githubusercontent.com/ServiceNow/context-is-key-forecasting/"
        "118ed950900d2dc716c5f392c7cb34b8ef6fd339/results/all_tasks.json"
    ),
    sha256="8b3dda7032481fca0e1d1d6e92c9dab2e8db61e182e2474e6804628ac22978fd",
    size=1_667_472,
)

#: The paper's context types, keyed by the data's ``context_sources`` codes.
CONTEXT_TYPES = {
    "c_i": "intemporal",
    "c_h": "historical",
    "c_f": "future",
    "c_cov": "covariate",
    "c_causal": "causal",
}

plugin = Plugin(
    "cik",
    framework="numpy",
    paper="Context is Key: A Benchmark for Forecasting with Essential Textual Information",
    venue="ICML 2025",
    url="https://arxiv.org/abs/2410.18959",
)

# Forecasters have nothing to fit: they follow the parameter rules and forecast.
FORECASTERS = (
    ("oracle", ".forecasters:Oracle", "The true future repeated (scores 0): a check of the metric."),
    ("random", ".forecasters:RandomReference", "Uniform draws on the history's range: a bad reference."),
    ("naive", ".forecasters:Naive", "Gaussian random walk from the last value."),
    ("seasonal-naive", ".forecasters:SeasonalNaive", "Last season repeated, with seasonal-difference noise."),
    ("exp-smoothing", ".forecasters:ExpSmoothing", "Holt-Winters, additive trend and season, 25 simulated paths."),
    ("ets", ".forecasters:ETS", "ETS with components by AICc (statsmodels), 25 simulated paths."),
    ("arima", ".forecasters:ARIMA", "ARIMA with d by KPSS and (p, q) by AICc (statsmodels), 25 simulated paths."),
    ("direct-prompt", ".direct_prompt:DirectPrompt",
     "The paper's direct prompt: an LLM (any paperzoo-llm backend) writes 25 sampled forecasts."),
)  # fmt: skip
for name, target, summary in FORECASTERS:
    plugin.estimator(name, target, summary, verbs=("forecast",))

plugin.metric("crps", ".metrics:crps", "Unbiased (PWM) CRPS of each forecast step from samples.",
              formula="(1/n)Σ|X_(i)−x| + (1/n)ΣX_(i) − 2/(n(n−1)) Σ i·X_(i)", greater_is_better=False)  # fmt: skip
plugin.metric("rcrps", ".metrics:rcrps",
              "Region-of-interest CRPS with the constraint penalty and the task's scaling.",
              formula="α·(½ CRPS_ROI + ½ CRPS_rest) + CRPS({10·v_j}, 0)", greater_is_better=False)  # fmt: skip

plugin.dataset(
    "tasks",
    ".tasks:load_tasks",
    "The 355 CiK task instances (71 tasks × seeds 1–5): history, future, context, ROI, constraints.",
    files=(TASKS_FILE,),
    homepage="https://github.com/ServiceNow/context-is-key-forecasting",
    license="Apache-2.0 (series from third-party sources)",
    citation="Williams et al., Context is Key, ICML 2025 (results/all_tasks.json, v1.0.0)",
)

ALL_INSTANCES = 355
"""Table 1 scores every instance: its numbers apply only to runs on all of them."""

#: Table 1's aggregate RCRPS of the paper's statistical baselines.
TABLE_1 = {
    "aggregate RCRPS": [
        Ref(0.605, "Table 1 (Exp-Smoothing)", setting=f"forecaster=exp-smoothing, instances={ALL_INSTANCES}"),
        Ref(0.530, "Table 1 (ETS)", setting=f"forecaster=ets, instances={ALL_INSTANCES}"),
        Ref(0.475, "Table 1 (ARIMA)", setting=f"forecaster=arima, instances={ALL_INSTANCES}"),
    ]
}  # fmt: skip

SETTINGS = {
    "forecaster": Setting("exp-smoothing", choices=tuple(name for name, _, _ in FORECASTERS)),
    "n_samples": Setting(25, low=2, help="sample paths per instance (the unbiased CRPS needs 2)"),
    "tasks": Setting([], each=Setting(type="str"), help="task names; empty: all"),
    "seeds": Setting([1, 2], each=Setting(1, low=1, high=5), min_len=1, help="instance seeds (1–5)"),
    "context_type": Setting(
        None,
        type="str",
        allow_none=True,
        choices=(*CONTEXT_TYPES.values(), *CONTEXT_TYPES),
        help="one context type (or its code); none: all",
    ),
    "domain": Setting(None, type="str", allow_none=True, help="one domain, e.g. Energy; none: all"),
    "limit": Setting(None, type="int", low=1, allow_none=True, help="first instances only; none: all"),
    "model": Setting("transformers:smollm2", help="paperzoo-llm backend of direct-prompt"),
    "context": Setting(True, help="direct-prompt: put the context in the prompt"),
    "llm_options": Setting({}, help="direct-prompt: options of the backend"),
}  # fmt: skip

plugin.experiment(
    "benchmark",
    ".experiments:benchmark",
    "Aggregate RCRPS of one forecaster on the CiK instances, by context type and domain.",
    settings=SETTINGS,
    scales={
        "smoke": {"forecaster": "naive", "seeds": [1], "limit": 20},
        "paper": {"seeds": [1, 2, 3, 4, 5]},
    },
    references=TABLE_1,
    test_scale={"forecaster": "seasonal-naive", "limit": 8},
    datasets=("tasks",),
    reproduces="Table 1, rows Exp-Smoothing, ETS and ARIMA (aggregate RCRPS)",
)
