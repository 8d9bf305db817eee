"""Throughput and memory of LASER against softmax attention: attention alone (JAX, jitted,
and torch) and a full training step of the Flax LM.

    python packages/laser/benchmarks/bench_laser.py [--out DIR] [--repeats 20] [--quick]
    nox -s bench -- laser

Attention alone: causal self-attention, forward + backward of sum(O), float32, shapes
(batch 16, heads 4, length T, head dim 32) for T in --lengths; LASER with the
paper's global shift and with the exact per-query prefix max. Training step: the
default-scale LM of ``laser.lm`` (d 64, 2 layers, T 64, batch 16) and the paper-scale
one (d 128, 4 layers, T 128). Times are medians over --repeats calls after a
warm-up (compilation excluded, reported apart), softmax and LASER interleaved so that
load on a shared machine hits both alike. Memory: XLA's temp-buffer size of the
compiled function (``memory_analysis``), and the bytes torch's autograd saves for backward.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from paperzoo.benchmarking import write_benchmark
from paperzoo_laser.attention import laser_attention, softmax_attention

BATCH, HEADS, HEAD_DIM = 16, 4, 32
KINDS: dict[str, dict[str, Any]] = {
    "softmax": {},
    "laser-global": {"shift": "global"},
    "laser-prefix": {"shift": "prefix"},
}


def median_seconds(fns: dict[str, Callable[[], Any]], repeats: int) -> dict[str, float]:
    """Median wall time of each function, calls interleaved round-robin."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def _run_jax(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    jax.block_until_ready(fn(*args))


def jax_attention_rows(lengths: list[int], repeats: int) -> list[dict[str, Any]]:
    rows = []
    for t in lengths:
        rng = np.random.default_rng(0)
        q, k, v = (jnp.asarray(rng.normal(size=(BATCH, t, HEADS, HEAD_DIM)), jnp.float32) for _ in range(3))
        fns, compile_s, temp_bytes = {}, {}, {}
        for name, kw in KINDS.items():
            attend = softmax_attention if name == "softmax" else laser_attention
            loss = jax.grad(
                lambda q, k, v, f=attend, kw=kw: f(q, k, v, is_causal=True, **kw).sum(), argnums=(0, 1, 2)
            )
            start = time.perf_counter()
            compiled = jax.jit(loss).lower(q, k, v).compile()
            compile_s[name] = time.perf_counter() - start
            temp_bytes[name] = compiled.memory_analysis().temp_size_in_bytes
            fns[name] = partial(_run_jax, compiled, (q, k, v))
            fns[name]()
        for name, seconds in median_seconds(fns, repeats).items():
            rows.append({"what": "attention fwd+bwd", "framework": "jax", "attention": name, "T": t,
                         "seconds": seconds, "compile_s": compile_s[name], "temp_bytes": temp_bytes[name]})  # fmt: skip
    return rows


def torch_attention_rows(lengths: list[int], repeats: int) -> list[dict[str, Any]]:
    try:
        import torch
    except ImportError:  # the torch extra is optional
        return []
    from paperzoo_laser.torch_attention import laser_attention as torch_laser
    from paperzoo_laser.torch_attention import softmax_attention as torch_softmax

    rows = []
    for t in lengths:
        g = torch.Generator().manual_seed(0)
        q, k, v = (torch.randn(BATCH, HEADS, t, HEAD_DIM, generator=g, requires_grad=True) for _ in range(3))
        attends = {
            "sdpa": partial(torch.nn.functional.scaled_dot_product_attention, q, k, v, is_causal=True),
            "softmax": partial(torch_softmax, q, k, v, is_causal=True),
            **{name: partial(torch_laser, q, k, v, is_causal=True, **kw) for name, kw in KINDS.items() if kw},
        }
        fns = {name: (lambda f=f: f().sum().backward()) for name, f in attends.items()}
        for fn in fns.values():
            fn()
        peaks = {name: _saved_bytes(f) for name, f in attends.items()}
        for name, seconds in median_seconds(fns, repeats).items():
            rows.append({"what": "attention fwd+bwd", "framework": "torch", "attention": name, "T": t,
                         "seconds": seconds, "saved_bytes": peaks[name]})  # fmt: skip
    return rows


