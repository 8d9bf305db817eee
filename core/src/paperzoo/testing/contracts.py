"""Contract suites that plugin test suites subclass.

Each contract is a plain class whose ``test_*`` methods pytest collects when you
subclass it as ``Test...``. They check the rules every paperzoo component must
follow, so that third-party plugins are held to the same standard as ours.
"""

from __future__ import annotations

import copy
import math
import pickle
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from paperzoo.base import clone
from paperzoo.errors import ConfigError, DataError
from paperzoo.host import PluginHost, reset_host
from paperzoo.results import Result
from paperzoo.runs import RunOutcome, RunRequest, execute
from paperzoo.specs import SCALES, DatasetSpec, ExperimentSpec
from paperzoo.store import ResultsStore

__all__ = ["DatasetContract", "EstimatorContract", "ExperimentContract"]


def _snapshot(value: Any) -> Any:
    """A deep copy of numpy/scipy/plain inputs, to detect mutation."""
    return copy.deepcopy(value)


def _assert_same(a: Any, b: Any, path: str = "value") -> None:
    """Equality for nested arrays, sparse matrices, numbers and containers."""
    if hasattr(a, "toarray") and hasattr(b, "toarray"):
        np.testing.assert_allclose(a.toarray(), b.toarray(), err_msg=path)
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), err_msg=path)
    elif isinstance(a, Mapping) and isinstance(b, Mapping):
        assert set(a) == set(b), f"{path}: keys differ"
        for key in a:
            _assert_same(a[key], b[key], f"{path}[{key!r}]")
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        assert len(a) == len(b), f"{path}: lengths differ"
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return
    elif type(a) is type(b) and getattr(type(a), "__eq__", None) is object.__eq__ and hasattr(a, "__dict__"):
        _assert_same(vars(a), vars(b), path)  # no __eq__ (e.g. a deep-copied scorer): compare state
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"


def _fitted_attributes(estimator: Any) -> dict[str, Any]:
    return {k: v for k, v in vars(estimator).items() if k.endswith("_") and not k.startswith("_")}


