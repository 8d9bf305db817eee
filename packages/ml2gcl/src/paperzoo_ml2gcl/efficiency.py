"""Time and peak memory of one training run, measured in a fresh process.

``python -m paperzoo_ml2gcl.efficiency '{"method": "ml2gcl", "n_nodes": 10000, ...}'``
builds an SBM graph, trains for ``epochs`` epochs and prints one JSON line:
``weights_s`` (ML²-GCL's closed-form weights), ``epoch_s`` (training seconds
divided by ``epochs``, the final embedding pass included), ``rss_before_mb``
(resident memory once the graph is built) and ``peak_rss_mb`` (the process's
peak). A fresh process per measurement keeps one run's allocations out of the
next one's peak.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
from typing import Any

__all__ = ["measure", "measure_in_subprocess"]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux reports KiB


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    """Train ``spec["method"]`` ("ml2gcl" or "grace") on an SBM graph; time and memory."""
    import torch

    from paperzoo_graph.datasets import sbm_graph
    from paperzoo_graph.grace import GRACE
    from paperzoo_ml2gcl.estimator import ML2GCL

    torch.set_num_threads(int(spec.get("threads", torch.get_num_threads())))
    graph = sbm_graph(
        int(spec["n_nodes"]), n_features=int(spec.get("n_features", 128)), seed=int(spec.get("seed", 0))
    )
    epochs = int(spec.get("epochs", 3))
    before = _rss_mb()
    options = dict(spec.get("options", {}))
    start = time.perf_counter()
    if spec["method"] == "ml2gcl":
        model = ML2GCL(epochs=epochs, **options).fit(graph)
        weights_s = model.timings_["weights"]
        train_s = model.timings_["training"]
    elif spec["method"] == "grace":
        model = GRACE(epochs=epochs, **options).fit(graph)
        weights_s = 0.0
        train_s = time.perf_counter() - start
    else:
        raise ValueError(f"unknown method {spec['method']!r}")
    return {
        **spec,
        "n_edges": graph.num_edges,
        "weights_s": weights_s,
        "epoch_s": train_s / epochs,
        "rss_before_mb": before,
        "peak_rss_mb": _rss_mb(),
    }


def measure_in_subprocess(spec: dict[str, Any], *, timeout_s: float) -> dict[str, Any]:
    """:func:`measure` in a fresh interpreter; ``{"status": "timeout" | "failed", ...}`` otherwise."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "paperzoo_ml2gcl.efficiency", json.dumps(spec)],
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        return {**spec, "status": "timeout", "timeout_s": timeout_s}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        status = "out of memory" if done.returncode in (-9, 137) or "MemoryError" in last else "failed"
        return {**spec, "status": status, "error": last}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "status": "ok"}


if __name__ == "__main__":
    print(json.dumps(measure(json.loads(sys.argv[1]))))
