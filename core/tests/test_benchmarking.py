"""paperzoo.benchmarking: the metadata and the atomic write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperzoo import benchmarking


def test_meta_records_command_machine_and_versions() -> None:
    meta = benchmarking.benchmark_meta("python bench.py", ["pluggy", "no-such-package-xyz"], note="n")
    assert meta["command"] == "python bench.py"
    assert meta["machine"]["cpus"] >= 1
    assert meta["versions"]["pluggy"]
    assert meta["versions"]["no-such-package-xyz"] is None
    assert meta["note"] == "n"


def test_write_creates_the_folder_and_keeps_data_beside_meta(tmp_path: Path) -> None:
    path = benchmarking.write_benchmark(tmp_path / "out" / "r.json", {"rows": [1, 2]}, command="c")
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["rows"] == [1, 2]
    assert saved["meta"]["command"] == "c"


def test_data_and_command_are_not_confused_with_meta_keys(tmp_path: Path) -> None:
    path = benchmarking.write_benchmark(tmp_path / "r.json", {"rows": []}, command="c", data="which data set")
    assert json.loads(path.read_text(encoding="utf-8"))["meta"]["data"] == "which data set"


def test_a_failed_write_leaves_the_previous_file(tmp_path: Path) -> None:
    path = benchmarking.write_benchmark(tmp_path / "r.json", {"rows": [1]}, command="c")
    with pytest.raises(ValueError):
        benchmarking.write_benchmark(path, {"rows": [float("nan")]}, command="c")
    assert json.loads(path.read_text(encoding="utf-8"))["rows"] == [1]
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]
