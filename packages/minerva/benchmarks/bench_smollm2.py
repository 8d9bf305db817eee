"""A real, small baseline: SmolLM2-135M-Instruct on a stated subset of the snapshot.

    python packages/minerva/benchmarks/bench_smollm2.py --per-task 2 --max-tokens 256 \
        --out packages/minerva/benchmarks/results

The first ``--per-task`` instances (file order) of each of the 28 snapshot tasks,
asked as Minerva asks (system "You are a helpful AI assistant.", temperature 0)
through ``paperzoo-llm``'s transformers backend, answers capped at
``--max-tokens`` (Minerva allows 4,096; recall tasks need ~4,000, so they are
truncated and score low by construction). Answers are cached on disk, so an
interrupted run resumes. Also scores "always yes" on the same subset.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from paperzoo.benchmarking import write_benchmark
from paperzoo_minerva.responders import make_responder
from paperzoo_minerva.runner import evaluate, run_suite, summarise
from paperzoo_minerva.snapshot import load_snapshot


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--per-task", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--model", default="transformers:smollm2")
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    subset = []
    for instance in load_snapshot():
        if counts[instance.task] < args.per_task:
            subset.append(instance)
            counts[instance.task] += 1
    args.out.mkdir(parents=True, exist_ok=True)
    report = {}
    for spec in ("always-yes", args.model):
        responder = make_responder(spec, max_tokens=args.max_tokens, max_concurrency=1)
        start = time.perf_counter()
        answers = run_suite(
            subset,
            responder,
            args.out / f"answers-{spec.replace(':', '-')}.jsonl",
            progress=lambda done, total, label=spec: print(f"  {label}: {done}/{total}", flush=True),
        )
        seconds = time.perf_counter() - start
        scores = evaluate(subset, answers)
        report[spec] = {
            "seconds": round(seconds, 1),
            "tasks": {
                s.task: {
                    "category": s.category,
                    "n": s.n,
                    "primary": s.primary,
                    "value": s.value,
                    "strict": s.scores.get("exact_match_strict"),
                }
                for s in scores
            },
            **summarise(scores),
        }
        print(spec, json.dumps(summarise(scores), indent=1))
    path = write_benchmark(
        args.out / "smollm2.json",
        {"responders": report},
        command=f"python packages/minerva/benchmarks/bench_smollm2.py --per-task {args.per_task} "
        f"--max-tokens {args.max_tokens} --model {args.model}",
        subset=f"first {args.per_task} instances of each of the {len(counts)} snapshot tasks ({len(subset)})",
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
