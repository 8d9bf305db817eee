"""The plugin host: a pluggy manager, its plugins, registries and a typed facade.

One :class:`PluginHost` per process is enough (:func:`get_host`); tests build
their own with ``PluginHost(entry_points=False)`` and :meth:`PluginHost.register`
the plugins they need, so they never depend on what happens to be installed.

Plugins are loaded lazily, one at a time, the first time something needs them.
Whatever a plugin does wrong — fail to import, implement an unknown hook, raise in
a registration hook, register a duplicate name — marks *that* plugin
``failed: <reason>`` and withdraws what it registered; the others and the command
line carry on.
"""

from __future__ import annotations

import contextvars
import logging
import platform
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

import pluggy

from paperzoo import builtin, hookspecs
from paperzoo._version import __version__
from paperzoo.discovery import PluginEntry, disabled_reason, entries
from paperzoo.errors import ConfigError, DuplicateNameError, PaperzooError, UnknownNameError
from paperzoo.registry import Registrar, Registry, suggest
from paperzoo.specs import DatasetSpec, EstimatorSpec, ExperimentSpec, MetricSpec, PluginInfo, Spec

if TYPE_CHECKING:
    import click

    from paperzoo.executor import Executor
    from paperzoo.results import Result
    from paperzoo.runs import Run

__all__ = ["Hooks", "PluginHost", "PluginRecord", "activate", "current_host", "get_host", "reset_host"]

log = logging.getLogger("paperzoo")
S = TypeVar("S", bound=Spec)
BUILTIN = "paperzoo.builtin"


@dataclass
class PluginRecord:
    """What the host knows about one plugin.

    Attributes:
        name: Plugin name (entry-point name, or the name given to ``register``).
        module: Where it comes from, e.g. ``"paperzoo_revdiv.plugin"``.
        distribution: Distribution that installed it, if any.
        version: That distribution's version.
        state: ``"loaded"``, ``"failed"``, ``"disabled"`` or ``"pending"``.
        reason: Why it failed or is disabled.
        info: What the plugin said about itself.
    """

    name: str
    module: str
    distribution: str | None = None
    version: str | None = None
    state: str = "pending"
    reason: str | None = None
    info: PluginInfo | None = None

    @property
    def status(self) -> str:
        """``"loaded"``, ``"failed: <reason>"`` or ``"disabled (<reason>)"``."""
        if self.state == "failed":
            return f"failed: {self.reason}"
        if self.state == "disabled":
            return f"disabled ({self.reason})"
        return self.state

    def to_dict(self) -> dict[str, Any]:
        """Plain data for ``paperzoo plugins --json``."""
        info = self.info
        return {
            "id": info.id if info else self.name,
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "module": self.module,
            "framework": info.framework if info else None,
            "paper": info.paper if info else None,
            "venue": info.venue if info else None,
            "url": info.url if info else None,
            "status": self.status,
        }


