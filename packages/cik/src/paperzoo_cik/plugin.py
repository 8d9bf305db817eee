"""paperzoo plugin ``cik``: hook implementations only (nothing heavy imported)."""

from __future__ import annotations

from collections.abc import Callable

from paperzoo import DatasetSpec, EstimatorSpec, ExperimentSpec, MetricSpec, PluginInfo, hookimpl
from paperzoo.data import DataFile

PAPER = "Context is Key: A Benchmark for Forecasting with Essential Textual Information"

TASKS_FILE = DataFile(
    path="cik/all_tasks.json",
    url=(
        "https://raw.githubusercontent.com/ServiceNow/context-is-key-forecasting/"
        "118ed950900d2dc716c5f392c7cb34b8ef6fd339/results/all_tasks.json"
    ),
    sha256="8b3dda7032481fca0e1d1d6e92c9dab2e8db61e182e2474e6804628ac22978fd",
    size=1_667_472,
)

#: The paper's aggregate RCRPS of each statistical baseline (Table 1).
PAPER_RCRPS = {"exp-smoothing": 0.605, "ets": 0.530, "arima": 0.475}


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(
        id="cik",
        framework="numpy",
        paper=PAPER,
        venue="ICML 2025",
        url="https://arxiv.org/abs/2410.18959",
    )


@hookimpl
def paperzoo_register_estimators(register: Callable[[EstimatorSpec], None]) -> None:
    for name, cls, summary in (
        ("oracle", "Oracle", "The true future repeated (scores 0): a check of the metric."),
        ("random", "RandomReference", "Uniform draws on the history's range: a bad reference."),
        ("naive", "Naive", "Gaussian random walk from the last value."),
        ("seasonal-naive", "SeasonalNaive", "Last season repeated, with seasonal-difference noise."),
        ("exp-smoothing", "ExpSmoothing", "Holt-Winters, additive trend and season, 25 simulated paths."),
        ("ets", "ETS", "ETS with components by AICc (statsmodels), 25 simulated paths."),
        ("arima", "ARIMA", "ARIMA with d by KPSS and (p, q) by AICc (statsmodels), 25 simulated paths."),
    ):
        register(EstimatorSpec(f"cik.{name}", f"paperzoo_cik.forecasters:{cls}", summary, framework="numpy"))
    register(
        EstimatorSpec(
            "cik.direct-prompt",
            "paperzoo_cik.direct_prompt:DirectPrompt",
            "The paper's direct prompt: an LLM (any paperzoo-llm backend) writes 25 sampled forecasts.",
            framework="numpy",
        )
    )


@hookimpl
def paperzoo_register_metrics(register: Callable[[MetricSpec], None]) -> None:
    register(
        MetricSpec(
            "cik.crps",
            "paperzoo_cik.metrics:crps",
            "Unbiased (PWM) CRPS of each forecast step from samples.",
            formula="(1/n)Σ|X_(i)−x| + (1/n)ΣX_(i) − 2/(n(n−1)) Σ i·X_(i)",
            greater_is_better=False,
        )
    )
    register(
        MetricSpec(
            "cik.rcrps",
            "paperzoo_cik.metrics:rcrps",
            "Region-of-interest CRPS with the constraint penalty and the task's scaling.",
            formula="α·(½ CRPS_ROI + ½ CRPS_rest) + CRPS({10·v_j}, 0)",
            greater_is_better=False,
        )
    )


@hookimpl
def paperzoo_register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    register(
        DatasetSpec(
            "cik.tasks",
            "paperzoo_cik.tasks:load_tasks",
            "The 355 CiK task instances (71 tasks × seeds 1–5): history, future, context, ROI, constraints.",
            files=(TASKS_FILE,),
            homepage="https://github.com/ServiceNow/context-is-key-forecasting",
            license="Apache-2.0 (series from third-party sources)",
            citation="Williams et al., Context is Key, ICML 2025 (results/all_tasks.json, v1.0.0)",
        )
    )


@hookimpl
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    register(
        ExperimentSpec(
            "cik.benchmark",
            "paperzoo_cik.experiments:benchmark",
            "Aggregate RCRPS of one forecaster on the CiK instances, by context type and domain.",
            settings={
                "forecaster": "exp-smoothing",
                "n_samples": 25,
                "tasks": [],  # task names; empty: all
                "seeds": [1, 2],
                "context_type": None,
                "domain": None,
                "limit": None,
                "model": "transformers:smollm2",
                "context": True,
                "llm_options": {},
            },
            scales={
                "smoke": {"forecaster": "naive", "seeds": [1], "limit": 20},
                "paper": {"seeds": [1, 2, 3, 4, 5]},
            },
            reproduces="Table 1 rows 'Exp-Smoothing' 0.605, 'ETS' 0.530, 'ARIMA' 0.475 (aggregate RCRPS)",
        )
    )