def _saved_bytes(forward: Callable[[], Any]) -> int:
    """Bytes of the tensors autograd saves for the backward pass of ``forward()``."""
    import torch

    total = 0

    def pack(x: torch.Tensor) -> torch.Tensor:
        nonlocal total
        total += x.numel() * x.element_size()
        return x

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda x: x):
        forward()
    return total


def training_step_rows(repeats: int, quick: bool) -> list[dict[str, Any]]:
    from flax import nnx

    from paperzoo_laser.model import LMConfig, TransformerLM
    from paperzoo_laser.training import TrainConfig, _train_step, make_optimizer

    scales = {"default": (64, 2, 64), "paper": (128, 4, 128)}
    if quick:
        scales = {"default": scales["default"]}
    rows = []
    for scale, (d, layers, t) in scales.items():
        batch = jnp.asarray(np.random.default_rng(0).integers(0, 256, (16, t + 1)), jnp.int32)
        fns = {}
        for name, shift in (("softmax", "global"), ("laser-global", "global"), ("laser-prefix", "prefix")):
            config = LMConfig(context=t, d_model=d, n_layers=layers, n_heads=4,
                              attention="softmax" if name == "softmax" else "laser", laser_shift=shift)  # fmt: skip
            model = TransformerLM(config, rngs=nnx.Rngs(0))
            optimizer = make_optimizer(model, TrainConfig())
            fns[name] = partial(_run_jax, _train_step, (model, optimizer, batch))
            fns[name]()
        for name, seconds in median_seconds(fns, repeats).items():
            rows.append({"what": "LM training step", "framework": "jax", "attention": name, "scale": scale,
                         "d_model": d, "layers": layers, "T": t, "batch": 16, "seconds": seconds})  # fmt: skip
    return rows


def overheads(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """LASER's time relative to softmax's in the same group, in %."""
    out = []
    for row in rows:
        if row["attention"].startswith("laser"):
            key = {k: row[k] for k in ("what", "framework", "T") if k in row} | {"scale": row.get("scale")}
            base = next(
                r for r in rows if r["attention"] == "softmax" and all(r.get(k) == v for k, v in key.items())
            )
            out.append(
                {
                    **key,
                    "attention": row["attention"],
                    "overhead_pct": 100 * (row["seconds"] / base["seconds"] - 1),
                }
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--lengths", type=int, nargs="+", default=[64, 128, 256])
    parser.add_argument(
        "--quick", action="store_true", help="one length, default-scale step only (for tests)"
    )
    args = parser.parse_args()
    load = os.getloadavg()[0]
    lengths = args.lengths[:1] if args.quick else args.lengths
    # torch first: once XLA's thread pool exists, torch's threads contend with it on a small machine
    rows = torch_attention_rows(lengths, args.repeats) + jax_attention_rows(lengths, args.repeats)
    rows += training_step_rows(args.repeats, args.quick)
    for row in rows:
        print({k: round(v, 6) if isinstance(v, float) else v for k, v in row.items()})
    summary = overheads(rows)
    for row in summary:
        print(row)
    command = "python packages/laser/benchmarks/bench_laser.py " + " ".join(
        [f"--repeats {args.repeats}", "--lengths", *map(str, args.lengths)]
        + (["--quick"] if args.quick else [])
    )
    path = write_benchmark(
        args.out / "laser.json",
        {"rows": rows, "overheads": summary},
        command=command,
        packages=("paperzoo-laser", "jax", "jaxlib", "flax", "optax", "torch", "numpy"),
        notes=[
            "float32 on CPU; medians of interleaved calls after warm-up; compile time apart",
            "laser-global: the paper's max over the sequence; laser-prefix: exact per-query prefix max (blockwise)",
            f"1-min load average at start and end: {load:.1f}, {os.getloadavg()[0]:.1f} (a shared machine)",
        ],
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
