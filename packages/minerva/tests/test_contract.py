"""The core's contract suites, the issue's acceptance anchors, and bad settings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest

from paperzoo.data import locate_unverified
from paperzoo.errors import ConfigError, UnknownNameError
from paperzoo.runs import RunRequest, execute
from paperzoo.testing import DatasetContract, ExperimentContract
from paperzoo_minerva import plugin
from paperzoo_minerva.context import get_tokenizer
from paperzoo_minerva.experiments import SNAPSHOT_YES_SHARE
from paperzoo_minerva.responders import make_responder
from paperzoo_minerva.runner import evaluate
from paperzoo_minerva.snapshot import SNAPSHOT_FILES, load_snapshot
from paperzoo_minerva.suite_stats import suite_statistics
from paperzoo_minerva.tasks import generate_suite

needs_snapshot = pytest.mark.skipif(
    any(locate_unverified(f) is None for f in SNAPSHOT_FILES.values()),
    reason="the Minerva snapshot is not available (set PAPERZOO_DATA_MIRROR)",
)


class TestSnapshotDataset(DatasetContract):
    plugin = plugin
    dataset = "minerva.snapshot"


@needs_snapshot
class TestSnapshotExperiment(ExperimentContract):
    plugin = plugin
    experiment = "minerva.snapshot"
    smoke_overrides: ClassVar[dict[str, Any]] = {"limit": 1}


@needs_snapshot
class TestGeneratedExperiment(ExperimentContract):
    plugin = plugin
    experiment = "minerva.generated"
    smoke_overrides: ClassVar[dict[str, Any]] = {"limit": 1, "tasks": ["string_search_word", "set_state"]}


def test_plugin_module_imports_nothing_heavy() -> None:
    heavy = {"numpy", "tiktoken", "torch", "paperzoo_llm", "english_words"}
    code = f"import sys, {plugin.__name__}; print(sorted({heavy!r} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _answers(responder: str, instances: list[Any]) -> dict[str, str]:
    r = make_responder(responder)
    return {i.id: r.respond(i) for i in instances}


@needs_snapshot
def test_snapshot_anchors_oracle_one_and_always_yes_the_balance() -> None:
    snapshot = load_snapshot()
    assert len(snapshot) == 1_180
    assert all(s.value == 1.0 for s in evaluate(snapshot, _answers("oracle", snapshot)))
    always_yes = {s.task: s.value for s in evaluate(snapshot, _answers("always-yes", snapshot))}
    for task, share in SNAPSHOT_YES_SHARE.items():
        assert always_yes[task] == pytest.approx(share), task


@needs_snapshot
def test_generated_suite_matches_the_snapshot_statistics() -> None:
    encode = get_tokenizer("cl100k")[0]
    suite = generate_suite(7)
    assert all(s.value == 1.0 for s in evaluate(suite, _answers("oracle", suite)))
    ours = suite_statistics(suite, lambda t: len(encode(t)))
    theirs = suite_statistics(load_snapshot(), lambda t: len(encode(t)))
    assert ours.keys() == theirs.keys()
    for task, stats in ours.items():
        ref = theirs[task]
        assert stats.count == ref.count, task
        assert stats.yes_share == ref.yes_share, task
        assert stats.context_tokens == pytest.approx(ref.context_tokens, rel=0.05), task


@pytest.mark.parametrize(
    ("overrides", "error", "match"),
    [
        ({"responder": []}, ConfigError, "non-empty list"),
        ({"responder": ["oracle", "oracle"]}, ConfigError, "without repeats"),
        ({"max_tokens": 0}, ConfigError, "max_tokens"),
        ({"tasks": ["needle"]}, UnknownNameError, "unknown Minerva task 'needle'"),
    ],
)
def test_bad_settings_fail_with_a_clear_error(
    overrides: dict[str, Any],
    error: type[Exception],
    match: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from paperzoo.host import PluginHost, reset_host

    monkeypatch.setenv("PAPERZOO_HOME", str(tmp_path))
    host = PluginHost(entry_points=False)
    host.register(plugin, name="minerva")
    reset_host(host)
    try:
        with pytest.raises(error, match=match):
            execute(RunRequest("minerva.snapshot", "smoke", 0, overrides=overrides), host=host, reraise=True)
    finally:
        reset_host(None)
