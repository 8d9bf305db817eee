"""FPR at equal total bits, build and query time: every method on one synthetic and one URL problem.

    python packages/elbf/benchmarks/bench_filters.py --out packages/elbf/benchmarks/results

Methods (``paperzoo_elbf.compare``): plain Bloom filter, best single LBF,
sandwiched LBF, PLBF, and the ensemble LBF (correlated and independent
optimisers, forced two oracles, shared backup), all built from the same keys and
held-out non-keys and measured on the same test non-keys, at 4, 6 and 8 total
bits per key (oracles included). Synthetic: the toy model at ρ = 0 and 0.5,
10,000 keys, 1,000,000 test non-keys. URLs: the mirror's malicious URLs against
200,000 synthetic benign test URLs (see ``paperzoo_elbf.urls``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import numpy as np

from paperzoo.benchmarking import write_benchmark
from paperzoo_elbf.compare import compare_methods
from paperzoo_elbf.oracles import MemoOracle
from paperzoo_elbf.synthetic import synthetic_scores
from paperzoo_elbf.urls import benign_urls, malicious_urls, url_oracles

BUDGETS = (4.0, 6.0, 8.0)


def _rows(problem: str, results: list[Any], bpk: float, n_keys: int, n_test: int) -> list[dict[str, Any]]:
    return [
        {
            "problem": problem,
            "bits_per_key": bpk,
            "method": r.method,
            "fpr": r.fpr,
            "analytic_fpr": r.analytic_fpr,
            "bits_used_per_key": r.size_in_bits / n_keys,
            "build_s": round(r.build_seconds, 4),
            "query_keys_per_s": round(n_test / r.query_seconds),
            "oracles": list(r.oracles),
            "false_negatives": r.false_negatives,
        }
        for r in results
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for rho in (0.0, 0.5):
        data = synthetic_scores(10_000, 100_000, 1_000_000, sizes=[5_000, 10_000, 20_000, 40_000, 80_000],
                                d0=1.2, slope=0.6, correlation=rho, seed=0)  # fmt: skip
        for bpk in BUDGETS:
            found = compare_methods(data.oracles, data.groups, data.keys, data.holdout, data.test, bpk)
            rows += _rows(f"synthetic, rho={rho}", found, bpk, 10_000, len(data.test))
            print(
                f"synthetic rho={rho} {bpk} bits/key: " + ", ".join(f"{r.method} {r.fpr:.4g}" for r in found)
            )
    keys = malicious_urls()
    negatives = benign_urls(20_000 + 50_000 + 200_000, keys, seed=0)
    train, holdout, test = negatives[:20_000], negatives[20_000:70_000], negatives[70_000:]
    oracles, groups = url_oracles(keys, train)
    memo = [MemoOracle(o) for o in oracles]
    inference = {}
    for o, m in zip(oracles, memo):  # score every URL once, so methods are timed on the filters alone
        start = time.perf_counter()
        m.score(np.array(keys + holdout + test, dtype=object))
        inference[o.name] = {
            "bits": o.size_in_bits,
            "urls_per_s": round(len(negatives) / (time.perf_counter() - start)),
        }
    for bpk in BUDGETS:
        found = compare_methods(memo, groups, np.array(keys, dtype=object), np.array(holdout, dtype=object),
                                np.array(test, dtype=object), bpk)  # fmt: skip
        rows += _rows("urls", found, bpk, len(keys), len(test))
        print(f"urls {bpk} bits/key: " + ", ".join(f"{r.method} {r.fpr:.4g}" for r in found))
    path = write_benchmark(
        args.out / "filters.json",
        {"rows": rows, "oracle_inference": inference},
        command="python packages/elbf/benchmarks/bench_filters.py",
        packages=("numpy", "scikit-learn", "paperzoo-elbf"),
        note="URL build and query times exclude oracle inference (scores precomputed once per oracle, "
        "see oracle_inference); synthetic oracles are table lookups.",
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
