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

__all__ = [
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
    """

    framework: str = "numpy"
    _kind = "estimator"


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
    It reads its settings from ``run.settings`` and its seed from ``run.seed``.

    Attributes:
        settings: Every setting with its ``default``-scale value. This is the schema:
            ``--set key=value`` may only name these keys, and values are coerced to
            the type of the default.
        scales: Per-scale overrides for ``smoke`` and ``paper`` (and ``default`` if
            needed). ``smoke`` must finish in under a minute on 2 CPU cores.
        reproduces: What of the paper it reproduces, e.g. ``"Table 2"``.
    """

    settings: Mapping[str, Any] = field(default_factory=dict)
    scales: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    reproduces: str = ""
    _kind = "experiment"

    def __post_init__(self) -> None:
        super().__post_init__()
        for scale, overrides in self.scales.items():
            if scale not in SCALES:
                raise ConfigError(
                    f"experiment {self.name!r} declares unknown scale {scale!r}",
                    hint=f"scales are {', '.join(SCALES)}",
                )
            unknown = sorted(set(overrides) - set(self.settings))
            if unknown:
                raise ConfigError(
                    f"experiment {self.name!r}: scale {scale!r} overrides undeclared "
                    f"settings {', '.join(unknown)}",
                    hint="declare every setting with its default in settings=",
                )
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))
        object.__setattr__(
            self,
            "scales",
            MappingProxyType({k: MappingProxyType(dict(v)) for k, v in self.scales.items()}),
        )

    def settings_for(self, scale: str) -> dict[str, Any]:
        """Settings at ``scale``: the defaults updated with that scale's overrides."""
        if scale not in SCALES:
            raise ConfigError(f"unknown scale {scale!r}", hint=f"use one of {', '.join(SCALES)}")
        return {**self.settings, **self.scales.get(scale, {})}
