"""Experiments of paperzoo-cik: aggregate RCRPS of a forecaster on the CiK instances.

``benchmark`` reproduces the statistical rows of Table 1 (Williams et al., ICML 2025):
every selected instance is forecast with ``n_samples`` paths, scored with the RCRPS
(:mod:`paperzoo_cik.metrics`), capped at 5 and averaged with the task weights.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from paperzoo import Result
from paperzoo.errors import ConfigError
from paperzoo_cik.direct_prompt import ForecastFailedError
from paperzoo_cik.forecasters import make_forecaster
from paperzoo_cik.metrics import aggregate, breakdown, rcrps_instance, rcrps_variance
from paperzoo_cik.tasks import filter_instances, load_tasks

if TYPE_CHECKING:
    from paperzoo import Run

PLOTTED = 4
"""Instances drawn with their forecasts (evenly spaced in the selection)."""


def benchmark(run: Run) -> Result:
    """Aggregate RCRPS (± standard error) overall, by context type and by domain."""
    s = run.settings
    instances = filter_instances(
        load_tasks(),
        tasks=s["tasks"] or None,
        seeds=s["seeds"],
        context_type=s["context_type"],
        domain=s["domain"],
        limit=s["limit"],
    )
    if not instances:
        raise ConfigError(
            "the filters select no instance", hint="check tasks, seeds, context_type and domain"
        )
    options = {}
    if s["forecaster"] == "direct-prompt":
        options = {"model": s["model"], "use_context": s["context"], "backend_options": s["llm_options"]}
    forecaster = make_forecaster(s["forecaster"], n_samples=s["n_samples"], seed=run.seed, **options)
    scores, variances, records, failed = {}, {}, [], {}
    shown = {i.key for i in instances[:: max(1, len(instances) // PLOTTED)][:PLOTTED]}
    drawn = {}
    for inst in run.progress(instances, total=len(instances), description=forecaster.name):
        try:
            samples = forecaster.forecast(inst)
        except ForecastFailedError as err:  # a missing instance: the aggregate counts it as the cap
            failed[inst.key] = str(err)
            continue
        scores[inst.key] = rcrps_instance(samples, inst)
        if inst.key in shown:
            drawn[inst.key] = (inst, samples)
        variances[inst.key] = rcrps_variance(samples, inst)
        records.append(
            {
                "task": inst.task,
                "seed": inst.seed,
                "rcrps": scores[inst.key],
                "domain": inst.domain,
                "context": list(inst.context_sources),
            }
        )
    total = aggregate(
        [scores.get(i.key, np.nan) for i in instances],
        [i.weight for i in instances],
        [variances.get(i.key, 0.0) for i in instances],
    )
    setting = {"forecaster": forecaster.name, "instances": len(instances)}
    if options:
        setting.update(model=str(s["model"]), context=bool(s["context"]))
    result = Result()
    result.add("aggregate RCRPS", total.score, setting=setting)  # Table 1 applies to all 355 instances
    result.add("standard error", total.stderr, setting=setting)
    result.add("instances capped at 5", total.n_capped, setting=setting)
    result.add("fallbacks to naive", len(forecaster.fallbacks_), setting=setting)
    result.add("failed instances (scored 5)", len(failed), setting=setting)
    for by in ("context_type", "domain"):
        for label, agg in breakdown(instances, scores, variances, by=by).items():
            result.add(
                f"RCRPS by {by.replace('_', ' ')}",
                agg.score,
                setting={**setting, by.replace("_", " "): label, "n": agg.n_instances},
            )
    run.save_json({"instances": records, "fallbacks": forecaster.fallbacks_, "failed": failed}, "scores")
    _plot(run, instances, scores, forecaster.name)
    _plot_forecasts(run, list(drawn.values()), scores, forecaster.name)
    result.notes = (
        f"{len(instances)} instance(s), {s['n_samples']} samples each; aggregate capped at 5, task-weighted. "
        "Paper values are for all 355 instances (scale 'paper'). "
        f"{len(forecaster.fallbacks_)} fit error(s) fell back to the naive forecaster; "
        f"{len(failed)} instance(s) without enough valid forecasts scored 5."
    )
    return result


def _plot(run: Run, instances, scores, name: str) -> None:
    from paperzoo.plotting import pyplot

    plt = pyplot()
    if plt is None:
        return
    labels = sorted({t for i in instances for t in i.context_types})
    groups = [[min(scores.get(i.key, 5.0), 5.0) for i in instances if t in i.context_types] for t in labels]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.boxplot(groups, showfliers=True)
    ax.set_xticks(range(1, len(labels) + 1), labels)
    ax.set_ylabel("RCRPS (capped at 5)")
    ax.set_xlabel("context type")
    ax.set_title(f"{name}: RCRPS per instance by context type")
    fig.tight_layout()
    run.save_figure(fig, "rcrps_by_context", title=f"{name}: RCRPS by context type")
    plt.close(fig)


def _plot_forecasts(run: Run, drawn, scores, name: str) -> None:
    """History, true future, the forecast's median and 5–95 % band, the region of interest shaded."""
    from paperzoo.plotting import pyplot

    plt = pyplot()
    if plt is None or not drawn:
        return
    fig, axes = plt.subplots(len(drawn), 1, figsize=(8, 2.6 * len(drawn)), squeeze=False)
    for ax, (inst, samples) in zip(axes[:, 0], drawn, strict=True):
        past, future = inst.timestamps("past"), inst.timestamps("future")
        ax.plot(past, inst.past_values, color="0.3", lw=1, label="history")
        ax.plot(future, inst.future_values, color="k", lw=1.5, label="true future")
        lo, mid, hi = np.percentile(samples, [5, 50, 95], axis=0)
        ax.fill_between(future, lo, hi, color="C0", alpha=0.3, label="5–95 %")
        ax.plot(future, mid, color="C0", lw=1.5, label="median forecast")
        for t in inst.region_of_interest:
            ax.axvspan(future[t], future[min(t + 1, len(future) - 1)], color="C3", alpha=0.12, lw=0)
        ax.set_title(f"{inst.key}  RCRPS {scores[inst.key]:.3f}", fontsize=9)
    axes[0, 0].legend(fontsize=7, loc="upper left")
    fig.autofmt_xdate()
    fig.tight_layout()
    run.save_figure(fig, "forecasts", title=f"{name}: forecasts of {len(drawn)} instances (ROI shaded red)")
    plt.close(fig)