def _params_equal(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    try:
        _assert_same(dict(a), dict(b))
    except AssertionError:
        return False
    return True


def check_recorded_run(outcome: RunOutcome) -> None:
    """A run succeeded with rows and left config.json, result.json, its artifacts and a store record."""
    assert outcome.ok, outcome.error
    result = outcome.result
    assert isinstance(result, Result)
    assert result.rows, "the result has no rows"
    run_dir = Path(outcome.dir)
    assert (run_dir / "config.json").is_file()
    assert (run_dir / "result.json").is_file()
    for artifact in result.artifacts:
        assert (run_dir / artifact.path).is_file(), f"artifact {artifact.path} was not written"
    record = ResultsStore(run_dir.parent.parent / "results.sqlite").get(outcome.run_id)
    assert record.status == "succeeded"


class EstimatorContract:
    """scikit-learn's estimator rules, checked on your estimator.

    Define :meth:`make_estimator` and :meth:`fit_args`; override
    :meth:`fitted_output` if the fitted attributes are not plain arrays/numbers.
    Set ``deterministic = False`` for estimators whose fit is random even with
    fixed parameters.
    """

    deterministic: ClassVar[bool] = True

    def make_estimator(self) -> Any:
        """An unfitted estimator with non-default parameters where possible."""
        raise NotImplementedError("define make_estimator() in your contract subclass")

    def fit_args(self) -> tuple[Any, ...]:
        """Positional arguments for ``fit`` (small data: the suite fits several times)."""
        raise NotImplementedError("define fit_args() in your contract subclass")

    def fit_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``fit``."""
        return {}

    def fitted_output(self, estimator: Any) -> Any:
        """What must be equal between equivalent fitted estimators."""
        return {k: v for k, v in _fitted_attributes(estimator).items() if not callable(v)}

    def _fit(self, estimator: Any) -> Any:
        return estimator.fit(*self.fit_args(), **self.fit_kwargs())

    def test_params_come_from_init_signature(self) -> None:
        estimator = self.make_estimator()
        names = set(estimator.get_params(deep=False))
        for name in names:
            assert hasattr(estimator, name), f"__init__ does not store parameter {name!r}"

    def test_init_stores_params_unchanged(self) -> None:
        estimator = self.make_estimator()
        params = estimator.get_params(deep=False)
        rebuilt = type(estimator)(**params)
        for name, value in params.items():
            assert rebuilt.get_params(deep=False)[name] is value, (
                f"__init__ changes parameter {name!r}; store it as given and validate in fit"
            )

    def test_init_does_no_work(self) -> None:
        estimator = self.make_estimator()
        assert not _fitted_attributes(estimator), (
            f"fitted attributes {sorted(_fitted_attributes(estimator))} exist before fit"
        )

    def test_set_params_returns_self_and_sets(self) -> None:
        estimator = self.make_estimator()
        params = estimator.get_params(deep=False)
        assert estimator.set_params(**params) is estimator
        assert _params_equal(estimator.get_params(deep=False), params)

    def test_set_params_rejects_unknown_name(self) -> None:
        estimator = self.make_estimator()
        with pytest.raises((ConfigError, ValueError)):
            estimator.set_params(no_such_parameter_xyz=1)

    def test_fit_returns_self(self) -> None:
        estimator = self.make_estimator()
        assert self._fit(estimator) is estimator

    def test_fit_creates_underscore_attributes(self) -> None:
        estimator = self._fit(self.make_estimator())
        assert _fitted_attributes(estimator), "fit stored no attribute ending in '_'"

    def test_fit_does_not_change_params(self) -> None:
        estimator = self.make_estimator()
        before = clone(estimator).get_params(deep=False)
        self._fit(estimator)
        assert _params_equal(estimator.get_params(deep=False), before), "fit modified a parameter"

    def test_fit_does_not_mutate_inputs(self) -> None:
        args = self.fit_args()
        before = _snapshot(args)
        self.make_estimator().fit(*args, **self.fit_kwargs())
        _assert_same(args, before, "fit arguments")

    def test_clone_is_unfitted_with_same_params(self) -> None:
        estimator = self._fit(self.make_estimator())
        copy_ = clone(estimator)
        assert copy_ is not estimator
        assert not _fitted_attributes(copy_), "clone kept fitted state"
        assert _params_equal(copy_.get_params(deep=False), estimator.get_params(deep=False))

    def test_refit_is_reproducible(self) -> None:
        if not self.deterministic:
            pytest.skip("estimator declared non-deterministic")
        first = self.fitted_output(self._fit(self.make_estimator()))
        second = self.fitted_output(self._fit(self.make_estimator()))
        _assert_same(first, second, "fitted state")

    def test_pickle_roundtrip_keeps_fitted_state(self) -> None:
        estimator = self._fit(self.make_estimator())
        restored = pickle.loads(pickle.dumps(estimator))
        _assert_same(self.fitted_output(restored), self.fitted_output(estimator), "fitted state")

    def test_repr_is_a_string(self) -> None:
        text = repr(self.make_estimator())
        assert isinstance(text, str)
        assert type(self.make_estimator()).__name__ in text


class _PluginContract:
    """Shared set-up: a fresh home and a host with only ``plugin`` registered."""

    plugin: ClassVar[Any] = None

    @pytest.fixture
    def host(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[PluginHost]:
        if self.plugin is None:
            raise NotImplementedError("set plugin = <your plugin module> in the contract subclass")
        monkeypatch.setenv("PAPERZOO_HOME", str(tmp_path / "home"))
        host = PluginHost(entry_points=False)
        record = host.register(self.plugin, name="plugin-under-test")
        assert record.state == "loaded", record.status
        reset_host(host)
        try:
            yield host
        finally:
            reset_host(None)
        failed = [r for r in host.records() if r.state == "failed"]
        assert not failed, f"plugin failed: {failed[0].status}"


class DatasetContract(_PluginContract):
    """Provenance and loading rules for a registered dataset.

    Set ``plugin`` (your plugin module) and ``dataset`` (the registered name);
    ``load_options`` are passed to the loader.
    """

    dataset: ClassVar[str] = ""
    load_options: ClassVar[dict[str, Any]] = {}

    def _spec(self, host: PluginHost) -> DatasetSpec:
        return host.datasets.get(self.dataset)

    def test_declares_provenance(self, host: PluginHost) -> None:
        spec = self._spec(host)
        assert spec.summary, "dataset has no summary"
        assert spec.license, "dataset declares no licence"
        assert spec.homepage or spec.citation, "dataset declares neither homepage nor citation"

    def test_files_have_real_download_urls(self, host: PluginHost) -> None:
        spec = self._spec(host)
        for file in spec.files:
            assert file.url.startswith(("https://", "http://")), f"{file.path}: no download URL"
            assert "example" not in file.url.split("/")[2], f"{file.path}: placeholder URL {file.url}"

    def test_loads_twice_identically(self, host: PluginHost) -> None:
        from paperzoo.data import locate_unverified

        spec = self._spec(host)
        if any(locate_unverified(f) is None for f in spec.files):
            pytest.skip("dataset files are not available locally (set PAPERZOO_DATA_MIRROR)")
        first = host.load_dataset(self.dataset, **self.load_options)
        second = host.load_dataset(self.dataset, **self.load_options)
        assert first is not None
        _assert_same(_comparable(first), _comparable(second), "loaded dataset")

    def test_offline_without_files_fails_clearly(
        self, host: PluginHost, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        spec = self._spec(host)
        if not spec.files:
            pytest.skip("dataset reads no files")
        monkeypatch.setenv("PAPERZOO_DATA_MIRROR", "")
        monkeypatch.setenv("PAPERZOO_OFFLINE", "1")
        with pytest.raises(DataError) as info:
            host.load_dataset(self.dataset, **self.load_options)
        assert any(f.url in str(info.value) for f in spec.files), "error does not name the URL"


def _comparable(obj: Any) -> Any:
    """Turn a dataclass or object with ``__dict__`` into a mapping for comparison."""
    if hasattr(obj, "__dataclass_fields__"):
        return {k: _comparable(getattr(obj, k)) for k in obj.__dataclass_fields__}
    if isinstance(obj, tuple):
        return tuple(_comparable(x) for x in obj)
    if hasattr(obj, "to_numpy") and hasattr(obj, "columns"):  # a pandas frame
        return {"columns": list(obj.columns), "values": obj.to_numpy()}
    return obj


class ExperimentContract(_PluginContract):
    """Rules for a registered experiment, checked by running it at ``smoke`` scale.

    Set ``plugin`` and ``experiment``; ``smoke_overrides`` shrink the smoke run
    further for the test suite (keep it to a few seconds). Rows whose unit is
    ``"s"`` (timings) are exempt from the reproducibility check.
    """

    experiment: ClassVar[str] = ""
    smoke_overrides: ClassVar[dict[str, Any]] = {}
    check_reproducible: ClassVar[bool] = True

    def _spec(self, host: PluginHost) -> ExperimentSpec:
        return host.experiments.get(self.experiment)

    def _run(self, host: PluginHost, seed: int = 0) -> RunOutcome:
        request = RunRequest(self.experiment, "smoke", seed, overrides=self.smoke_overrides)
        return execute(request, host=host, reraise=True)

    def test_declares_serialisable_settings_for_every_scale(self, host: PluginHost) -> None:
        import json

        spec = self._spec(host)
        assert spec.summary, "experiment has no summary"
        for scale in SCALES:
            try:
                json.dumps(spec.settings_for(scale), allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise AssertionError(
                    f"settings at scale {scale!r} cannot be written to config.json: {exc}"
                ) from exc
        assert spec.scales.get("smoke") or not spec.settings or spec.scales.get("paper"), (
            "smoke and paper scales are identical to default: declare scale overrides"
        )

    def test_smoke_run_records_a_result(self, host: PluginHost) -> None:
        check_recorded_run(self._run(host))

    def test_same_seed_gives_same_numbers(self, host: PluginHost) -> None:
        if not self.check_reproducible:
            pytest.skip("experiment declared not reproducible")
        a, b = self._run(host, seed=1), self._run(host, seed=1)
        assert a.result is not None
        assert b.result is not None
        rows_a = [(r.metric, r.setting, r.value) for r in a.result.rows if r.unit != "s"]
        rows_b = [(r.metric, r.setting, r.value) for r in b.result.rows if r.unit != "s"]
        assert rows_a == rows_b, "two runs with the same seed gave different numbers"
