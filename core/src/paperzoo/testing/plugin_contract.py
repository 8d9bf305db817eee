"""``PluginContract``: every contract test of a plugin, generated from its manifest.

::

    from paperzoo.testing import Example, PluginContract
    from paperzoo_revdiv.plugin import plugin

    class TestRevdiv(PluginContract):
        plugin = plugin

        def estimator_example(self, name):
            return Example(RULES[name](alpha=0.6), fit_args=(small_engagement(),))

pytest then collects, for everything the manifest declares: the import guard
(``plugin.py`` imports nothing in :data:`HEAVY_MODULES`), a check that every
target loads and has its verbs, the estimator rules (:class:`EstimatorContract`)
for each estimator, the dataset rules for each dataset, and for each experiment:
valid scales, the refusal of bad numeric values through the command line (one
line, exit 2, no run directory, no store row), a smoke run at ``test_scale`` and,
marked ``slow``, its reproducibility. A test checks that everything registered is
covered.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pytest

from paperzoo.errors import DataError
from paperzoo.host import PluginHost, reset_host
from paperzoo.runs import RunRequest, execute
from paperzoo.settings import Setting
from paperzoo.specs import SCALES, DatasetSpec, EstimatorSpec, ExperimentSpec, Spec
from paperzoo.store import ResultsStore
from paperzoo.testing.contracts import EstimatorContract, _assert_same, _comparable, check_recorded_run

__all__ = ["BAD_NUMBERS", "HEAVY_MODULES", "MEASURED_UNITS", "Example", "PluginContract"]

HEAVY_MODULES: frozenset[str] = frozenset(
    {"numpy", "scipy", "pandas", "torch", "jax", "jaxlib", "flax", "optax", "orbax", "tensorflow",
     "transformers", "tiktoken", "sklearn", "statsmodels", "matplotlib", "mlflow", "sqlalchemy", "ray", "openai",
     "networkx"}
)  # fmt: skip
"""Top-level modules a ``plugin.py`` must not import (listing plugins stays instant)."""

MEASURED_UNITS: frozenset[str] = frozenset({"s", "ms", "µs", "B", "kB", "KiB", "MB", "MiB", "GB", "GiB"})
"""Units of machine-dependent measurements (time, memory), exempt from the reproducibility check."""

BAD_NUMBERS: tuple[str, ...] = ("none", "nan", "inf", "-1")
"""What the generated test sets every numeric setting to, through ``paperzoo run --set``."""

_FIT_FREE_CHECKS = {
    "test_params_come_from_init_signature",
    "test_init_stores_params_unchanged",
    "test_init_does_no_work",
    "test_set_params_returns_self_and_sets",
    "test_set_params_rejects_unknown_name",
    "test_repr_is_a_string",
}
ESTIMATOR_CHECKS = sorted(n for n in dir(EstimatorContract) if n.startswith("test_"))


@dataclass
class Example:
    """A small, fast example of one estimator for its contract tests.

    Attributes:
        estimator: An unfitted estimator, with non-default parameters where possible.
        fit_args: Positional arguments of ``fit`` (the suite fits several times).
        fit_kwargs: Keyword arguments of ``fit``.
        deterministic: Whether two fits give the same fitted state.
        fitted_output: What must be equal between equivalent fitted estimators
            (default: the fitted attributes that are not callables).
    """

    estimator: Any
    fit_args: tuple[Any, ...] = ()
    fit_kwargs: dict[str, Any] = field(default_factory=dict)
    deterministic: bool = True
    fitted_output: Callable[[Any], Any] | None = None


class _EstimatorCase(EstimatorContract):
    """The estimator rules, on a fresh :class:`Example` for every estimator made."""

    def __init__(self, make: Callable[[], Example]) -> None:
        self._make = make
        first = make()
        self.deterministic = first.deterministic  # type: ignore[misc]
        self._fitted_output = first.fitted_output

    def make_estimator(self) -> Any:
        return self._make().estimator

    def fit_args(self) -> tuple[Any, ...]:
        return self._make().fit_args

    def fit_kwargs(self) -> dict[str, Any]:
        return self._make().fit_kwargs

    def fitted_output(self, estimator: Any) -> Any:
        if self._fitted_output is not None:
            return self._fitted_output(estimator)
        return super().fitted_output(estimator)


def _short(plugin: Any, spec: Spec) -> str:
    return spec.name.removeprefix(f"{plugin.id}.")


class PluginContract:
    """Contract tests for everything a :class:`~paperzoo.Plugin` declares.

    Set ``plugin``; define :meth:`estimator_example` when the plugin has
    estimators and :meth:`dataset_options` when a loader needs options. Names in
    ``slow`` (experiments or datasets, without the plugin prefix) have their
    runs and loads marked ``slow``.
    """

    plugin: ClassVar[Any] = None
    slow: ClassVar[frozenset[str] | set[str]] = frozenset()

    # -------------------------------------------------------------- to define

    def estimator_example(self, name: str) -> Example:
        """An :class:`Example` of the estimator ``name`` (without the plugin prefix)."""
        raise NotImplementedError(f"define estimator_example() for {name!r} in {type(self).__name__}")

    def dataset_options(self, name: str) -> dict[str, Any]:
        """Options for the loader of dataset ``name`` (small, so that loading is fast)."""
        return {}

    # ---------------------------------------------------------- parametrising

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        plugin = type(self).plugin
        if plugin is None:
            return
        marks = {True: [pytest.mark.slow], False: []}

        def params(specs: list[Any], *, slow_all: bool = False) -> list[Any]:
            return [
                pytest.param(
                    s.name, id=_short(plugin, s), marks=marks[slow_all or _short(plugin, s) in self.slow]
                )
                for s in specs
            ]

        every = [
            pytest.param((kind, s.name), id=f"{kind[:-1]}-{_short(plugin, s)}")
            for kind, specs in plugin.specs().items()
            for s in specs
        ]
        wanted = {
            "any_spec": lambda: every,
            "estimator_name": lambda: params(plugin.estimators),
            "dataset_name": lambda: params(plugin.datasets),
            "experiment_name": lambda: params(plugin.experiments),
            "slow_experiment_name": lambda: params(plugin.experiments, slow_all=True),
        }
        for argument, make in wanted.items():
            if argument in metafunc.fixturenames:
                metafunc.parametrize(
                    argument,
                    make() or [pytest.param(None, marks=pytest.mark.skip(reason="none declared"))],  # type: ignore[no-untyped-call]
                )
        if "estimator_check" in metafunc.fixturenames:  # one skip, not one per check, when there is none
            metafunc.parametrize("estimator_check", ESTIMATOR_CHECKS if plugin.estimators else ["-"])

    @pytest.fixture
    def host(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginHost]:
        """A fresh home and a host with only this plugin registered."""
        if type(self).plugin is None:
            raise NotImplementedError("set plugin = <your paperzoo.Plugin> in the contract subclass")
        monkeypatch.setenv("PAPERZOO_HOME", str(tmp_path / "home"))
        host = PluginHost(entry_points=False)
        record = host.register(self.plugin)
        assert record.state == "loaded", record.status
        reset_host(host)
        try:
            yield host
        finally:
            reset_host(None)
        failed = [r for r in host.records() if r.state == "failed"]
        assert not failed, f"plugin failed: {failed[0].status}"

    # ------------------------------------------------------------------ plugin

    def test_plugin_module_imports_nothing_heavy(self) -> None:
        module = self.plugin.module
        code = (
            f"import sys, json, {module}; "
            f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY_MODULES)!r})))"
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        heavy = json.loads(out.stdout.strip().splitlines()[-1])
        assert heavy == [], f"importing {module} imported {', '.join(heavy)}; import them inside the targets"

    def test_registers_exactly_what_it_declares(self, host: PluginHost) -> None:
        for kind, specs in self.plugin.specs().items():
            registered = sorted(s.name for s in getattr(host, kind) if s.plugin == self.plugin.id)
            assert registered == sorted(s.name for s in specs), f"{kind} registered differ from the manifest"

    def test_every_estimator_has_an_example(self) -> None:
        missing = []
        for spec in self.plugin.estimators:
            try:
                example = self.estimator_example(_short(self.plugin, spec))
            except NotImplementedError:
                missing.append(spec.name)
                continue
            assert isinstance(example, Example), f"estimator_example({spec.name!r}) must return an Example"
            assert isinstance(example.estimator, spec.load()), (
                f"estimator_example({spec.name!r}) returned a {type(example.estimator).__name__}"
            )
        assert not missing, (
            f"no contract example for {', '.join(missing)}: return one from estimator_example()"
        )

    def test_target_loads_and_has_its_verbs(self, any_spec: tuple[str, str], host: PluginHost) -> None:
        kind, name = any_spec
        spec = getattr(host, kind).get(name)
        target = spec.load()
        assert callable(target), f"{spec.name}: target {spec.target} is not callable"
        if isinstance(spec, EstimatorSpec):
            for verb in (*spec.verbs, "get_params", "set_params"):
                assert callable(getattr(target, verb, None)), f"{spec.name}: {spec.target} has no {verb}()"

    # -------------------------------------------------------------- estimators

    def test_estimator_contract(self, estimator_name: str, estimator_check: str) -> None:
        spec = next(s for s in self.plugin.estimators if s.name == estimator_name)
        if "fit" not in spec.verbs and estimator_check not in _FIT_FREE_CHECKS:
            pytest.skip(f"{estimator_name} is registered with verbs {spec.verbs}, not fit")
        name = _short(self.plugin, spec)
        case = _EstimatorCase(lambda: self.estimator_example(name))
        getattr(case, estimator_check)()

    # ---------------------------------------------------------------- datasets

    def test_dataset_declares_provenance(self, dataset_name: str, host: PluginHost) -> None:
        spec: DatasetSpec = host.datasets.get(dataset_name)
        assert spec.summary, "dataset has no summary"
        assert spec.license, "dataset declares no licence"
        assert spec.homepage or spec.citation, "dataset declares neither homepage nor citation"
        for file in spec.files:
            assert file.url.startswith(("https://", "http://")), f"{file.path}: no download URL"
            assert "example" not in file.url.split("/")[2], f"{file.path}: placeholder URL {file.url}"

    def test_dataset_loads_twice_identically(self, dataset_name: str, host: PluginHost) -> None:
        spec = host.datasets.get(dataset_name)
        _skip_without_files(spec)
        options = self.dataset_options(_short(self.plugin, spec))
        first = host.load_dataset(dataset_name, **options)
        second = host.load_dataset(dataset_name, **options)
        assert first is not None
        _assert_same(_comparable(first), _comparable(second), "loaded dataset")

    def test_dataset_offline_without_files_fails_clearly(
        self, dataset_name: str, host: PluginHost, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        spec = host.datasets.get(dataset_name)
        if not spec.files:
            pytest.skip("dataset reads no files")
        monkeypatch.setenv("PAPERZOO_DATA_MIRROR", "")
        monkeypatch.setenv("PAPERZOO_OFFLINE", "1")
        with pytest.raises(DataError) as info:
            host.load_dataset(dataset_name, **self.dataset_options(_short(self.plugin, spec)))
        assert any(f.url in str(info.value) for f in spec.files), "error does not name the URL"

    # ------------------------------------------------------------- experiments

    def test_experiment_scales_are_valid_and_serialisable(
        self, experiment_name: str, host: PluginHost
    ) -> None:
        spec: ExperimentSpec = host.experiments.get(experiment_name)
        assert spec.summary, "experiment has no summary"
        for scale in SCALES:
            json.dumps(spec.settings_for(scale), allow_nan=False)
        assert spec.scales.get("smoke") or not spec.settings, (
            "smoke is the default scale: declare smoke overrides"
        )

    def test_experiment_refuses_bad_numbers_before_a_run_exists(
        self, experiment_name: str, host: PluginHost, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        from paperzoo.cli import main

        spec: ExperimentSpec = host.experiments.get(experiment_name)
        home = tmp_path / "home"
        for key, setting in spec.constraints.items():
            if setting.kind not in ("int", "float") or setting.choices is not None:
                continue
            assert setting.low is not None, (
                f"{spec.name}: numeric setting {key!r} declares no lower bound; give Setting(low=...)"
            )
            for raw in BAD_NUMBERS:
                if _allowed(setting, raw):
                    continue
                with pytest.raises(SystemExit) as exit_:
                    main(["run", spec.name, "--set", f"{key}={raw}"])
                err = capsys.readouterr().err
                assert exit_.value.code == 2, f"--set {key}={raw}: exit {exit_.value.code}\n{err}"
                errors = [line for line in err.splitlines() if line.startswith("Error:")]
                assert len(errors) == 1, f"--set {key}={raw}: not one Error line: {err!r}"
                assert key in errors[0], f"--set {key}={raw}: the error does not name {key}: {err!r}"
                assert not (home / "runs").exists() or not any((home / "runs").iterdir()), (
                    "a run directory exists"
                )
                assert not ResultsStore(home / "results.sqlite").runs(), "a store row exists"

    def test_experiment_smoke_run(self, experiment_name: str, host: PluginHost) -> None:
        spec: ExperimentSpec = host.experiments.get(experiment_name)
        for dataset in spec.datasets:
            _skip_without_files(_dataset(host, dataset))
        outcome = execute(
            RunRequest(spec.name, "smoke", 0, overrides=spec.test_scale), host=host, reraise=True
        )
        check_recorded_run(outcome)

    def test_experiment_is_reproducible(self, slow_experiment_name: str, host: PluginHost) -> None:
        spec: ExperimentSpec = host.experiments.get(slow_experiment_name)
        for dataset in spec.datasets:
            _skip_without_files(_dataset(host, dataset))
        rows = []
        for _ in range(2):
            outcome = execute(
                RunRequest(spec.name, "smoke", 1, overrides=spec.test_scale), host=host, reraise=True
            )
            assert outcome.result is not None
            rows.append(
                [(r.metric, r.setting, r.value) for r in outcome.result.rows if r.unit not in MEASURED_UNITS]
            )
        assert rows[0] == rows[1], "two runs with the same seed gave different numbers"


def _allowed(setting: Setting, raw: str) -> bool:
    """Whether ``paperzoo run --set key=raw`` is a value ``setting`` admits."""
    if raw == "none":
        return setting.allow_none
    value = float(raw)
    if math.isnan(value):
        return False
    try:
        setting.check(
            "x", int(value) if setting.kind == "int" and math.isfinite(value) else value, context={}
        )
    except Exception:
        return False
    return setting.kind == "float" or math.isfinite(value)


def _dataset(host: PluginHost, name: str) -> DatasetSpec:
    """The dataset ``name``, from this plugin or, for another plugin's, from the installed ones."""
    return host.datasets.get(name) if name in host.datasets else PluginHost().datasets.get(name)


def _skip_without_files(spec: DatasetSpec) -> None:
    from paperzoo.data import locate_unverified

    if any(locate_unverified(f) is None for f in spec.files):
        pytest.skip(f"files of {spec.name} are not available locally (set PAPERZOO_DATA_MIRROR)")
