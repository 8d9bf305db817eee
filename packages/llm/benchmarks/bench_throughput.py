"""Throughput of the backends on this machine.

    python packages/llm/benchmarks/bench_throughput.py --out packages/llm/benchmarks/results
    nox -s bench -- llm

* ``transformers:smollm2`` (SmolLM2-135M-Instruct, GGUF Q4_1 dequantised to
  float32, CPU): load time, prefill tokens/s and decode tokens/s, greedy, and
  sampled with ``n = 4``;
* the ``openai`` backend against ``paperzoo llm serve`` (scripted backend), so the
  HTTP + SDK overhead per request: sequential and with 8 concurrent requests.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from paperzoo.benchmarking import write_benchmark

PROMPTS = [
    "Explain in two sentences why the sky is blue.",
    "Write a haiku about revenue division.",
    "List three prime numbers and say why they are prime.",
    "What is the capital of Australia, and why is it not Sydney?",
    "Give one tip for writing clear error messages.",
]


def bench_transformers(max_tokens: int) -> list[dict[str, Any]]:
    import torch
    import transformers

    from paperzoo_llm.backends.transformers_local import TransformersBackend

    backend = TransformersBackend("smollm2")
    start = time.perf_counter()
    backend.load()
    load_s = time.perf_counter() - start
    rows: list[dict[str, Any]] = []
    meta = {
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "threads": torch.get_num_threads(),
    }
    # prefill: one forward pass over each prompt's chat template
    prefill = []
    for prompt in PROMPTS:
        ids = backend._prompt_ids(backend_messages(prompt))
        start = time.perf_counter()
        with torch.inference_mode():
            backend.load()(ids)
        prefill.append(ids.shape[1] / (time.perf_counter() - start))
    rows.append({"backend": "transformers:smollm2", "measure": "prefill tokens/s", "value": statistics.median(prefill),
                 "load_s": round(load_s, 2), **meta})  # fmt: skip
    for label, kwargs in [
        ("greedy", {"temperature": 0.0, "n": 1}),
        ("sampled n=4", {"temperature": 0.8, "n": 4}),
    ]:
        tokens, seconds = 0, 0.0
        for i, prompt in enumerate(PROMPTS):
            response = backend.chat(prompt, max_tokens=max_tokens, seed=i, **kwargs)
            tokens += response.usage.completion_tokens
            seconds += response.latency_s
        rows.append({"backend": "transformers:smollm2", "measure": f"decode tokens/s ({label})",
                     "value": tokens / seconds, "completion_tokens": tokens, "seconds": round(seconds, 2),
                     "max_tokens": max_tokens, **meta})  # fmt: skip
    return rows


def backend_messages(prompt: str) -> list[Any]:
    from paperzoo_llm.chat import check_messages

    return check_messages(prompt)


def bench_http(requests: int) -> list[dict[str, Any]]:
    from paperzoo_llm.backends.openai_api import OpenAIBackend
    from paperzoo_llm.backends.scripted import ScriptedBackend
    from paperzoo_llm.server import LLMServer

    rows = []
    with LLMServer(ScriptedBackend("echo")) as server:
        for concurrency in (1, 8):
            client = OpenAIBackend("echo", base_url=server.url, max_concurrency=concurrency)
            client.chat("warm up")
            start = time.perf_counter()
            client.batch([f"request {i}" for i in range(requests)])
            seconds = time.perf_counter() - start
            rows.append({"backend": "openai → paperzoo llm serve (scripted)",
                         "measure": f"requests/s (concurrency {concurrency})", "value": requests / seconds,
                         "requests": requests, "seconds": round(seconds, 2)})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    rows = bench_http(args.requests) + bench_transformers(args.max_tokens)
    for row in rows:
        print(f"{row['backend']:42} {row['measure']:32} {row['value']:8.1f}")
    path = write_benchmark(
        args.out / "throughput.json",
        {"rows": rows},
        command=f"python packages/llm/benchmarks/bench_throughput.py --max-tokens {args.max_tokens} "
        f"--requests {args.requests}",
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
