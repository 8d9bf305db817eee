"""``paperzoo run ... --executor ray`` end to end: starts its own Ray and shuts it down."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperzoo.store import ResultsStore

PAPERZOO = [sys.executable, "-c", "from paperzoo.cli import main; main()"]


def test_cli_sweep_on_a_ray_it_starts(tmp_path: Path) -> None:
    env = {**os.environ, "PAPERZOO_HOME": str(tmp_path)}
    env.pop("RAY_ADDRESS", None)
    command = [*PAPERZOO, "run", "revdiv.synthetic", "--seeds", "0,1", "--executor", "ray", "--workers", "2"]
    done = subprocess.run([*command, "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    data = json.loads(done.stdout)
    assert sorted(r["seed"] for r in data["runs"]) == [0, 1]
    assert {r["status"] for r in data["runs"]} == {"succeeded"}
    records = ResultsStore(tmp_path / "results.sqlite").runs()
    assert sorted((r.seed, r.status, r.sweep) for r in records) == [
        (0, "succeeded", data["sweep"]),
        (1, "succeeded", data["sweep"]),
    ]


def test_cli_bad_option_is_one_error_line(tmp_path: Path) -> None:
    env = {**os.environ, "PAPERZOO_HOME": str(tmp_path)}
    command = [*PAPERZOO, "run", "revdiv.synthetic", "--executor", "ray", "--executor-option", "nodes=3"]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2
    output = done.stdout + done.stderr
    assert "Error: the ray executor has no option 'nodes'" in output
    assert "Traceback" not in output
    assert not (tmp_path / "results.sqlite").exists()


@pytest.mark.slow
def test_ctrl_c_cancels_the_sweep_and_marks_running_runs_failed(tmp_path: Path, plugin_site: Path) -> None:
    env = {**os.environ, "PAPERZOO_HOME": str(tmp_path), "PYTHONPATH": str(plugin_site)}
    env.pop("RAY_ADDRESS", None)
    command = [*PAPERZOO, "run", "raytest.sleepy", "--seeds", "0-3", "--executor", "ray", "--workers", "2"]
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    store = ResultsStore(tmp_path / "results.sqlite")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if (tmp_path / "results.sqlite").exists() and len(store.runs()) == 2:
            break
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C in a terminal signals the whole process group
    output, _ = process.communicate(timeout=60)
    assert process.returncode == 130, output
    assert "interrupted" in output
    records = store.runs()
    assert len(records) == 2, "a queued run started after Ctrl-C"
    assert {r.status for r in records} == {"failed"}
    assert all((r.error or "").startswith("KeyboardInterrupt") for r in records)
