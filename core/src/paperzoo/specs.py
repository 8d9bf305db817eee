"""Spec objects: what a plugin registers.

A spec names a thing and points at it with a lazy ``target = "module:attr"``
string, so that listing what is available never imports a plugin's heavy modules
(torch, jax, ...). ``spec.load()`` imports the target on first use.

>>> ExperimentSpec(
...     name="demo.sweep",
...     target="paperzoo_demo.experiments:sweep",
...     summary="Accuracy against n (Figure 2).",
...     settings={"n": 1000, "method": "ours"},
...     scales={"smoke": {"n": 50}, "paper": {"n": 100_000}},
... ).settings_for("smoke")
{'n': 50, 'method': 'ours'}
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

from paperzoo.data import DataFile
from paperzoo.errors import ConfigError, PluginError
from paperzoo.references import as_references
from paperzoo.settings import Setting, as_setting, check_values

__all__ = [
    "MAX_SEED",
    "SCALES",
    "DatasetSpec",
    "EstimatorSpec",
    "ExperimentSpec",
    "MetricSpec",
    "PluginInfo",
    "Spec",
    "load_target",
]

Scale = Literal["smoke", "default", "paper"]
SCALES: tuple[str, ...] = ("smoke", "default", "paper")
"""Experiment scales: ``smoke`` ≤ 1 min on 2 CPU cores, ``default`` ≤ 10 min,
``paper`` = the paper's own setting."""

MAX_SEED = 2**63 - 1
"""Largest seed (SQLite stores seeds as 64-bit integers)."""

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.\-]*$")
_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def load_target(target: str) -> Any:
    """Import ``"package.module:attr.sub"`` and return the attribute.

    Raises:
        PluginError: the module or attribute does not exist (or fails to import).
    """
    module_name, _, attr_path = target.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr_path.split("."):
            obj = getattr(obj, part)
    except Exception as exc:  # the plugin's fault, reported as such
        raise PluginError(
            f"cannot load {target!r}: {type(exc).__name__}: {exc}",
            hint="reinstall the plugin that registered it, or report a bug to its authors",
        ) from exc
    return obj


def _check_name_and_target(kind: str, name: str, target: str) -> None:
    if not _NAME.match(name):
        raise ConfigError(
            f"invalid {kind} name {name!r}",
            hint="use lowercase letters, digits, '.', '-' and '_', e.g. 'revdiv.synthetic'",
        )
    if not _TARGET.match(target):
        raise ConfigError(
            f"{kind} {name!r} has invalid target {target!r}",
            hint="targets are 'package.module:attribute'",
        )


@dataclass(frozen=True)
class PluginInfo:
    """What a plugin says about itself (returned by ``paperzoo_plugin_info``).

    Attributes:
        id: Short identifier, the ``<id>`` of ``paperzoo-<id>``.
        framework: ``"numpy"``, ``"torch"``, ``"jax"`` or ``"python"``.
        paper: Title of the paper the plugin implements ("" for a non-paper plugin).
        venue: Where it appeared, e.g. ``"ICML 2025"``.
        url: Link to the paper or the plugin's documentation.
    """

    id: str
    framework: str = "python"
    paper: str = ""
    venue: str = ""
    url: str = ""


@dataclass(frozen=True)
class Spec:
    """Fields every spec has. ``name``, ``target`` and ``summary`` may be given
    positionally; everything else is keyword-only.

    Attributes:
        name: Unique name across all plugins, conventionally ``"<plugin-id>.<thing>"``.
        target: ``"module:attr"`` that :meth:`load` imports lazily.
        summary: One line for listings.
        plugin: The plugin that registered it (filled in by the registrar).
    """

    name: str
    target: str
    summary: str = ""
    plugin: str = field(default="", kw_only=True)

    _kind = "spec"

    def __post_init__(self) -> None:
        _check_name_and_target(self._kind, self.name, self.target)

    def load(self) -> Any:
        """Import and return the target object."""
        return load_target(self.target)

    def with_plugin(self, plugin: str) -> Spec:
        """Return a copy attributed to ``plugin``."""
        return replace(self, plugin=plugin)

    def describe(self) -> dict[str, Any]:
        """Plain-data description for ``paperzoo info`` and ``--json``."""
        out: dict[str, Any] = {"kind": self._kind}
        for key, value in self.__dict__.items():
            if isinstance(value, Mapping):
                value = {k: dict(v) if isinstance(v, Mapping) else v for k, v in value.items()}
            elif isinstance(value, tuple):
                value = [v.describe() if hasattr(v, "describe") else v for v in value]
            out[key] = value
        return out


@dataclass(frozen=True, kw_only=True)
class EstimatorSpec(Spec):
    """An estimator class following scikit-learn's conventions.

    Attributes:
        framework: ``"numpy"``, ``"torch"``, ``"jax"``... (what importing it costs).
        verbs: The methods it is used through. An estimator has ``fit``; a
            component that follows the parameter rules but is not fitted (a
            zero-shot forecaster, say) is registered with its own verbs, e.g.
            ``("forecast",)``, and is held to the parameter rules only.
    """

    framework: str = "numpy"
    verbs: tuple[str, ...] = ("fit",)
    _kind = "estimator"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "verbs", tuple(self.verbs))


@dataclass(frozen=True, kw_only=True)
class MetricSpec(Spec):
    """A metric function over arrays.

    Attributes:
        formula: The formula, as in the docstring (plain text or LaTeX).
        greater_is_better: Direction, when it has one.
    """

    formula: str = ""
    greater_is_better: bool | None = None
    _kind = "metric"


