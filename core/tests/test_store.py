from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from paperzoo.errors import StoreError, UnknownNameError
from paperzoo.results import Result
from paperzoo.store import ResultsStore, RunRecord


def _record(run_id: str, **kw: object) -> RunRecord:
    base: dict[str, object] = {"experiment": "demo.x", "scale": "smoke", "seed": 0, "dir": "/tmp/x"}
    base.update(kw)
    return RunRecord(id=run_id, **base)  # type: ignore[arg-type]


WRITER = """
import sys
from paperzoo.results import Result
from paperzoo.store import ResultsStore, RunRecord
path, worker, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
store = ResultsStore(path)
for i in range(runs):
    run_id = f"w{worker}-r{i}"
    store.start(RunRecord(id=run_id, experiment="demo.x", scale="smoke", seed=i, dir="/tmp/x"))
    store.succeed(run_id, Result().add("value", worker * 1000 + i).add("twice", 2 * i))
"""


def test_concurrent_processes_lose_nothing(tmp_path: Path) -> None:
    path = str(tmp_path / "results.sqlite")
    workers, runs = 6, 25
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, path, str(w), str(runs)], stderr=subprocess.PIPE)
        for w in range(workers)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    store = ResultsStore(path)
    records = store.runs()
    assert len(records) == workers * runs
    assert all(r.status == "succeeded" for r in records)
    values = sorted(store.result(r.id).value("value") or 0 for r in records)
    assert values == sorted(w * 1000 + i for w in range(workers) for i in range(runs))
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("SELECT COUNT(*) FROM rows").fetchone()[0] == 2 * workers * runs


FIRST_WRITER = """
import sys
from paperzoo.store import ResultsStore, RunRecord
store = ResultsStore(sys.argv[1])
print("ready", flush=True)
sys.stdin.read(1)  # all start together
store.start(RunRecord(id=sys.argv[2], experiment="demo.x", scale="smoke", seed=0, dir="/tmp/x"))
"""


def test_processes_creating_the_store_at_once_all_succeed(tmp_path: Path) -> None:
    for attempt in range(3):  # the race is not certain in one round
        path = str(tmp_path / f"results-{attempt}.sqlite")
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", FIRST_WRITER, path, f"w{w}"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for w in range(4)
        ]
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == b"ready"
        for p in procs:
            assert p.stdin is not None
            p.stdin.write(b"x")
            p.stdin.flush()
        for p in procs:
            _, err = p.communicate(timeout=60)
            assert p.returncode == 0, err.decode()
        assert len(ResultsStore(path).runs()) == 4


def test_lifecycle_and_filters(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite")
    store.start(_record("a1", experiment="revdiv.synthetic", started=1.0))
    store.start(_record("a2", experiment="revdiv.fraud", scale="paper", started=2.0))
    store.start(_record("b1", experiment="other.x", started=3.0, sweep="s1"))
    store.succeed("a1", Result(notes="fine").add("m", 1.0, paper=2.0))
    store.fail("a2", "ValueError: boom")
    assert [r.id for r in store.runs()] == ["b1", "a2", "a1"]
    assert [r.id for r in store.runs(experiment="revdiv.*")] == ["a2", "a1"]
    assert [r.id for r in store.runs(status="failed")] == ["a2"]
    assert [r.id for r in store.runs(scale="paper")] == ["a2"]
    assert [r.id for r in store.runs(sweep="s1")] == ["b1"]
    assert [r.id for r in store.runs(limit=1)] == ["b1"]
    assert store.get("a2").error == "ValueError: boom"
    assert store.result("a1").notes == "fine"
    assert store.result("a1").rows[0].paper == 2.0
    assert store.experiments() == ["other.x", "revdiv.fraud", "revdiv.synthetic"]


def test_like_wildcards_in_prefix_are_literal(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite")
    store.start(_record("x", experiment="a_b.c"))
    store.start(_record("y", experiment="axb.c"))
    assert [r.id for r in store.runs(experiment="a_b*")] == ["x"]


def test_get_by_unique_prefix(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite")
    store.start(_record("20260101-abc"))
    store.start(_record("20260101-abd"))
    assert store.get("20260101-abc").id == "20260101-abc"
    with pytest.raises(UnknownNameError, match="ambiguous"):
        store.get("20260101-ab")
    with pytest.raises(UnknownNameError, match="no run 'zzz'"):
        store.get("zzz")


def test_reading_a_missing_store_creates_nothing(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "none" / "r.sqlite")
    assert store.runs() == []
    assert not (tmp_path / "none").exists()


def test_finishing_an_unknown_run_fails_clearly(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite")
    with pytest.raises(StoreError, match="not in the results store"):
        store.succeed("ghost", Result())


def test_failed_write_rolls_back_whole_transaction(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite")
    store.start(_record("a"))
    store.succeed("a", Result(notes="first").add("m", 1.0))
    with pytest.raises(StoreError):
        # rows (run_id, idx=0) already exist: the insert fails after the UPDATE ran
        store.succeed("a", Result(notes="second").add("again", 2.0))
    assert store.result("a").notes == "first"
    assert [r.metric for r in store.result("a").rows] == ["m"]


def test_reap_marks_runs_of_dead_processes_failed(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite")
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    store.start(_record("lost", pid=int(dead.stdout)))
    store.start(_record("alive", pid=os.getpid()))
    assert store.reap() == 1
    assert store.get("lost").status == "failed"
    assert "ended without finishing" in (store.get("lost").error or "")
    assert store.get("alive").status == "running"


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 99")
    with pytest.raises(StoreError, match="newer than this paperzoo"):
        ResultsStore(path).start(_record("a"))


def test_corrupt_store_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError, match="results store"):
        ResultsStore(path).start(_record("a"))


def test_add_finished_inserts_a_finished_run_in_one_step(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite")
    done = Result().add("accuracy", 0.9, paper=0.93, setting="n=1")
    store.add_finished(_record("a", ended=123.0), done)
    store.add_finished(_record("b", error="boom", ended=124.0), None)
    a, b = store.get("a"), store.get("b")
    assert (a.status, a.ended, b.status, b.error, b.ended) == ("succeeded", 123.0, "failed", "boom", 124.0)
    assert store.result("a").rows == done.rows


def test_add_finished_leaves_no_row_when_it_fails(tmp_path: Path) -> None:
    store = ResultsStore(tmp_path / "r.sqlite")
    store.start(_record("a"))
    with pytest.raises(StoreError, match="UNIQUE constraint failed"):
        store.add_finished(_record("a"), None)  # the id exists: nothing of the new run is written
    assert [r.id for r in store.runs()] == ["a"]
    assert store.get("a").status == "running"
