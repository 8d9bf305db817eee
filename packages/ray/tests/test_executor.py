"""The ray executor on a real local Ray (2 CPUs): same records as the local executor."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pytest

from paperzoo.executor import LocalExecutor
from paperzoo.runs import RunOutcome, RunRequest
from paperzoo.store import ResultsStore
from paperzoo_ray.executor import RayExecutor

pytestmark = pytest.mark.usefixtures("ray_cluster")

SWEEP = [RunRequest("revdiv.synthetic", "smoke", seed, sweep="sweep-test") for seed in range(4)]


def _use_home(monkeypatch: pytest.MonkeyPatch, home: Path) -> ResultsStore:
    monkeypatch.setenv("PAPERZOO_HOME", str(home))
    return ResultsStore(home / "results.sqlite")


def _rows_by_seed(store: ResultsStore) -> dict[int, list[tuple]]:
    """Each succeeded run's result rows, timings (unit "s") left out."""
    return {
        run.seed: [
            (r.metric, r.value, r.paper, r.unit, r.setting)
            for r in store.result(run.id).rows
            if r.unit != "s"
        ]
        for run in store.runs(status="succeeded")
    }


def test_sweep_gives_the_local_executors_results_and_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ray_store = _use_home(monkeypatch, tmp_path / "ray")
    ray_outcomes = list(RayExecutor(results="shared").map(SWEEP))
    local_store = _use_home(monkeypatch, tmp_path / "local")
    local_outcomes = list(LocalExecutor().map(SWEEP))

    assert [o.status for o in ray_outcomes] == ["succeeded"] * 4, [o.error for o in ray_outcomes]
    assert sorted(o.request.seed for o in ray_outcomes) == [0, 1, 2, 3]
    records = ray_store.runs()
    assert len(records) == 4
    assert {r.status for r in records} == {"succeeded"}
    assert {r.sweep for r in records} == {"sweep-test"}
    for outcome in ray_outcomes:
        run_dir = Path(outcome.dir)
        assert run_dir.parent == tmp_path / "ray" / "runs"
        assert (run_dir / "config.json").is_file()
        assert (run_dir / "result.json").is_file()
    assert all(o.ok for o in local_outcomes)
    ray_rows, local_rows = _rows_by_seed(ray_store), _rows_by_seed(local_store)
    assert sorted(ray_rows) == [0, 1, 2, 3]
    assert ray_rows == local_rows
    assert ray_rows[0] != ray_rows[1], "different seeds gave the same numbers"


def _check_flaky_sweep(outcomes: list[RunOutcome], store: ResultsStore, home: Path) -> None:
    by_seed = {o.request.seed: o for o in outcomes}
    assert sorted(by_seed) == [0, 1, 2]
    failed = by_seed[1]
    assert failed.status == "failed"
    assert failed.error == "RuntimeError: failing on purpose (seed 1)"
    assert failed.hint == f"traceback in {Path(failed.dir) / 'error.txt'}"
    assert (Path(failed.dir) / "error.txt").is_file()
    assert by_seed[0].ok and by_seed[2].ok
    assert by_seed[2].result is not None and by_seed[2].result.rows[0].value == 2.0
    records = {r.seed: r for r in store.runs()}
    assert {s: r.status for s, r in records.items()} == {0: "succeeded", 1: "failed", 2: "succeeded"}
    assert records[1].error == failed.error
    assert all(Path(r.dir).parent == home / "runs" for r in records.values())
    assert store.result(records[2].id).rows[0].value == 2.0


def test_failed_run_is_recorded_failed_and_the_others_succeed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _use_home(monkeypatch, tmp_path)
    outcomes = list(
        RayExecutor(results="shared").map([RunRequest("raytest.flaky", seed=s) for s in range(3)])
    )
    _check_flaky_sweep(outcomes, store, tmp_path)


def test_copy_mode_brings_every_run_into_this_machines_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _use_home(monkeypatch, tmp_path)
    outcomes = list(RayExecutor(results="copy").map([RunRequest("raytest.flaky", seed=s) for s in range(3)]))
    _check_flaky_sweep(outcomes, store, tmp_path)
    for outcome in outcomes:
        assert (Path(outcome.dir) / "config.json").is_file()


def test_experiment_missing_on_the_workers_is_a_failed_outcome(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _use_home(monkeypatch, tmp_path)
    (outcome,) = RayExecutor().map([RunRequest("raytest.no-such-experiment")])
    assert outcome.status == "failed"
    assert outcome.run_id == ""
    assert outcome.error is not None and outcome.error.startswith("UnknownNameError")
    assert store.runs() == []


def test_stopping_the_sweep_cancels_its_runs_and_marks_started_ones_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _use_home(monkeypatch, tmp_path)
    requests = [RunRequest("raytest.flaky", seed=0)] + [
        RunRequest("raytest.sleepy", seed=s) for s in range(3)
    ]
    with contextlib.closing(RayExecutor(workers=2).map(requests)) as outcomes:
        first = next(outcomes)
        assert first.ok and first.request.experiment == "raytest.flaky", first.error
        deadline = time.monotonic() + 30
        while not store.runs(experiment="raytest.sleepy") and time.monotonic() < deadline:
            time.sleep(0.1)  # let a sleepy run start
        started = time.monotonic()
        outcomes.close()  # what Ctrl-C does to the generator the CLI iterates
        assert time.monotonic() - started < 15, "cancelled runs took longer than 15 s to stop"
    sleepy = store.runs(experiment="raytest.sleepy")
    assert 1 <= len(sleepy) <= 2, "the queued run should never have started"
    assert {r.status for r in sleepy} == {"failed"}
    assert all((r.error or "").startswith("KeyboardInterrupt") for r in sleepy)
