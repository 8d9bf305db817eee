"""What logging a run to MLflow costs: a revdiv smoke run with and without paperzoo-mlflow.

    python packages/mlflow/benchmarks/bench_overhead.py --out packages/mlflow/benchmarks/results
    python packages/mlflow/benchmarks/bench_overhead.py --out ... --server http://127.0.0.1:5000
    nox -s bench -- mlflow

Two measurements, each ``--repeats`` times (median and minimum reported):

* ``command``: wall time of ``paperzoo run revdiv.synthetic --scale smoke`` in a fresh
  process — logging off (``PAPERZOO_MLFLOW=0``); with ``PAPERZOO_MLFLOW=1`` to the
  default SQLite database in a new home (the database is created) and in a home
  where it exists; and to ``--server`` when given. This includes importing mlflow
  (the bulk of the cost);
* ``per_run``: in one process, the duration of each run after the first (mlflow
  already imported, database and experiment created): what each run of a sweep pays.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paperzoo import RunRequest, execute
from paperzoo.benchmarking import write_benchmark
from paperzoo.testing import isolated_host
from paperzoo_mlflow import plugin
from paperzoo_revdiv import plugin as revdiv

EXPERIMENT = "revdiv.synthetic"
CLEAR = ("PAPERZOO_MLFLOW", "PAPERZOO_MLFLOW_URI", "MLFLOW_TRACKING_URI", "PAPERZOO_DISABLE_PLUGINS")


def summary(times: list[float]) -> dict[str, Any]:
    return {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3), "runs": len(times)}


def command(mode: str, home: Path, server: str | None) -> float:
    env = {k: v for k, v in os.environ.items() if k not in CLEAR}
    env.update(PAPERZOO_HOME=str(home), PAPERZOO_LOAD_PLUGINS="revdiv,mlflow", MPLBACKEND="Agg")
    if mode == "server":
        env["PAPERZOO_MLFLOW_URI"] = str(server)
    else:
        env["PAPERZOO_MLFLOW"] = "0" if mode == "off" else "1"
    args = [sys.executable, "-m", "paperzoo.cli", "run", EXPERIMENT, "--scale", "smoke", "--json"]
    started = time.perf_counter()
    proc = subprocess.run(args, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0 or "warning:" in proc.stderr:
        raise SystemExit(f"{mode}: {proc.stderr.strip()}")
    return elapsed


def per_run(mode: str, home: Path, server: str | None, repeats: int) -> dict[str, Any]:
    for name in CLEAR:
        os.environ.pop(name, None)
    os.environ["PAPERZOO_HOME"] = str(home)
    if mode == "server":
        os.environ["PAPERZOO_MLFLOW_URI"] = str(server)
    else:
        os.environ["PAPERZOO_MLFLOW"] = "0" if mode == "off" else "1"
    host = isolated_host(revdiv, plugin)
    durations = []
    for seed in range(repeats + 1):
        outcome = execute(RunRequest(EXPERIMENT, seed=seed), host=host)
        assert outcome.ok, outcome.error
        durations.append(outcome.duration)
    return {"first_s": round(durations[0], 3), **summary(durations[1:])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--server", help="an MLflow tracking server to measure too, e.g. http://127.0.0.1:5000"
    )
    args = parser.parse_args()
    os.environ.setdefault("MPLBACKEND", "Agg")
    modes = ["off", "sqlite-new", "sqlite-existing"] + (["server"] if args.server else [])
    results: dict[str, Any] = {"experiment": f"{EXPERIMENT} --scale smoke", "command": {}, "per_run": {}}
    with tempfile.TemporaryDirectory(prefix="paperzoo-mlflow-bench-") as tmp:
        root = Path(tmp)
        for mode in modes:
            times = []
            for i in range(args.repeats):
                home = root / f"{mode}-{i}" if mode == "sqlite-new" else root / mode
                times.append(command(mode, home, args.server))
                if mode == "sqlite-new":
                    shutil.rmtree(home)
            results["command"][mode] = summary(times)
            print(f"command  {mode:16} {results['command'][mode]}", flush=True)
        for mode in ["off", "sqlite-existing"] + (["server"] if args.server else []):
            results["per_run"][mode] = per_run(mode, root / f"in-process-{mode}", args.server, args.repeats)
            print(f"per run  {mode:16} {results['per_run'][mode]}", flush=True)
    out = write_benchmark(
        args.out / "overhead.json",
        results,
        command=" ".join(["python", *sys.argv]),
        packages=["paperzoo", "paperzoo-mlflow", "paperzoo-revdiv", "mlflow"],
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
