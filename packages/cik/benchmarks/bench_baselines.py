"""Aggregate RCRPS of the statistical baselines on all 355 CiK instances, against Table 1.

    python packages/cik/benchmarks/bench_baselines.py --out packages/cik/benchmarks/results
    nox -s bench -- cik

Each forecaster draws 25 paths per instance; scores are capped at 5 and averaged with
the task weights (:func:`paperzoo_cik.metrics.aggregate`). Wall time is single-process.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from paperzoo.benchmarking import write_benchmark
from paperzoo_cik.forecasters import make_forecaster
from paperzoo_cik.metrics import aggregate, rcrps_instance, rcrps_variance
from paperzoo_cik.plugin import PAPER_RCRPS
from paperzoo_cik.tasks import load_tasks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--forecasters", nargs="+", default=["exp-smoothing", "ets", "arima"])
    args = parser.parse_args()
    tasks = load_tasks()
    rows = []
    for name in args.forecasters:
        f = make_forecaster(name)
        start = time.perf_counter()
        samples = [f.forecast(i) for i in tasks]
        seconds = time.perf_counter() - start
        agg = aggregate(
            [rcrps_instance(s, i) for s, i in zip(samples, tasks, strict=True)],
            [i.weight for i in tasks],
            [rcrps_variance(s, i) for s, i in zip(samples, tasks, strict=True)],
        )
        paper = PAPER_RCRPS.get(name)
        rows.append(
            {
                "forecaster": name,
                "rcrps": agg.score,
                "stderr": agg.stderr,
                "paper": paper,
                "relative_gap": None if paper is None else agg.score / paper - 1,
                "capped": agg.n_capped,
                "fallbacks": len(f.fallbacks_),
                "seconds": seconds,
                "instances": len(tasks),
            }
        )
        print(rows[-1])
    write_benchmark(
        args.out / "baselines.json",
        {"rows": rows},
        command="bench_baselines.py",
        packages=["numpy", "statsmodels", "paperzoo-cik"],
    )


if __name__ == "__main__":
    main()
