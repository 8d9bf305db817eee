"""Aggregate RCRPS and wall time of the baselines on all 355 CiK instances, against Table 1.

    python packages/cik/benchmarks/bench_baselines.py --out packages/cik/benchmarks/results
    nox -s bench -- cik

Each forecaster draws 25 paths per instance; scores are capped at 5 and averaged with
the task weights (:func:`paperzoo_cik.metrics.aggregate`), standard errors from the
unbiased variance of each instance's RCRPS. Wall time is one process, per instance.
The direct prompt runs on a stated subset (``--llm-instances``, the instances with the
shortest prompts), as a CPU cannot prompt a model 355 × 25 times in a benchmark.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from paperzoo.benchmarking import write_benchmark
from paperzoo.references import find_reference
from paperzoo_cik.direct_prompt import ForecastFailedError, make_prompt
from paperzoo_cik.forecasters import make_forecaster
from paperzoo_cik.metrics import aggregate, rcrps_instance, rcrps_variance
from paperzoo_cik.plugin import ALL_INSTANCES, plugin
from paperzoo_cik.tasks import load_tasks

STATISTICAL = ["oracle", "random", "naive", "seasonal-naive", "exp-smoothing", "ets", "arima"]
BENCHMARK = next(s for s in plugin.experiments if s.name == "cik.benchmark")


def _paper(name: str) -> float | None:
    """Table 1's aggregate RCRPS of ``name`` (the manifest's reference), if the paper gives one."""
    setting = f"forecaster={name}, instances={ALL_INSTANCES}"
    ref = find_reference(BENCHMARK.references, "aggregate RCRPS", setting, {})
    return None if ref is None else ref.value


def _score(forecaster, instances) -> dict:
    """Aggregate RCRPS of ``forecaster`` on ``instances``, with per-instance wall times."""
    scores, variances, seconds, failed = [], [], [], 0
    for inst in instances:
        start = time.perf_counter()
        try:
            samples = forecaster.forecast(inst)
        except ForecastFailedError:
            samples = None
        seconds.append(time.perf_counter() - start)
        if samples is None:
            failed += 1
            scores.append(np.nan)
            variances.append(0.0)
        else:
            scores.append(rcrps_instance(samples, inst))
            variances.append(rcrps_variance(samples, inst))
    agg = aggregate(scores, [i.weight for i in instances], variances)
    return {
        "rcrps": agg.score,
        "stderr": agg.stderr,
        "capped": agg.n_capped,
        "failed": failed,
        "instances": len(instances),
        "seconds_total": float(np.sum(seconds)),
        "seconds_per_instance_mean": float(np.mean(seconds)),
        "seconds_per_instance_median": float(np.median(seconds)),
        "seconds_per_instance_max": float(np.max(seconds)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--forecasters", nargs="*", default=STATISTICAL)
    parser.add_argument("--llm-model", default="transformers:smollm2")
    parser.add_argument("--llm-instances", type=int, default=3, help="0: skip the direct prompt")
    parser.add_argument("--llm-retries", type=int, default=1, help="calls per instance (the paper: 3)")
    args = parser.parse_args()
    tasks = load_tasks()
    rows = []
    for name in args.forecasters:
        f = make_forecaster(name)
        paper = _paper(name)
        row = {"forecaster": name, **_score(f, tasks), "paper": paper, "fallbacks": len(f.fallbacks_)}
        row["relative_gap"] = None if paper is None else row["rcrps"] / paper - 1
        rows.append(row)
        print(row, flush=True)
    if args.llm_instances > 0:
        subset = sorted(tasks, key=lambda i: len(make_prompt(i)))[: args.llm_instances]
        for context in (True, False):
            f = make_forecaster(
                "direct-prompt", model=args.llm_model, use_context=context, n_retries=args.llm_retries
            )
            row = {"forecaster": "direct-prompt", "model": args.llm_model, "context": context}
            row.update(_score(f, subset))
            valid, asked = np.sum([v for v in f.completions_.values()], axis=0)
            row.update(
                valid_completions=int(valid),
                asked_completions=int(asked),
                subset=[i.key for i in subset],
                n_retries=args.llm_retries,
            )
            rows.append(row)
            print(row, flush=True)
    write_benchmark(
        args.out / "baselines.json",
        {"rows": rows},
        command=" ".join(["python", "packages/cik/benchmarks/bench_baselines.py", *sys.argv[1:]]),
        packages=["numpy", "statsmodels", "transformers", "torch", "paperzoo-cik", "paperzoo-llm"],
    )


if __name__ == "__main__":
    main()