class Hooks:
    """Typed facade over the hook relay (``pluginmanager.hook``).

    Lifecycle calls run each implementation separately: one that raises is
    reported once as a warning (logger ``paperzoo``) and the run goes on.
    First-result calls skip an implementation that raises (after the same
    warning), except for :class:`~paperzoo.PaperzooError`, which is the user's to see.
    """

    def __init__(self, host: PluginHost) -> None:
        self._host = host
        self._warned: set[tuple[str, str]] = set()

    def _lifecycle(self, hook_name: str, **kwargs: Any) -> None:
        for plugin, _, error in self._host.call_isolated(hook_name, kwargs):
            if error is not None:
                self._warn(plugin, hook_name, error)

    def _first_result(self, hook_name: str, **kwargs: Any) -> Any:
        """Ask implementations in pluggy's order until one returns non-``None``.

        A :class:`~paperzoo.PaperzooError` (a user error) propagates; any other
        exception is reported once and the next implementation is asked.
        """
        for plugin, value, error in self._host.call_isolated(hook_name, kwargs):
            if isinstance(error, PaperzooError):
                raise error
            if error is not None:
                self._warn(plugin, hook_name, error)
            elif value is not None:
                return value
        return None

    def _warn(self, plugin: str, hook_name: str, exc: Exception) -> None:
        if (plugin, hook_name) not in self._warned:
            self._warned.add((plugin, hook_name))
            log.warning(
                "plugin %s failed in %s: %s: %s (the run continues; further failures of "
                "this hook are not reported)",
                plugin,
                hook_name,
                type(exc).__name__,
                exc,
            )

    def on_run_start(self, *, run: Run) -> None:
        """Emit ``paperzoo_on_run_start``."""
        self._lifecycle("paperzoo_on_run_start", run=run)

    def on_step(self, *, run: Run, step: int, logs: Mapping[str, float]) -> None:
        """Emit ``paperzoo_on_step``."""
        self._lifecycle("paperzoo_on_step", run=run, step=step, logs=logs)

    def on_metric(self, *, run: Run, name: str, value: float, step: int | None) -> None:
        """Emit ``paperzoo_on_metric``."""
        self._lifecycle("paperzoo_on_metric", run=run, name=name, value=value, step=step)

    def on_artifact(self, *, run: Run, path: Path, kind: str) -> None:
        """Emit ``paperzoo_on_artifact``."""
        self._lifecycle("paperzoo_on_artifact", run=run, path=path, kind=kind)

    def on_run_end(self, *, run: Run, result: Result) -> None:
        """Emit ``paperzoo_on_run_end``."""
        self._lifecycle("paperzoo_on_run_end", run=run, result=result)

    def on_run_error(self, *, run: Run, error: BaseException) -> None:
        """Emit ``paperzoo_on_run_error``."""
        self._lifecycle("paperzoo_on_run_error", run=run, error=error)

    def executor(self, *, name: str, options: Mapping[str, Any]) -> Executor:
        """The executor called ``name`` (first plugin to provide it).

        Raises:
            ConfigError: no installed plugin provides it.
        """
        executor: Executor | None = self._first_result("paperzoo_executor", name=name, options=options)
        if executor is None:
            raise ConfigError(
                f"no executor called {name!r}",
                hint="'local' is built in; others come from plugins (e.g. pip install paperzoo-ray)",
            )
        return executor

    def resolve_data_path(self, *, name: str) -> Path | None:
        """Ask plugins where data file ``name`` is (first answer wins)."""
        found = self._first_result("paperzoo_resolve_data_path", name=name)
        try:
            return None if found is None else Path(found)
        except TypeError:
            log.warning("paperzoo_resolve_data_path returned %r for %s, not a path; ignored", found, name)
            return None

    def register_commands(self, *, cli: click.Group) -> list[str]:
        """Let each plugin add subcommands to ``cli``.

        A plugin that raises, or that replaces a command already there, is marked
        failed and the replaced command is restored.

        Returns:
            The names of the commands added.
        """
        before = dict(cli.commands)
        snapshot = dict(cli.commands)
        for plugin, _, error in self._host.call_isolated("paperzoo_register_commands", {"cli": cli}):
            replaced = sorted(n for n in snapshot if cli.commands.get(n) is not snapshot[n])
            if error is not None or replaced:
                reason = f"paperzoo_register_commands raised {_why(error)}" if error else ""
                self._host.fail(plugin, reason or f"replaces the command {replaced[0]!r}")
                cli.commands.clear()
                cli.commands.update(snapshot)
            snapshot = dict(cli.commands)
        return [name for name in cli.commands if name not in before]


