"""The declarative manifest: Plugin, Setting, Ref, parameter constraints and PluginContract."""

from __future__ import annotations

import math
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from paperzoo import BaseEstimator, Plugin, Ref, Result, Setting
from paperzoo.errors import ConfigError
from paperzoo.host import PluginHost
from paperzoo.runs import RunRequest, execute
from paperzoo.store import ResultsStore
from paperzoo.testing import Example, PluginContract
from paperzoo.testing.demo_plugin import ShrunkMean


def make_plugin() -> Plugin:
    """A manifest over the demo plugin's functions, with constraints and references."""
    plugin = Plugin("mdemo", framework="numpy", paper="A demo paper", package="paperzoo.testing")
    plugin.estimator("shrunk-mean", ".demo_plugin:ShrunkMean", "Shrunk mean")
    plugin.metric("squared-error", ".demo_plugin:squared_error", "Squared error", formula="(μ̂ − μ)²")
    plugin.experiment(
        "noisy-mean",
        ".demo_plugin:noisy_mean",
        "Mean of normal samples against the truth",
        settings={
            "n": Setting(1000, low=1),
            "loc": Setting(1.0, low=-100, high=100),
            "shrinkage": Setting(0.0, low=0),
            "steps": Setting(3, low=0, high="n"),
            "fail": False,
        },
        scales={"smoke": {"n": 50}, "paper": {"n": 100_000}},
        references={"squared error": Ref(0.0, "the estimator is consistent", kind="theorem")},
        test_scale={"n": 20, "steps": 1},
    )
    return plugin


PLUGIN = make_plugin()


class TestDemoManifest(PluginContract):
    """The generated contract tests, run on the demo manifest (they must all pass)."""

    plugin = PLUGIN

    def estimator_example(self, name: str) -> Example:
        return Example(ShrunkMean(shrinkage=0.5, prior=1.0), fit_args=(np.arange(5.0),))

    def test_plugin_module_imports_nothing_heavy(self) -> None:
        pytest.skip("this manifest is declared in a test module, which imports numpy itself")


# ------------------------------------------------------------------- Setting


