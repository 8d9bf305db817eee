"""The core's generated contract tests, the issue's acceptance anchors, and bad settings."""

from __future__ import annotations

import re
from typing import Any

import pytest

from paperzoo.data import locate_unverified
from paperzoo.errors import ConfigError, UnknownNameError
from paperzoo.host import PluginHost
from paperzoo.runs import RunRequest, execute
from paperzoo.testing import PluginContract
from paperzoo_minerva.context import get_tokenizer
from paperzoo_minerva.plugin import SNAPSHOT_FILES, SNAPSHOT_YES_SHARE, plugin
from paperzoo_minerva.responders import make_responder
from paperzoo_minerva.runner import evaluate
from paperzoo_minerva.snapshot import load_snapshot
from paperzoo_minerva.suite_stats import suite_statistics
from paperzoo_minerva.tasks import generate_suite

needs_snapshot = pytest.mark.skipif(
    any(locate_unverified(f) is None for f in SNAPSHOT_FILES.values()),
    reason="the Minerva snapshot is not available (set PAPERZOO_DATA_MIRROR)",
)


SNAPSHOT = next(s for s in plugin.experiments if s.name == "minerva.snapshot")


class TestMinerva(PluginContract):
    plugin = plugin


@pytest.fixture
def minerva_host(paperzoo_host: PluginHost) -> PluginHost:
    """A fresh home and a host with only the minerva plugin, as the process-wide host."""
    paperzoo_host.register(plugin)
    return paperzoo_host


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
    ("setting", "message"),
    [
        ({"responder": []}, "responder must be a list of ≥ 1"),
        ({"max_tokens": 0}, "max_tokens must be an integer ≥ 1, got 0"),
        ({"max_concurrency": 0}, "max_concurrency must be an integer ≥ 1, got 0"),
        ({"limit": -1}, "limit must be an integer ≥ 0, got -1"),
        ({"tasks": [1]}, "tasks[0] must be a string, got 1"),
    ],
)
def test_bad_settings_are_one_clear_error(setting: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        SNAPSHOT.settings_for("smoke", setting)


@needs_snapshot
@pytest.mark.parametrize(
    ("overrides", "error", "match"),
    [
        ({"responder": ["oracle", "oracle"]}, ConfigError, "without repeats"),
        ({"tasks": ["needle"]}, UnknownNameError, "unknown Minerva task 'needle'"),
    ],
)
def test_bad_settings_of_the_run_fail_with_a_clear_error(
    overrides: dict[str, Any], error: type[Exception], match: str, minerva_host: PluginHost
) -> None:
    with pytest.raises(error, match=match):
        execute(
            RunRequest("minerva.snapshot", "smoke", 0, overrides=overrides), host=minerva_host, reraise=True
        )


@needs_snapshot
def test_anchors_fill_the_reference_column_with_their_sources(minerva_host: PluginHost) -> None:
    """Whole yes/no tasks: always-yes gets the manifest's balance; the oracle 1 on every task."""
    overrides = {"tasks": sorted(SNAPSHOT_YES_SHARE), "limit": 0}
    outcome = execute(
        RunRequest("minerva.snapshot", "smoke", 0, overrides=overrides), host=minerva_host, reraise=True
    )
    headline = [r for r in outcome.result.rows if r.setting.startswith("responder=") and ", task=" in r.setting
                and not r.metric.endswith("exact_match_strict")]  # fmt: skip
    assert len(headline) == 2 * len(SNAPSHOT_YES_SHARE)
    for row in headline:
        task = row.setting.split("task=")[1]
        expected = 1.0 if "responder=oracle" in row.setting else SNAPSHOT_YES_SHARE[task]
        assert row.paper == pytest.approx(expected) and row.value == pytest.approx(expected), row
        assert row.ref_kind == "oracle" and row.ref_source, row
    limited = execute(
        RunRequest("minerva.snapshot", "smoke", 0, overrides={**overrides, "limit": 3}), host=minerva_host
    )
    assert all(r.paper is None for r in limited.result.rows if "responder=always-yes" in r.setting)