class PluginHost:
    """A pluggy plugin manager with paperzoo's hookspecs, plugins and registries.

    Args:
        entry_points: Load the installed plugins (entry-point group
            ``paperzoo.plugins``) on first use. Tests pass ``False`` and register
            plugins explicitly.
    """

    def __init__(self, *, entry_points: bool = True) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.pm.register(builtin, name=BUILTIN)
        self.pm.hook.paperzoo_addhooks.call_historic(kwargs={"pluginmanager": self.pm})
        self.hooks = Hooks(self)
        self._records: dict[str, PluginRecord] = {}
        self._entry_points = entry_points
        self._loaded = False
        self._info_done = False
        self._registries: list[Registry[Any]] = []
        self._by_hook: dict[str, Registry[Any]] = {}
        self.estimators = self._registry("estimator", EstimatorSpec, "paperzoo_register_estimators")
        self.datasets = self._registry("dataset", DatasetSpec, "paperzoo_register_datasets")
        self.metrics = self._registry("metric", MetricSpec, "paperzoo_register_metrics")
        self.experiments = self._registry("experiment", ExperimentSpec, "paperzoo_register_experiments")

    # ------------------------------------------------------------------ plugins

    def register(self, plugin: object, name: str | None = None) -> PluginRecord:
        """Register an in-process plugin (a module or an object with hookimpls).

        Returns:
            Its record; ``state`` is ``"failed"`` if pluggy rejected it.
        """
        name = name or getattr(plugin, "plugin_name", None) or getattr(plugin, "__name__", None)
        name = name or type(plugin).__name__
        module = _module_of(plugin)
        record = PluginRecord(name=name, module=module)
        self._add(record, lambda: plugin)
        self._info_done = False
        for registry in self._registries:
            registry.reset()
        return record

    def load(self) -> None:
        """Load every enabled installed plugin, once, one at a time."""
        if self._loaded:
            return
        self._loaded = True
        if self._entry_points:
            for entry in entries():
                self._load_entry(entry)
        self._check_unknown_hooks()

    def _load_entry(self, entry: PluginEntry) -> None:
        record = PluginRecord(
            name=entry.name, module=entry.value, distribution=entry.distribution, version=entry.version
        )
        reason = disabled_reason(entry)
        if reason is not None:
            record.state, record.reason = "disabled", reason
            self._records[entry.name] = record
            return
        self._add(record, entry.load)

    def _add(self, record: PluginRecord, get: Callable[[], object]) -> None:
        if record.name in self._records or record.name == BUILTIN:
            record.state = "failed"
            record.reason = f"another plugin is already called {record.name!r}"
            self._records.setdefault(f"{record.name} ({record.module})", record)
            return
        self._records[record.name] = record
        try:
            self.pm.register(get(), name=record.name)
        except (Exception, SystemExit) as exc:  # a plugin calling sys.exit must not end the host
            record.state, record.reason = "failed", _why(exc)
            if self.pm.has_plugin(record.name):  # older pluggy leaves half-registered plugins
                self.pm.unregister(name=record.name)
            return
        record.state = "loaded"

    def _check_unknown_hooks(self) -> None:
        for caller_name, caller in vars(self.pm.hook).items():
            if not caller_name.startswith("paperzoo_") or caller.has_spec():
                continue
            for impl in caller.get_hookimpls():
                if not impl.opts.get("optionalhook"):
                    self.fail(
                        impl.plugin_name,
                        f"implements unknown hook {caller_name} (misspelt, or newer than this "
                        "paperzoo: upgrade it, or mark the hook optionalhook=True)",
                    )

    def _record_of(self, name: str) -> PluginRecord:
        """The record of ``name``; plugins registered by other plugins get one on first sight."""
        record = self._records.get(name)
        if record is None:
            module = _module_of(self.pm.get_plugin(name))
            record = self._records[name] = PluginRecord(name=name, module=module, state="loaded")
        return record

    def fail(self, name: str, reason: str) -> None:
        """Mark plugin ``name`` failed and withdraw its hooks and registrations."""
        record = self._record_of(name)
        if record.state == "failed":
            return
        record.state, record.reason = "failed", reason
        log.warning("plugin %s failed: %s", name, reason)
        plugin = self.pm.get_plugin(name)
        if plugin is not None:
            self.pm.unregister(plugin, name=name)
        for registry in self._registries:
            registry.discard(plugin=name)

    def records(self) -> list[PluginRecord]:
        """Every plugin the host knows of, sorted by name.

        Loads the plugins and runs every registration hook first, so that a plugin
        failing in any of them shows up as failed.
        """
        self.load()
        for registry in self._registries:
            len(registry)
        if not self._info_done:
            self._info_done = True
            for plugin_name, info in self.call_each("paperzoo_plugin_info"):
                if isinstance(info, PluginInfo):
                    self._record_of(plugin_name).info = info
                else:
                    self.fail(
                        plugin_name,
                        f"paperzoo_plugin_info returned {type(info).__name__}, not a PluginInfo",
                    )
        return [self._records[k] for k in sorted(self._records)]

    def record(self, name: str) -> PluginRecord:
        """The record of plugin ``name``.

        Raises:
            UnknownNameError: no such plugin.
        """
        records = {r.name: r for r in self.records()}
        if name not in records:
            raise UnknownNameError(
                f"no plugin {name!r}", hint=suggest(name, sorted(records)) or "see 'paperzoo plugins'"
            )
        return records[name]

    def call_each(self, hook_name: str, **kwargs: Any) -> Iterator[tuple[str, Any]]:
        """Call each implementation of ``hook_name`` separately, in pluggy's order.

        Yields:
            ``(plugin_name, return_value)`` per implementation that succeeded; an
            implementation that raises marks its plugin failed.
        """
        for plugin, value, error in self.call_isolated(hook_name, kwargs):
            if error is not None:
                self.fail(plugin, f"{hook_name} raised {_why(error)}")
            else:
                yield plugin, value

    def call_isolated(
        self, hook_name: str, kwargs: Mapping[str, Any] | Callable[[str], Mapping[str, Any]]
    ) -> Iterator[tuple[str, Any, Exception | None]]:
        """Call each plugin's implementation of ``hook_name`` on its own, in pluggy's order.

        Each call goes through pluggy (a subset caller holding that one plugin's
        implementation), so hook wrappers and hook-call monitoring
        (``pm.add_hookcall_monitoring``) see it as usual; what one plugin raises
        does not stop the others.

        Args:
            hook_name: The hook.
            kwargs: Its arguments, or a function of the plugin's name giving them
                (a registration hook hands each plugin its own ``register``).

        Yields:
            ``(plugin_name, value, None)`` per call that returned, and
            ``(plugin_name, None, exception)`` per call that raised.
        """
        self.load()
        caller = getattr(self.pm.hook, hook_name)
        impls = caller.get_hookimpls()
        plain = [i for i in impls if not (i.hookwrapper or i.wrapper)]
        for impl in reversed(plain):
            others = [i.plugin for i in plain if i is not impl]
            one = self.pm.subset_hook_caller(hook_name, remove_plugins=others) if others else caller
            try:
                value = one(**(kwargs(impl.plugin_name) if callable(kwargs) else kwargs))
            except Exception as exc:
                yield impl.plugin_name, None, exc
                continue
            if caller.spec is not None and not caller.spec.opts.get("firstresult"):
                value = value[0] if value else None
            yield impl.plugin_name, value, None

    # --------------------------------------------------------------- registries

    def registry(
        self, hook_name: str, spec_type: type[S], kind: str, *, listing: str | None = None
    ) -> Registry[S]:
        """The registry filled by registration hook ``hook_name``, created on first use.

        For registration hooks that plugins add with ``paperzoo_addhooks`` (such as
        ``paperzoo_llm_backends``): the hook is called per plugin with a ``register``
        callable, with the same failure isolation as the core's registries.

        Args:
            hook_name: The hook, e.g. ``"paperzoo_llm_backends"``.
            spec_type: The :class:`~paperzoo.specs.Spec` subclass it registers.
            kind: What the specs are called in messages, e.g. ``"LLM backend"``.
            listing: The command that lists them, for hints (``"paperzoo llm backends"``).
        """
        existing = self._by_hook.get(hook_name)
        if existing is None:
            self.load()
            if not hasattr(self.pm.hook, hook_name):
                raise ConfigError(
                    f"no hook {hook_name!r}",
                    hint="the plugin that adds it is not installed or failed to load",
                )
            existing = self._by_hook[hook_name] = self._registry(kind, spec_type, hook_name, listing=listing)
        if existing.spec_type is not spec_type:
            raise ConfigError(
                f"registry {hook_name!r} holds {existing.spec_type.__name__}, not {spec_type.__name__}"
            )
        return existing

    def _registry(
        self, kind: str, spec_type: type[S], hook_name: str, *, listing: str | None = None
    ) -> Registry[S]:
        registry: Registry[S] = Registry(
            kind,
            spec_type,
            lambda r: self._fill(r, hook_name),
            listing=listing,
            missing_hint=self.install_hint,
        )
        self._registries.append(registry)
        return registry

    def _fill(self, registry: Registry[S], hook_name: str) -> None:
        """Run ``hook_name`` per plugin; add a plugin's specs only if all are valid."""
        registrars: dict[str, Registrar[S]] = {}

        def arguments(plugin: str) -> dict[str, Any]:
            registrars[plugin] = Registrar(registry.spec_type, plugin)
            return {"register": registrars[plugin]}

        for plugin, _, error in self.call_isolated(hook_name, arguments):
            specs = registrars[plugin].specs
            try:
                if error is not None:
                    raise error
                seen: set[str] = set()
                for spec in specs:
                    registry.check_new(spec)
                    if spec.name in seen:
                        raise DuplicateNameError(
                            f"{registry.kind} {spec.name!r} is registered twice by {plugin}"
                        )
                    seen.add(spec.name)
            except Exception as exc:
                self.fail(plugin, f"{hook_name} raised {_why(exc)}")
                continue
            for spec in specs:
                registry.add(spec)

    def find(self, name: str) -> list[Spec]:
        """Everything called ``name``: estimators, datasets, metrics, experiments...

        Names are unique within a kind; an experiment and the dataset it uses may
        share one.

        Raises:
            UnknownNameError: nothing has that name; the hint names close ones.
        """
        found: list[Spec] = [registry.get(name) for registry in self._registries if name in registry]
        if found:
            return found
        every = [n for registry in self._registries for n in registry.names()]
        hint = self.install_hint(name) or suggest(name, every) or "see 'paperzoo list'"
        raise UnknownNameError(f"nothing is called {name!r}", hint=hint)

    # --------------------------------------------------------------------- misc

    def install_hint(self, name: str) -> str | None:
        """How to get ``name`` when it belongs to a first-party plugin that is not installed."""
        if not self._entry_points:
            return None  # a test host: what is installed does not matter
        from paperzoo.known import install_hint

        return install_hint(name, {r.name for r in self._records.values()})

    def not_installed(self) -> dict[str, dict[str, Any]]:
        """First-party plugins that are not installed (none for a test host): ``{id: catalog entry}``."""
        if not self._entry_points:
            return {}
        from paperzoo.known import known_plugins

        installed = {r.name for r in self.records()}
        return {pid: entry for pid, entry in sorted(known_plugins().items()) if pid not in installed}

    def hooks_of(self, name: str) -> list[str]:
        """The hooks plugin ``name`` implements, sorted."""
        plugin = self.pm.get_plugin(name)
        if plugin is None:
            return []
        return sorted(caller.name for caller in self.pm.get_hookcallers(plugin) or [])

    def versions(self, plugin: str) -> dict[str, str]:
        """Versions worth recording with a run of ``plugin``'s experiment."""
        out = {"paperzoo": __version__, "python": platform.python_version()}
        record = self._records.get(plugin)
        if record is not None and record.distribution and record.version:
            out[record.distribution] = record.version
        return out

    def load_dataset(self, name: str, **options: Any) -> Any:
        """Load the dataset called ``name`` with its loader's ``options``."""
        loader = self.datasets.get(name).load()
        return loader(**options)