@pytest.mark.parametrize(
    ("setting", "value", "expected"),
    [
        (Setting(3, low=1), np.int64(4), 4),
        (Setting(0.5, low=0, high=1), 1, 1.0),
        (Setting([0.5], each=Setting(0.5, low=0), min_len=1), (0.25, 2), [0.25, 2.0]),
        (Setting("a", choices=("a", "b")), "b", "b"),
        (Setting(1.0, low=0, allow_none=True), None, None),
        (Setting(1.0, low=0, finite=False), math.inf, math.inf),
        (Setting(True), np.bool_(False), False),
    ],
)
def test_setting_accepts_and_normalises(setting: Setting, value: Any, expected: Any) -> None:
    out = setting.check("x", value)
    assert out == expected
    assert type(out) is type(expected)


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        (Setting(3, low=1), 0, "x must be an integer ≥ 1, got 0"),
        (Setting(3, low=1), 2.5, "x must be an integer ≥ 1, got 2.5"),
        (Setting(3, low=1), True, "got True"),
        (Setting(0.5, low=0, high=1, low_open=True), 0.0, "x must be a number in (0, 1], got 0.0"),
        (Setting(0.5, low=0), math.nan, "got nan"),
        (Setting(0.5, low=0), math.inf, "got inf"),
        (Setting(0.5, low=0), None, "got None"),
        (Setting([1], each=Setting(1, low=1), min_len=1), [], "x must be a list of ≥ 1 (integer ≥ 1)"),
        (Setting([1], each=Setting(1, low=1)), [1, 0], "x[1] must be an integer ≥ 1, got 0"),
        (Setting("a", choices=("a", "b")), "c", "x must be one of 'a', 'b', got 'c'"),
        (Setting(True), 1, "x must be true or false, got 1"),
    ],
)
def test_setting_refuses_with_one_line_naming_it(setting: Setting, value: Any, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        setting.check("x", value, owner="demo")
    assert str(info.value).startswith("demo: ")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_bound_naming_another_setting_reads_its_value() -> None:
    spec = PLUGIN.experiments[0]
    assert spec.settings_for("smoke", {"steps": 50})["steps"] == 50
    with pytest.raises(ConfigError, match=r"steps must be an integer in \[0, n\] \(n = 50\), got 51"):
        spec.settings_for("smoke", {"steps": 51})


def test_invalid_scale_value_fails_at_declaration() -> None:
    plugin = Plugin("bad", package="paperzoo.testing")
    with pytest.raises(ConfigError, match="bad.x: n must be an integer ≥ 1, got 0"):
        plugin.experiment(
            "x", ".demo_plugin:noisy_mean", settings={"n": Setting(5, low=1)}, scales={"smoke": {"n": 0}}
        )


def test_info_describes_constraints() -> None:
    described = PLUGIN.experiments[0].describe()
    assert described["settings"]["n"] == 1000
    assert described["constraints"]["steps"] == "integer in [0, n]"
    assert described["references"][0]["kind"] == "theorem"


# -------------------------------------------------------------------- Plugin


def test_names_are_prefixed_and_targets_resolved_once() -> None:
    spec = PLUGIN.estimators[0]
    assert spec.name == "mdemo.shrunk-mean"
    assert spec.target == "paperzoo.testing.demo_plugin:ShrunkMean"
    assert spec.framework == "numpy"
    assert spec.load() is ShrunkMean


def test_package_defaults_to_the_callers_package() -> None:
    assert Plugin("x").package == __package__ or Plugin("x").package  # a test module has one, too


def test_datasets_of_other_plugins_keep_their_full_name() -> None:
    spec = Plugin("p", package="p").experiment("e", ".x:f", datasets=("own", "graph.cora"))
    assert spec.datasets == ("p.own", "graph.cora")


def test_declaring_a_name_twice_is_refused() -> None:
    plugin = Plugin("twice", package="p")
    plugin.metric("m", ".a:b")
    with pytest.raises(ConfigError, match="declares metric 'twice.m' twice"):
        plugin.metric("m", ".a:c")


def test_raw_hooks_are_ordinary_hookimpls(paperzoo_home: Path) -> None:
    plugin = Plugin("raw", package="paperzoo.testing")
    seen: list[str] = []

    @plugin.hook
    def paperzoo_on_run_start(run: Any) -> None:
        seen.append(run.experiment)

    host = PluginHost(entry_points=False)
    host.register(PLUGIN)
    record = host.register(plugin)
    assert record.name == "raw"
    assert record.module == __name__
    execute(RunRequest("mdemo.noisy-mean", overrides={"n": 5}), host=host)
    assert seen == ["mdemo.noisy-mean"]
    assert "paperzoo_on_run_start" in host.hooks_of("raw")


def test_hook_names_must_be_paperzoo_hooks() -> None:
    with pytest.raises(ConfigError, match="hook names start with 'paperzoo_'"):
        Plugin("x", package="p").hook(lambda: None)


# ----------------------------------------------------------------- references


def test_ref_matches_row_setting_then_run_settings() -> None:
    refs = (
        Ref(0.6, "Table 1", setting="forecaster=ets", metric="RCRPS"),
        Ref(0.5, "Table 1", setting="forecaster=arima", metric="RCRPS"),
    )
    result = Result().add("RCRPS", 0.55).add("RCRPS", 0.61, setting={"forecaster": "ets"}).add("other", 1.0)
    result.with_references(refs, {"forecaster": "arima"})
    assert [(r.paper, r.ref_source, r.ref_kind) for r in result.rows] == [
        (0.5, "Table 1", "paper"),
        (0.6, "Table 1", "paper"),
        (None, "", ""),
    ]


def test_explicit_paper_value_is_kept() -> None:
    result = Result().add("m", 1.0, paper=2.0)
    result.with_references((Ref(3.0, "Table 9", metric="m"),), {})
    assert result.rows[0].paper == 2.0


def test_run_time_reference_carries_kind_and_source() -> None:
    row = Result().add("mean", 1.0, ref=Ref(1.1, "the true mean", kind="oracle")).rows[0]
    assert (row.paper, row.ref_kind, row.ref_source) == (1.1, "oracle", "the true mean")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"kind": "guess"}, "not one of"),
        ({"source": ""}, "has no source"),
        ({"value": "1"}, "must be a number"),
    ],
)
def test_bad_reference_is_refused(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Ref(**{"value": 1.0, "source": "Table 1", **kwargs})


def test_executed_rows_get_references_and_the_store_keeps_them(paperzoo_home: Path) -> None:
    host = PluginHost(entry_points=False)
    host.register(PLUGIN)
    outcome = execute(RunRequest("mdemo.noisy-mean", overrides={"n": 10}), host=host)
    stored = ResultsStore(paperzoo_home / "results.sqlite").result(outcome.run_id)
    row = next(r for r in stored.rows if r.metric == "squared error")
    assert (row.paper, row.ref_kind, row.ref_source) == (0.0, "theorem", "the estimator is consistent")


# ------------------------------------------------------ checks before a run


@pytest.mark.parametrize("overrides", [{"n": 0}, {"shrinkage": -1.0}, {"loc": math.nan}, {"steps": None}])
def test_bad_override_leaves_no_run_directory_and_no_store_row(
    overrides: dict[str, Any], paperzoo_home: Path
) -> None:
    host = PluginHost(entry_points=False)
    host.register(PLUGIN)
    with pytest.raises(ConfigError):
        execute(RunRequest("mdemo.noisy-mean", overrides=overrides), host=host)
    assert not (paperzoo_home / "runs").exists()
    assert not ResultsStore(paperzoo_home / "results.sqlite").runs()


def test_sweep_with_one_bad_point_fails_before_any_run(paperzoo_home: Path) -> None:
    from paperzoo.sweep import plan

    with pytest.raises(ConfigError, match="n must be an integer ≥ 1, got 0"):
        plan(PLUGIN.experiments[0], "smoke", [0, 1], ["n=5,0"])


# ----------------------------------------------------- estimator parameters


class Clipped(BaseEstimator):
    _parameters: ClassVar[dict[str, Setting]] = {
        "rate": Setting(low=0, low_open=True),
        "steps": Setting(low=1, high=1000),
        "cap": Setting(low=0, allow_none=True, type="float"),
    }

    def __init__(self, rate: float = 0.1, steps: int = 10, cap: float | None = None) -> None:
        self.rate = rate
        self.steps = steps
        self.cap = cap

    def fit(self, x: Any) -> Clipped:
        self.params_ = self._validate_params()
        return self


def test_validate_params_normalises_and_takes_types_from_init() -> None:
    assert Clipped(rate=1, steps=np.int32(3)).fit(None).params_ == {"cap": None, "rate": 1.0, "steps": 3}


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"rate": 0.0}, "Clipped: rate must be a number > 0, got 0.0"),
        ({"rate": math.inf}, "Clipped: rate must be a number > 0, got inf"),
        ({"steps": 2.0}, "Clipped: steps must be an integer in [1, 1000], got 2.0"),
        ({"cap": "big"}, "Clipped: cap must be a number ≥ 0 or none, got 'big'"),
    ],
)
def test_validate_params_refuses_in_one_line(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        Clipped(**params).fit(None)
    assert str(info.value) == message


# --------------------------------------------------------------- the store


def test_store_of_schema_1_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "results.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE runs (id TEXT PRIMARY KEY, experiment TEXT NOT NULL, plugin TEXT NOT NULL DEFAULT '',"
        " scale TEXT NOT NULL, seed INTEGER NOT NULL, settings TEXT NOT NULL DEFAULT '{}', sweep TEXT,"
        " status TEXT NOT NULL, error TEXT, started REAL NOT NULL, ended REAL, dir TEXT NOT NULL,"
        " host TEXT NOT NULL DEFAULT '', pid INTEGER, versions TEXT NOT NULL DEFAULT '{}',"
        " notes TEXT NOT NULL DEFAULT '');"
        "CREATE TABLE rows (run_id TEXT NOT NULL, idx INTEGER NOT NULL, metric TEXT NOT NULL, value REAL,"
        " paper REAL, unit TEXT NOT NULL DEFAULT '', setting TEXT NOT NULL DEFAULT '', PRIMARY KEY (run_id, idx));"
        "CREATE TABLE artifacts (run_id TEXT NOT NULL, idx INTEGER NOT NULL, path TEXT NOT NULL,"
        " kind TEXT NOT NULL DEFAULT 'file', title TEXT NOT NULL DEFAULT '', PRIMARY KEY (run_id, idx));"
        "INSERT INTO runs VALUES ('r1', 'x.y', 'x', 'smoke', 0, '{}', NULL, 'succeeded', NULL, 1.0, 2.0, '/tmp',"
        " '', NULL, '{}', '');"
        "INSERT INTO rows VALUES ('r1', 0, 'acc', 0.5, 0.6, '', '');"
        "PRAGMA user_version = 1;"
    )
    conn.close()
    store = ResultsStore(path)
    (row,) = store.result("r1").rows  # a read migrates the file, then reads it
    assert (row.value, row.paper, row.ref_source) == (0.5, 0.6, "")
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2


