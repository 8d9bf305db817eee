"""Our numpy BloomFilter against rbloom (Rust) and pybloom-live (pure Python): build and
query throughput, empirical FPR and size, at the same bits per key.

    python packages/elbf/benchmarks/bench_bloom.py [--n 1000000] [--bits-per-key 10]
    nox -s bench -- elbf

Two key sets, generated deterministically: random uint64 integers, and URL-like
strings of 40–60 characters; the negatives (queried, never added) are disjoint from
the keys. rbloom and pybloom-live size themselves from (n, ε): they get
ε = exp(−b·ln²2), the FPR of an optimal filter with b bits per key; ours gets
b·n bits. Throughput is the best of --repeats runs, single-threaded.

Ours answers a batch with one ``contains`` call (integer keys as one numpy uint64
array). rbloom has no batch query: it runs ``[k in bloom for k in keys]`` and
``list(map(bloom.__contains__, keys))`` over Python objects. rbloom hashes with
Python's ``hash()``, which a ``str`` object caches after its first use, so a repeated
query of the same objects skips hashing; the ``fresh`` rows query new string objects
(equal text, no cached hash) in every run, as a first query of new data would.
pybloom-live hashes with hashlib, an order of magnitude slower: it runs on --n-pybloom keys.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pybloom_live
import rbloom

from paperzoo.benchmarking import write_benchmark
from paperzoo_elbf.bloom import BloomFilter

WORDS = (  # noqa: SIM905 (a word list reads better as text)
    "account alpha archive bank blog cart cdn cloud data docs download drive events files forum "
    "games help home images info learn login mail market media music news office pay photo "
    "portal privacy search secure shop sign static store support travel update user video web"
).split()
TLDS = [".com", ".org", ".net", ".io", ".co.uk", ".de", ".info"]


def make_urls(start: int, stop: int) -> list[str]:
    """URLs ``start … stop−1``: random words around the unique number i (so sets never overlap)."""
    rng = random.Random(start)
    out = []
    for i in range(start, stop):
        host = f"{rng.choice(('www.', '', 'm.', 'api.'))}{rng.choice(WORDS)}{rng.choice(WORDS)}{rng.choice(TLDS)}"
        out.append(f"https://{host}/{rng.choice(WORDS)}/{rng.choice(WORDS)}?id={i:07d}")
    return out


def fresh_copies(keys: list[str]) -> list[str]:
    """New ``str`` objects with the same text, hence no cached ``hash()``."""
    return [k[:1] + k[1:] for k in keys]


def best_rate(
    run: Callable[[Any], Any], n: int, repeats: int, prepare: Callable[[], Any] = lambda: None
) -> float:
    """Keys per second of the fastest of ``repeats`` runs of ``run(prepare())``; ``prepare`` is not timed."""
    best = math.inf
    for _ in range(repeats):
        arg = prepare()
        start = time.perf_counter()
        run(arg)
        best = min(best, time.perf_counter() - start)
    return n / best


def bench_ours(keys: Any, negatives: Any, bits_per_key: int, repeats: int) -> dict[str, Any]:
    n = len(keys)
    bloom = BloomFilter.with_bits(bits_per_key * n, n).add(keys)
    row: dict[str, Any] = {
        "library": "paperzoo_elbf.BloomFilter",
        "n_keys": n,
        "n_negatives": len(negatives),
        "size_in_bits": bloom.size_in_bits,
        "n_hashes": bloom.n_hashes,
        "build_keys_per_s": best_rate(
            lambda _: BloomFilter.with_bits(bits_per_key * n, n).add(keys), n, repeats
        ),
        "query_keys_per_s": best_rate(lambda _: bloom.contains(negatives), len(negatives), repeats),
        "false_negatives": int(n - bloom.contains(keys).sum()),
        "fpr": float(bloom.contains(negatives).mean()),
        "expected_fpr": bloom.expected_fpr(),
    }
    if isinstance(negatives, list):
        row["query_fresh_keys_per_s"] = best_rate(
            bloom.contains, len(negatives), repeats, prepare=lambda: fresh_copies(negatives)
        )
    else:
        as_list = negatives.tolist()
        row["query_from_python_ints_keys_per_s"] = best_rate(
            lambda _: bloom.contains(as_list), len(as_list), repeats
        )
    return row


def bench_rbloom(keys: list[Any], negatives: list[Any], bits_per_key: int, repeats: int) -> dict[str, Any]:
    n, fpr = len(keys), math.exp(-bits_per_key * math.log(2) ** 2)

    def build() -> rbloom.Bloom:
        bloom = rbloom.Bloom(n, fpr)
        bloom.update(keys)
        return bloom

    bloom = build()
    row: dict[str, Any] = {
        "library": "rbloom.Bloom",
        "n_keys": n,
        "n_negatives": len(negatives),
        "size_in_bits": bloom.size_in_bits,
        "build_keys_per_s": best_rate(lambda _: build(), n, repeats),
        "query_keys_per_s": best_rate(lambda _: [k in bloom for k in negatives], len(negatives), repeats),
        "query_map_keys_per_s": best_rate(
            lambda _: list(map(bloom.__contains__, negatives)), len(negatives), repeats
        ),
        "false_negatives": sum(k not in bloom for k in keys),
        "fpr": sum(k in bloom for k in negatives) / len(negatives),
    }
    if isinstance(negatives[0], str):
        row["query_fresh_keys_per_s"] = best_rate(
            lambda fresh: [k in bloom for k in fresh],
            len(negatives),
            repeats,
            prepare=lambda: fresh_copies(negatives),
        )
    return row


def bench_pybloom(keys: list[Any], negatives: list[Any], bits_per_key: int) -> dict[str, Any]:
    n, fpr = len(keys), math.exp(-bits_per_key * math.log(2) ** 2)

    def build() -> pybloom_live.BloomFilter:
        bloom = pybloom_live.BloomFilter(capacity=n, error_rate=fpr)
        for k in keys:
            bloom.add(k)
        return bloom

    bloom = build()
    return {
        "library": "pybloom_live.BloomFilter",
        "n_keys": n,
        "n_negatives": len(negatives),
        "size_in_bits": bloom.num_bits,
        "n_hashes": bloom.num_slices,
        "build_keys_per_s": best_rate(lambda _: build(), n, 1),
        "query_keys_per_s": best_rate(lambda _: [k in bloom for k in negatives], len(negatives), 1),
        "false_negatives": sum(k not in bloom for k in keys),
        "fpr": sum(k in bloom for k in negatives) / len(negatives),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--n", type=int, default=1_000_000, help="keys added (and negatives queried)")
    parser.add_argument("--bits-per-key", type=int, default=10)
    parser.add_argument("--n-pybloom", type=int, default=100_000, help="keys and negatives for pybloom-live")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n, small = args.n, min(args.n, args.n_pybloom)
    rng = np.random.default_rng(0)
    key_sets = {
        "uint64": (
            rng.integers(0, 2**63, n, dtype=np.uint64),
            rng.integers(2**63, 2**64 - 1, n, dtype=np.uint64),
        ),
        "url": (make_urls(0, n), make_urls(n, 2 * n)),
    }
    rows: list[dict[str, Any]] = []
    for kind, (keys, negatives) in key_sets.items():
        listed = (keys.tolist(), negatives.tolist()) if isinstance(keys, np.ndarray) else (keys, negatives)
        lengths = [len(k) for k in listed[0]] if kind == "url" else None
        print(f"{kind}: {n:,} keys" + (f", {np.mean(lengths):.1f} chars on average" if lengths else ""))
        for row in (
            bench_ours(keys, negatives, args.bits_per_key, args.repeats),
            bench_rbloom(*listed, args.bits_per_key, args.repeats),
            bench_pybloom(listed[0][:small], listed[1][:small], args.bits_per_key),
        ):
            row = {"keys": kind, **row, "bits_per_key": row["size_in_bits"] / row["n_keys"]}
            rows.append(row)
            print("  ", json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}))

    def rate(kind: str, library: str, field: str) -> float:
        return float(next(r[field] for r in rows if r["keys"] == kind and r["library"].startswith(library)))

    # the target: our batch query within 3× of rbloom's query throughput
    acceptance = {}
    for kind, ours, theirs in [
        ("uint64", "query_keys_per_s", "query_keys_per_s"),
        ("uint64", "query_from_python_ints_keys_per_s", "query_keys_per_s"),
        ("url", "query_keys_per_s", "query_keys_per_s"),
        ("url", "query_fresh_keys_per_s", "query_fresh_keys_per_s"),
    ]:
        ratio = rate(kind, "paperzoo", ours) / rate(kind, "rbloom", theirs)
        acceptance[f"{kind}: ours {ours} / rbloom {theirs}"] = {"ratio": ratio, "within_3x": ratio >= 1 / 3}
    print(json.dumps(acceptance, indent=2))
    path = write_benchmark(
        args.out / "bloom.json",
        {"acceptance": acceptance, "rows": rows},
        command="python packages/elbf/benchmarks/bench_bloom.py "
        + " ".join(f"--{k.replace('_', '-')} {v}" for k, v in vars(args).items() if k != "out"),
        packages=("paperzoo-elbf", "numpy", "rbloom", "pybloom-live", "xxhash"),
        notes=[
            "single-threaded; throughput = keys / best wall time of --repeats runs (1 run for pybloom-live)",
            f"pybloom-live runs on {small:,} keys and {small:,} negatives (it is an order of magnitude slower)",
            "ours: one contains() call per batch; integer keys as a numpy uint64 array "
            "(query_from_python_ints: the same keys as a list of Python ints)",
            "rbloom: [k in bloom for k in keys] (query_map: list(map(bloom.__contains__, keys))); "
            "it hashes with Python's hash(), cached inside str objects after first use; it has no per-key "
            "batch query (issuperset answers one bool for a whole batch)",
            "query_fresh: new str objects with the same text in every run, so no cached hash",
            "rbloom and pybloom-live are sized from (n, eps) with eps = exp(-bits_per_key * ln(2)^2)",
        ],
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
