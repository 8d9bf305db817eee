"""Wall time of model-based MDTL-Max in JAX (jit + vmap over sources) against a plain numpy loop,
as S, A and K grow.

    python packages/pessimistic-transfer/benchmarks/bench_mdtl.py [--rounds 100] [--out DIR]
    nox -s bench -- pessimistic-transfer

Garnet targets (branching 3), K sources at Γ_k spread over [0.1, 0.5], E = 5, λ = 0.05.
JAX times exclude compilation (one warm-up call per shape; compile time is recorded
apart); both are the best of --repeats runs, on the CPUs this process may use.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from paperzoo.benchmarking import write_benchmark
from paperzoo_pessimistic_transfer.mdps import garnet, sources_at_discrepancy
from paperzoo_pessimistic_transfer.mdtl import mdtl, mdtl_numpy

GRID = [(30, 4, 4), (100, 4, 4), (30, 16, 4), (30, 4, 16), (200, 8, 8)]


def best(fn: Any, call: tuple[Any, ...], kw: dict[str, Any], repeats: int) -> float:
    """Best wall time of ``fn(*call, **kw)`` over ``repeats`` runs."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*call, **kw)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for S, A, K in GRID:
        target = garnet(S, A, 3, seed=0)
        radii = np.linspace(0.1, 0.5, K)
        Ps = sources_at_discrepancy(target, radii, 3, seed=1)
        kw = {"aggregation": "max", "local_steps": 5, "step_size": 0.05, "rounds": args.rounds}
        start = time.perf_counter()
        mdtl(Ps, target.r, radii, target.gamma, **kw)
        first = time.perf_counter() - start
        call = (Ps, target.r, radii, target.gamma)
        jax_s = best(mdtl, call, kw, args.repeats)
        numpy_s = best(mdtl_numpy, call, kw, args.repeats)
        row = {"S": S, "A": A, "K": K, "rounds": args.rounds, "jax_s": jax_s, "jax_first_call_s": first,
               "numpy_s": numpy_s, "speedup": numpy_s / jax_s}  # fmt: skip
        rows.append(row)
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}))
    path = write_benchmark(
        args.out / "mdtl.json",
        {"rows": rows},
        command=f"python packages/pessimistic-transfer/benchmarks/bench_mdtl.py --rounds {args.rounds} "
        f"--repeats {args.repeats}",
        packages=("paperzoo-pessimistic-transfer", "jax", "jaxlib", "numpy"),
        notes=["model-based MDTL-Max, E = 5; JAX float32 on CPU, numpy float64; best of --repeats"],
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
