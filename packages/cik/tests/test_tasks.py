"""The loader: 355 typed, frozen instances with the counts the notes give."""

from __future__ import annotations

import dataclasses
import json
from collections import Counter

import numpy as np
import pytest

from paperzoo.data import locate_unverified
from paperzoo.errors import DataError
from paperzoo_cik.plugin import TASKS_FILE

pytestmark = pytest.mark.skipif(
    locate_unverified(TASKS_FILE) is None, reason="cik/all_tasks.json not available"
)


@pytest.fixture(scope="module")
def tasks():
    from paperzoo_cik.tasks import load_tasks

    return load_tasks()


def test_355_instances_of_71_tasks_with_seeds_1_to_5(tasks) -> None:
    assert len(tasks) == 355
    per_task = Counter(t.task for t in tasks)
    assert len(per_task) == 71 and set(per_task.values()) == {5}
    assert {t.seed for t in tasks} == {1, 2, 3, 4, 5}
    assert sum(t.weight for t in tasks) == 105


def test_field_counts_match_the_data_notes(tasks) -> None:
    assert sum(bool(t.region_of_interest) for t in tasks) == 100
    assert sum(any(c.kind == "min" for c in t.constraints) for t in tasks) == 49
    assert sum(any(c.kind == "max" and c.steps is None for c in t.constraints) for t in tasks) == 22
    per_step = [c for t in tasks for c in t.constraints if c.steps is not None]
    assert len(per_step) == 10 and all(len(c.steps) == 8 for c in per_step)
    assert sum(t.seasonal_period == -1 for t in tasks) == 190
    lengths = [len(t.past_values) for t in tasks]
    assert (
        min(lengths) == 3 and max(lengths) == 287 and sum(n <= 6 for n in lengths) == 145
    )  # the notes say 131


def test_series_are_aligned_and_time_ordered(tasks) -> None:
    for t in tasks:
        assert len(t.past_time) == len(t.past_values) and len(t.future_time) == len(t.future_values)
        assert np.isfinite(t.past_values).all() and np.isfinite(t.future_values).all()
        assert t.timestamps("past")[-1] < t.timestamps()[0]
        assert len(t.future_time[0]) == 19  # YYYY-MM-DD HH:MM:SS
        assert all(0 <= i < t.horizon for i in t.region_of_interest)


def test_instances_are_frozen_and_labelled(tasks) -> None:
    t = tasks[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.seed = 9  # type: ignore[misc]
    assert t.key == "ElectricityIncreaseInPredictionTask/1" and t.domain == "Energy"
    assert t.context_types == ("covariate", "future") and t.region_of_interest == (8, 9)


def test_filter_by_context_type_and_domain(tasks) -> None:
    from paperzoo_cik.tasks import filter_instances

    causal = filter_instances(tasks, context_type="causal")
    assert len(causal) == 70 and all("c_causal" in t.context_sources for t in causal)
    assert len(filter_instances(tasks, domain="Public Safety", seeds=[1])) == 26


def test_malformed_line_fails_with_file_and_line(tmp_path) -> None:
    from paperzoo_cik.tasks import load_tasks

    good = json.loads(locate_unverified(TASKS_FILE).read_text().splitlines()[0])
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(good) + "\n{not json\n")
    with pytest.raises(DataError, match=r"bad.json:2: not JSON"):
        load_tasks(path)
