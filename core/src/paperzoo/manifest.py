"""``paperzoo.Plugin``: a plugin declared in one place.

A plugin package's ``plugin.py`` builds one :class:`Plugin` and its entry point
names it (``revdiv = "paperzoo_revdiv.plugin:plugin"``)::

    from paperzoo import Plugin, Ref, Setting

    plugin = Plugin("revdiv", framework="numpy", paper="Fraud-Proof Revenue Division ...",
                    venue="ICML 2025", url="https://arxiv.org/abs/2511.04465")
    plugin.estimator("scaled-user-prop", ".rules:ScaledUserProp", "The paper's rule.")
    plugin.experiment(
        "synthetic", ".experiments:synthetic", "Relative PPS as α varies.",
        settings={"n_users": Setting(10_000, low=1), "alpha": Setting(0.5, low=0, high=1)},
        scales={"smoke": {"n_users": 2_000}},
        references={"top-10 PPS": Ref(1.8, "Figure 1(c)")},
        test_scale={"n_users": 300},
    )

Names are prefixed with the plugin id (``revdiv.scaled-user-prop``) and targets
starting with ``.`` are relative to the plugin's package, so each is written
once. The object's ``paperzoo_*`` methods are ordinary pluggy hookimpls, so the
hooks stay the contract: a plugin may add hooks of its own with
:meth:`Plugin.hook`, and plugins written as plain modules of hookimpls keep
working. Building the manifest imports nothing of the plugin's own modules.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from paperzoo.data import DataFile
from paperzoo.errors import ConfigError
from paperzoo.hookspecs import hookimpl
from paperzoo.references import Ref
from paperzoo.specs import DatasetSpec, EstimatorSpec, ExperimentSpec, MetricSpec, PluginInfo, Spec

__all__ = ["Plugin"]

F = TypeVar("F", bound=Callable[..., Any])


class Plugin:
    """A plugin's declaration: its identity, what it registers, and any extra hooks.

    Args:
        id: The plugin id, the ``<id>`` of ``paperzoo-<id>``; prefixes every name.
        framework: ``"numpy"``, ``"torch"``, ``"jax"`` or ``"python"``.
        paper: Title of the paper ("" for shared and integration packages).
        venue: Where it appeared, e.g. ``"ICML 2025"``.
        url: The paper or the package's documentation.
        package: The package relative targets resolve in (default: the package of
            the module that creates the plugin).
    """

    def __init__(
        self,
        id: str,
        *,
        framework: str = "python",
        paper: str = "",
        venue: str = "",
        url: str = "",
        package: str | None = None,
    ) -> None:
        caller = sys._getframe(1).f_globals
        self.module: str = caller.get("__name__", "")
        """The module that declares the plugin (the entry point's module)."""
        if package is None:
            package = caller.get("__package__") or self.module.rpartition(".")[0]
        if not package:
            raise ConfigError(f"plugin {id!r}: cannot tell its package", hint="pass package='paperzoo_<id>'")
        self.info = PluginInfo(id=id, framework=framework, paper=paper, venue=venue, url=url)
        self.package = package
        self.estimators: list[EstimatorSpec] = []
        self.datasets: list[DatasetSpec] = []
        self.metrics: list[MetricSpec] = []
        self.experiments: list[ExperimentSpec] = []

    @property
    def id(self) -> str:
        """The plugin id."""
        return self.info.id

    @property
    def plugin_name(self) -> str:
        """The name the host registers it under (its id)."""
        return self.info.id

    def __repr__(self) -> str:
        counts = ", ".join(f"{len(v)} {k}" for k, v in self.specs().items() if v)
        return f"Plugin({self.id!r}{', ' + counts if counts else ''})"

    # ------------------------------------------------------------- declaring

    def _name(self, name: str) -> str:
        return name if name.startswith(f"{self.id}.") else f"{self.id}.{name}"

    def target(self, target: str) -> str:
        """``".rules:GlobalProp"`` → ``"paperzoo_revdiv.rules:GlobalProp"``; absolute targets pass."""
        return f"{self.package}{target}" if target.startswith(".") else target

    def _add(self, into: list[Any], spec: Spec) -> Spec:
        if any(s.name == spec.name for s in into):
            raise ConfigError(f"plugin {self.id!r} declares {spec._kind} {spec.name!r} twice")
        into.append(spec)
        return spec

    def estimator(
        self,
        name: str,
        target: str,
        summary: str = "",
        *,
        framework: str | None = None,
        verbs: Sequence[str] = ("fit",),
    ) -> EstimatorSpec:
        """Declare an estimator class (``verbs``: see :class:`~paperzoo.specs.EstimatorSpec`)."""
        spec = EstimatorSpec(
            self._name(name), self.target(target), summary,
            framework=framework or self.info.framework, verbs=tuple(verbs), plugin=self.id,
        )  # fmt: skip
        return self._add(self.estimators, spec)  # type: ignore[return-value]

    def dataset(
        self,
        name: str,
        target: str,
        summary: str = "",
        *,
        files: Sequence[DataFile] = (),
        homepage: str = "",
        license: str = "",
        citation: str = "",
    ) -> DatasetSpec:
        """Declare a dataset loader and its provenance."""
        spec = DatasetSpec(
            self._name(name), self.target(target), summary, files=tuple(files),
            homepage=homepage, license=license, citation=citation, plugin=self.id,
        )  # fmt: skip
        return self._add(self.datasets, spec)  # type: ignore[return-value]

    def metric(
        self,
        name: str,
        target: str,
        summary: str = "",
        *,
        formula: str = "",
        greater_is_better: bool | None = None,
    ) -> MetricSpec:
        """Declare a metric function."""
        spec = MetricSpec(
            self._name(name), self.target(target), summary,
            formula=formula, greater_is_better=greater_is_better, plugin=self.id,
        )  # fmt: skip
        return self._add(self.metrics, spec)  # type: ignore[return-value]

    def experiment(
        self,
        name: str,
        target: str,
        summary: str = "",
        *,
        settings: Mapping[str, Any] | None = None,
        scales: Mapping[str, Mapping[str, Any]] | None = None,
        references: Mapping[str, Ref | Sequence[Ref]] | None = None,
        test_scale: Mapping[str, Any] | None = None,
        datasets: Sequence[str] = (),
        reproduces: str = "",
    ) -> ExperimentSpec:
        """Declare an experiment (see :class:`~paperzoo.specs.ExperimentSpec` for the fields).

        ``datasets`` names this plugin's datasets without the prefix, another
        plugin's by its full name (``"graph.cora"``).

        Raises:
            ConfigError: a setting's own default or a scale's value breaks its
                constraint, or a scale names an undeclared setting.
        """
        spec = ExperimentSpec(
            self._name(name), self.target(target), summary,
            settings=settings or {}, scales=scales or {}, references=references or {},
            test_scale=test_scale or {}, datasets=tuple(d if "." in d else self._name(d) for d in datasets),
            reproduces=reproduces, plugin=self.id,
        )  # fmt: skip
        return self._add(self.experiments, spec)  # type: ignore[return-value]

    def hook(self, function: F | None = None, **options: Any) -> Any:
        """Add a raw hookimpl to this plugin: ``@plugin.hook`` or ``@plugin.hook(optionalhook=True)``.

        The function's name is the hook's (``paperzoo_register_commands``, or a
        hook another plugin adds, such as ``paperzoo_llm_backends``).
        """

        def add(fn: F) -> F:
            if not fn.__name__.startswith("paperzoo_"):
                raise ConfigError(f"@plugin.hook on {fn.__name__!r}: hook names start with 'paperzoo_'")
            setattr(self, fn.__name__, hookimpl(**options)(fn))
            return fn

        return add(function) if function is not None else add

    def specs(self) -> dict[str, list[Any]]:
        """Everything declared, by kind (``"estimators"``, ``"datasets"``, ...)."""
        return {"estimators": self.estimators, "datasets": self.datasets, "metrics": self.metrics,
                "experiments": self.experiments}  # fmt: skip

    # ----------------------------------------------------------- the hooks

    @hookimpl
    def paperzoo_plugin_info(self) -> PluginInfo:
        return self.info

    @hookimpl
    def paperzoo_register_estimators(self, register: Callable[[EstimatorSpec], None]) -> None:
        for spec in self.estimators:
            register(spec)

    @hookimpl
    def paperzoo_register_datasets(self, register: Callable[[DatasetSpec], None]) -> None:
        for spec in self.datasets:
            register(spec)

    @hookimpl
    def paperzoo_register_metrics(self, register: Callable[[MetricSpec], None]) -> None:
        for spec in self.metrics:
            register(spec)

    @hookimpl
    def paperzoo_register_experiments(self, register: Callable[[ExperimentSpec], None]) -> None:
        for spec in self.experiments:
            register(spec)
