"""Sampling time per image of the ELS machine (JAX: chunked, jitted) against image size and
training-set size, and against a straightforward numpy implementation.

    python packages/els/benchmarks/bench_sampling.py [--out DIR] [--repeats 2]
    nox -s bench -- els

Random images in [−1, 1] (timing does not depend on content), zero padding, P = 5, a
20-step DDIM sample of a batch of 2 images; JAX times exclude compilation (a first
denoiser call, recorded apart). numpy runs the same 20 denoiser calls with
:func:`paperzoo_els.reference.els_denoise_numpy` (one image at a time, float64, no chunks),
only where its H·W × N·H·W distance matrix has under 5·10⁷ entries (400 MB).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from paperzoo.benchmarking import write_benchmark
from paperzoo_els.machines import EquivariantLocalScoreMachine
from paperzoo_els.reference import els_denoise_numpy
from paperzoo_els.schedule import alpha_bar, ddim_sample

GRID = [(8, 500), (12, 500), (16, 500), (28, 200), (16, 100), (16, 2000), (16, 10_000)]
"""(image size H = W, training images N)."""

BATCH, STEPS, SIZE = 2, 20, 5


def numpy_sample(noise: np.ndarray, images: np.ndarray) -> np.ndarray:
    """The same DDIM sampler driven by the plain numpy denoiser."""

    def eps(x: np.ndarray, t: float, k: int) -> np.ndarray:
        ab = float(alpha_bar(t))
        mean = np.stack([els_denoise_numpy(xi, ab, images, SIZE, "zeros") for xi in x.astype(np.float64)])
        return (x - np.sqrt(ab) * mean) / np.sqrt(1.0 - ab)

    return ddim_sample(eps, noise, STEPS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for hw, n in GRID:
        images = rng.uniform(-1, 1, (n, hw, hw, 1)).astype(np.float32)
        noise = rng.standard_normal((BATCH, hw, hw, 1)).astype(np.float32)
        els = EquivariantLocalScoreMachine(patch_size=SIZE, padding="zeros", chunk_size=32).fit(images)
        start = time.perf_counter()
        els.denoise(noise, 0.5)
        first = time.perf_counter() - start
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            els.sample(noise, STEPS)
            times.append(time.perf_counter() - start)
        row = {"H": hw, "N": n, "P": SIZE, "steps": STEPS, "jax_s_per_image": min(times) / BATCH,
               "jax_compile_and_one_step_s": first, "numpy_s_per_image": None, "speedup": None}  # fmt: skip
        if (hw * hw) ** 2 * n < 5e7:
            start = time.perf_counter()
            numpy_sample(noise[:1], images)
            row["numpy_s_per_image"] = time.perf_counter() - start
            row["speedup"] = row["numpy_s_per_image"] / row["jax_s_per_image"]
        rows.append(row)
        print(json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}), flush=True)
    path = write_benchmark(
        args.out / "sampling.json",
        {"rows": rows},
        command=f"python packages/els/benchmarks/bench_sampling.py --repeats {args.repeats}",
        packages=("paperzoo-els", "jax", "jaxlib", "numpy"),
        notes=[f"ELS, zero padding, P = {SIZE}, {STEPS}-step DDIM, batch {BATCH}; JAX float32 chunk 32 "
               "(best of --repeats, compile excluded); numpy float64, one full distance matrix per image"],
    )  # fmt: skip
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