def _module_of(plugin: object) -> str:
    """Where a plugin comes from: a module's name, or ``package.plugin`` for a manifest."""
    if isinstance(plugin, ModuleType):
        return plugin.__name__
    module = getattr(plugin, "module", None)
    return module if isinstance(module, str) and module else type(plugin).__module__


def _why(exc: BaseException) -> str:
    if isinstance(exc, PaperzooError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


_HOST: PluginHost | None = None


def get_host() -> PluginHost:
    """The process-wide host, loading installed plugins on first use."""
    global _HOST
    if _HOST is None:
        _HOST = PluginHost()
    return _HOST


_ACTIVE: contextvars.ContextVar[PluginHost | None] = contextvars.ContextVar("paperzoo_host", default=None)


def current_host() -> PluginHost | None:
    """The host of the run in progress, else the process-wide host if one exists.

    Never creates a host.
    """
    return _ACTIVE.get() or _HOST


@contextmanager
def activate(host: PluginHost) -> Iterator[PluginHost]:
    """Make ``host`` the :func:`current_host` inside the block (used by runs)."""
    token = _ACTIVE.set(host)
    try:
        yield host
    finally:
        _ACTIVE.reset(token)


def reset_host(host: PluginHost | None = None) -> None:
    """Replace the process-wide host (``None``: a fresh one on next use)."""
    global _HOST
    _HOST = host