@dataclass(frozen=True, kw_only=True)
class DatasetSpec(Spec):
    """A named dataset loader and its provenance.

    The target is a loader ``load(**options)`` returning plain objects (arrays, a
    sparse matrix, a frame or a small dataclass). ``files`` lists what it reads, so
    that ``paperzoo data fetch|verify`` work without importing the loader.

    Attributes:
        files: The files the loader needs, with real URLs and sha256 checksums.
        homepage: Where the dataset is described.
        license: Its licence.
        citation: How to cite it.
    """

    files: tuple[DataFile, ...] = ()
    homepage: str = ""
    license: str = ""
    citation: str = ""
    _kind = "dataset"

    @property
    def size(self) -> int | None:
        """Total size in bytes of the files, when every file declares one."""
        sizes = [f.size for f in self.files]
        return None if any(s is None for s in sizes) else sum(s for s in sizes if s is not None)


@dataclass(frozen=True, kw_only=True)
class ExperimentSpec(Spec):
    """A runnable reproduction of one of the paper's tables or figures.

    The target is a function ``experiment(run: paperzoo.Run) -> paperzoo.Result``.
    It reads its settings from ``run.settings`` (already checked) and its seed
    from ``run.seed``.

    Attributes:
        settings: Every setting with its ``default``-scale value, plain or as a
            :class:`~paperzoo.settings.Setting` with constraints. This is the schema:
            ``--set key=value`` may only name these keys, values are coerced to the
            type of the default, and every value is checked before a run exists.
            After construction, ``settings`` maps each name to its default and
            ``constraints`` to its :class:`~paperzoo.settings.Setting`.
        scales: Per-scale overrides for ``smoke`` and ``paper`` (and ``default`` if
            needed). ``smoke`` must finish in under a minute on 2 CPU cores.
        reproduces: What of the paper it reproduces, e.g. ``"Table 2"``.
        references: Reference values by metric name (``{"RCRPS": Ref(0.605,
            "Table 1", setting="forecaster=ets")}``); a result row without a
            ``paper`` value gets the first matching one.
        test_scale: Overrides of the ``smoke`` settings for the contract tests
            (seconds, not a minute).
        datasets: Names of the datasets it reads (their plugin-local or full
            names); the contract tests skip it when their files are absent.
    """

    settings: Mapping[str, Any] = field(default_factory=dict)
    scales: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    reproduces: str = ""
    references: Any = ()
    test_scale: Mapping[str, Any] = field(default_factory=dict)
    datasets: tuple[str, ...] = ()
    constraints: Mapping[str, Setting] = field(default_factory=dict, init=False, compare=False)
    _kind = "experiment"

    def __post_init__(self) -> None:
        super().__post_init__()
        constraints = {key: as_setting(value) for key, value in self.settings.items()}
        object.__setattr__(self, "constraints", MappingProxyType(constraints))
        object.__setattr__(self, "settings", MappingProxyType({k: c.default for k, c in constraints.items()}))
        references = self.references
        if isinstance(references, Mapping):
            references = as_references(references)
        object.__setattr__(self, "references", tuple(references))
        object.__setattr__(self, "datasets", tuple(self.datasets))
        for scale, overrides in self.scales.items():
            if scale not in SCALES:
                raise ConfigError(
                    f"experiment {self.name!r} declares unknown scale {scale!r}",
                    hint=f"scales are {', '.join(SCALES)}",
                )
            self._check_keys(f"scale {scale!r}", overrides)
        self._check_keys("test_scale", self.test_scale)
        object.__setattr__(
            self,
            "scales",
            MappingProxyType({k: MappingProxyType(dict(v)) for k, v in self.scales.items()}),
        )
        object.__setattr__(self, "test_scale", MappingProxyType(dict(self.test_scale)))
        for scale in SCALES:  # a plugin whose own values are invalid fails to load, with the reason
            self.settings_for(scale)
        self.settings_for("smoke", self.test_scale)

    def with_plugin(self, plugin: str) -> ExperimentSpec:
        """Return a copy attributed to ``plugin`` (constraints kept)."""
        return replace(self, plugin=plugin, settings=dict(self.constraints))

    def _check_keys(self, what: str, overrides: Mapping[str, Any]) -> None:
        unknown = sorted(set(overrides) - set(self.settings))
        if unknown:
            raise ConfigError(
                f"experiment {self.name!r}: {what} overrides undeclared settings {', '.join(unknown)}",
                hint="declare every setting with its default in settings=",
            )

    def settings_for(self, scale: str, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Settings at ``scale`` with ``overrides``, each checked against its constraint.

        Raises:
            ConfigError: unknown scale or setting, or a value that is not allowed
                (one line naming the setting, the value and what is allowed).
        """
        if scale not in SCALES:
            raise ConfigError(f"unknown scale {scale!r}", hint=f"use one of {', '.join(SCALES)}")
        overrides = overrides or {}
        unknown = sorted(set(overrides) - set(self.settings))
        if unknown:
            raise ConfigError(
                f"unknown setting {unknown[0]!r} of {self.name}",
                hint=f"settings are: {', '.join(sorted(self.settings)) or '(none)'}",
            )
        values = {**self.settings, **self.scales.get(scale, {}), **overrides}
        return check_values(values, self.constraints, owner=self.name)

    def describe(self) -> dict[str, Any]:
        """Plain data: settings (defaults), their constraints, scales and references."""
        out = super().describe()
        out["constraints"] = {key: c.describe() for key, c in self.constraints.items()}
        out["references"] = [ref.describe() for ref in self.references]
        return out
