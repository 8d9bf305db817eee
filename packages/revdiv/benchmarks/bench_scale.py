"""Time and peak memory of the four rules, sparse (ours) against a straightforward dense version.

    python packages/revdiv/benchmarks/bench_scale.py --out packages/revdiv/benchmarks/results
    nox -s bench -- revdiv

Instances have ~50 engaged artists per user (k ~ U{1..99}, 1 + Poisson(1) streams)
and grow from 10k users × 1k artists to 1M users × 50k artists (~50M non-zeros).
Peak memory is measured with tracemalloc from after the matrix is built, so it is
the memory a rule needs beyond its input. The dense version is run only where the
dense matrix fits in ``--dense-limit-gb``.
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from paperzoo.benchmarking import write_benchmark
from paperzoo_revdiv.rules import RULES, solve_gamma

SIZES = [(10_000, 1_000), (30_000, 3_000), (100_000, 10_000), (300_000, 30_000), (1_000_000, 50_000)]


def instance(n: int, m: int, seed: int = 0) -> sp.csr_matrix:
    """~50 distinct artists per user (duplicates merged), integer streams ≥ 1."""
    rng = np.random.default_rng(seed)
    k = rng.integers(1, 100, size=n)
    rows = np.repeat(np.arange(n, dtype=np.int32), k)
    cols = rng.integers(0, m, size=rows.size, dtype=np.int32)
    data = 1.0 + rng.poisson(1.0, size=rows.size)
    W = sp.csr_matrix((data, (rows, cols)), shape=(n, m))
    W.sum_duplicates()
    return W


def dense_rule(name: str, W: np.ndarray, alpha: float) -> np.ndarray:
    """The textbook dense implementation (γ of ScaledUserProp by 100 bisection steps)."""
    n = W.shape[0]
    L = W.sum(axis=1)
    if name == "GP":
        return alpha * n * W.sum(axis=0) / W.sum()
    if name == "UP":
        return alpha * (W / L[:, None]).sum(axis=0)
    if name == "UEQ":
        B = (W > 0).astype(np.float64)
        return alpha * (B / B.sum(axis=1, keepdims=True)).sum(axis=0)
    lo, hi = 0.0, 1.0 / L.min()
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if np.minimum(mid * L, 1).sum() < alpha * n else (lo, mid)
    budget = np.minimum(hi * L, 1.0)
    return (W * (budget / L)[:, None]).sum(axis=0)


def measure(fn: Callable[[], Any], repeats: int) -> tuple[float, float, Any]:
    """(best wall time s, peak extra memory MB, last result)."""
    times = []
    peak = 0
    out = None
    for _ in range(repeats):
        tracemalloc.start()
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
        peak = max(peak, tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return min(times), peak / 2**20, out


def bench_size(n: int, m: int, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Every rule, sparse and (where it fits) dense, on one instance size."""
    start = time.perf_counter()
    W = instance(n, m)
    built = time.perf_counter() - start
    matrix_mb = (W.data.nbytes + W.indices.nbytes + W.indptr.nbytes) / 2**20
    print(f"{n:,} users × {m:,} artists: {W.nnz:,} non-zeros, {matrix_mb:.0f} MB, built in {built:.1f} s")
    dense = W.toarray() if n * m * 8 / 2**30 <= args.dense_limit_gb else None
    rows: list[dict[str, Any]] = []
    for name, rule in RULES.items():
        seconds, peak, phi = measure(lambda: rule(alpha=args.alpha).fit(W).payments_, args.repeats)  # noqa: B023
        row: dict[str, Any] = {
            "users": n,
            "artists": m,
            "nnz": int(W.nnz),
            "matrix_mb": round(matrix_mb, 1),
            "rule": name,
            "sparse_s": round(seconds, 4),
            "sparse_peak_mb": round(peak, 1),
            "sum_error": float(abs(phi.sum() - args.alpha * n) / (args.alpha * n)),
        }
        if dense is not None:
            d_seconds, d_peak, d_phi = measure(lambda: dense_rule(name, dense, args.alpha), args.repeats)  # noqa: B023
            row.update(
                dense_s=round(d_seconds, 4),
                dense_peak_mb=round(d_peak, 1),
                max_rel_diff=float(np.max(np.abs(d_phi - phi)) / np.max(phi)),
            )
        else:
            row.update(dense_skipped=f"dense matrix would need {n * m * 8 / 2**30:.0f} GB")
        rows.append(row)
        print("  ", json.dumps({k: v for k, v in row.items() if k not in ("users", "artists", "nnz")}))
    L = np.asarray(W.sum(axis=1)).ravel()
    exact_s, _, gamma = measure(lambda: solve_gamma(L, args.alpha), args.repeats)
    budget_error = float(abs(np.minimum(gamma * L, 1).sum() - args.alpha * n))
    rows.append(
        {
            "users": n,
            "artists": m,
            "rule": "SCUP γ solve",
            "sparse_s": round(exact_s, 4),
            "gamma": gamma,
            "budget_error": budget_error,
        }
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--alpha", type=float, default=0.7)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dense-limit-gb", type=float, default=2.0)
    parser.add_argument("--max-users", type=int, default=SIZES[-1][0])
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for n, m in SIZES:
        if n <= args.max_users:
            rows += bench_size(n, m, args)
    path = write_benchmark(
        args.out / "scale.json",
        {"rows": rows},
        command="python packages/revdiv/benchmarks/bench_scale.py "
        + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k != "out"),
        packages=("numpy", "scipy"),
        alpha=args.alpha,
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