# ------------------------------------------------------------ host & layering


def test_isolated_calls_go_through_pluggy_monitoring_and_wrappers(paperzoo_home: Path) -> None:
    import pluggy

    host = PluginHost(entry_points=False)
    host.register(PLUGIN)
    calls: list[str] = []
    undo = host.pm.add_hookcall_monitoring(lambda name, impls, kw: calls.append(name), lambda *a: None)

    class Wrapper:
        wrapped = 0

        @pluggy.HookimplMarker("paperzoo")(wrapper=True)
        def paperzoo_register_experiments(self, register: Any) -> Any:
            Wrapper.wrapped += 1
            return (yield)

    host.register(Wrapper(), name="wrapper")
    assert host.experiments.names() == ["mdemo.noisy-mean"]
    undo()
    assert "paperzoo_register_experiments" in calls
    assert Wrapper.wrapped == 1


def test_failing_plugin_is_isolated(paperzoo_home: Path) -> None:
    broken = Plugin("broken", package="paperzoo.testing")

    @broken.hook
    def paperzoo_register_metrics(register: Any) -> None:
        raise RuntimeError("boom")

    host = PluginHost(entry_points=False)
    host.register(PLUGIN)
    host.register(broken)
    assert host.metrics.names() == ["mdemo.squared-error"]
    assert host.record("broken").status == "failed: paperzoo_register_metrics raised RuntimeError: boom"


