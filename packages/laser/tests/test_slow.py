"""Slower checks (``-m slow``): the shift choice does not change training; the benchmark writes JSON."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paperzoo_laser.model import LMConfig
from paperzoo_laser.text import encode, sample_windows
from paperzoo_laser.training import TrainConfig, train

pytestmark = pytest.mark.slow


def test_prefix_and_global_shift_train_the_same_model() -> None:
    """The shift is a numerical device only: both forms give the same losses and gradients."""
    text = encode("Now is the winter of our discontent made glorious summer. " * 30)
    evals = sample_windows(text, 8, 33, np.random.default_rng(0)).reshape(2, 4, 33)
    config = TrainConfig(steps=20, batch_size=8, lr=3e-3, warmup=5, eval_every=10, eval_batches=2)
    shape = {"context": 32, "d_model": 32, "n_layers": 2, "n_heads": 2, "attention": "laser"}
    _, a = train(LMConfig(**shape, laser_shift="global"), config, text, evals, seed=0)
    _, b = train(LMConfig(**shape, laser_shift="prefix"), config, text, evals, seed=0)
    np.testing.assert_allclose(a.val_loss, b.val_loss, rtol=1e-4)
    np.testing.assert_allclose(a.grad_norms["W_V"], b.grad_norms["W_V"], rtol=1e-3)


def test_benchmark_script_writes_its_json(tmp_path: Path) -> None:
    script = Path(__file__).parents[1] / "benchmarks" / "bench_laser.py"
    cmd = [
        sys.executable,
        str(script),
        "--quick",
        "--repeats",
        "2",
        "--lengths",
        "32",
        "--out",
        str(tmp_path),
    ]
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    data = json.loads((tmp_path / "laser.json").read_text())
    assert {"command", "machine", "versions"} <= set(data["meta"])
    kinds = {(r["what"], r["framework"], r["attention"]) for r in data["rows"]}
    assert ("attention fwd+bwd", "jax", "laser-global") in kinds
    assert ("LM training step", "jax", "laser-global") in kinds
    assert all(np.isfinite(r["overhead_pct"]) for r in data["overheads"])
