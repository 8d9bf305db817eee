"""Generation speed of every Minerva task (instances/s), and the whole suite.

    python packages/minerva/benchmarks/bench_generation.py --out packages/minerva/benchmarks/results

Each task generates its default grid (the snapshot's counts) at 4,000 tokens of
context with seed 0; tokenizer loading is excluded (warmed up first).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

from paperzoo_minerva.context import get_tokenizer, word_list
from paperzoo_minerva.tasks import CATEGORIES, TASKS, generate_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--context-length", type=int, default=4000)
    args = parser.parse_args()
    get_tokenizer("cl100k")
    word_list()
    generate_suite(0, tasks=["string_search_word"])  # loads the task modules
    rows = []
    total_start = time.perf_counter()
    for category in CATEGORIES:
        for name in sorted(n for n, s in TASKS.items() if s.category == category):
            start = time.perf_counter()
            instances = generate_suite(0, tasks=[name], common={"context_length": args.context_length})
            seconds = time.perf_counter() - start
            rows.append(
                {
                    "task": name,
                    "category": category,
                    "instances": len(instances),
                    "seconds": round(seconds, 3),
                    "instances_per_s": round(len(instances) / seconds, 1),
                }
            )
            print(
                f"{category:28} {name:34} {len(instances):5d} {seconds:7.2f} s {len(instances) / seconds:8.1f}/s"
            )
    total = time.perf_counter() - total_start
    count = sum(r["instances"] for r in rows)
    print(f"whole suite: {count} instances in {total:.1f} s ({count / total:.1f}/s)")
    meta = {
        "command": f"python packages/minerva/benchmarks/bench_generation.py --context-length {args.context_length}",
        "machine": {
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        },
        "date": time.strftime("%Y-%m-%d"),
        "suite": {"instances": count, "seconds": round(total, 2), "instances_per_s": round(count / total, 1)},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "generation.json"
    path.write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