def test_unknown_name_of_a_first_party_plugin_hints_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperzoo.errors import UnknownNameError

    monkeypatch.setattr("paperzoo.host.entries", lambda: [])  # nothing installed
    with pytest.raises(UnknownNameError) as info:
        PluginHost().experiments.get("els.mnist")
    assert info.value.hint == (
        "'els.mnist' comes from the plugin els, which is not installed: pip install paperzoo-els"
    )


CONTRACT = ["hookspecs", "specs", "results", "interfaces", "base", "registry", "discovery", "host",
            "errors", "settings", "references", "manifest"]  # fmt: skip
RUNTIME = {
    "paperzoo.runs",
    "paperzoo.store",
    "paperzoo.executor",
    "paperzoo.sweep",
    "paperzoo.report",
    "paperzoo.cli",
}


def _loaded(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True, env={"PAPERZOO_LOAD_PLUGINS": ""})  # fmt: skip
    return set(out.stdout.split())


def test_contract_layer_imports_no_runtime() -> None:
    loaded = _loaded("; ".join(f"import paperzoo.{m}" for m in CONTRACT))
    assert not loaded & RUNTIME, sorted(loaded & RUNTIME)


def test_plugins_command_loads_no_run_machinery() -> None:
    loaded = _loaded(
        "import contextlib, io\nfrom paperzoo.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(['plugins'])"
    )
    assert not loaded & (RUNTIME - {"paperzoo.cli"}), sorted(loaded & RUNTIME)


def test_choice_list_is_a_non_empty_list_of_choices() -> None:
    setting = Setting.choice_list(("a", "b"), default=["b"])
    assert setting.default == ["b"]
    assert setting.check("x", ("a", "b")) == ["a", "b"]
    with pytest.raises(ConfigError, match="x\\[0\\] must be one of 'a', 'b', got 'c'"):
        setting.check("x", ["c"])
    with pytest.raises(ConfigError, match="x must be a list of ≥ 1"):
        setting.check("x", [])
