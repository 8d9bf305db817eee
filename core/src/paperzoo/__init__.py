"""paperzoo: faithful, fast implementations of ICML 2025 papers, as plugins.

Importing ``paperzoo`` is cheap: names are loaded on first access (PEP 562), so
``import paperzoo`` pulls in neither numpy nor any plugin.

Plugin authors need::

    from paperzoo import Plugin, Setting, Ref, Result, Run, BaseEstimator
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paperzoo._version import __version__
from paperzoo.errors import PaperzooError
from paperzoo.lazy import lazy_exports

if TYPE_CHECKING:
    from paperzoo.base import BaseEstimator, check_int, check_is_fitted, check_number, clone
    from paperzoo.data import DataFile, fetch
    from paperzoo.executor import Executor, LocalExecutor
    from paperzoo.hookspecs import hookimpl, hookspec
    from paperzoo.host import PluginHost, get_host
    from paperzoo.interfaces import Estimator, Experiment
    from paperzoo.manifest import Plugin
    from paperzoo.references import Ref
    from paperzoo.results import Artifact, Result, Row
    from paperzoo.runs import Run, RunOutcome, RunRequest, execute
    from paperzoo.settings import Setting
    from paperzoo.specs import (
        DatasetSpec,
        EstimatorSpec,
        ExperimentSpec,
        MetricSpec,
        PluginInfo,
    )

_LAZY = {
    "BaseEstimator": "paperzoo.base",
    "check_int": "paperzoo.base",
    "check_is_fitted": "paperzoo.base",
    "check_number": "paperzoo.base",
    "clone": "paperzoo.base",
    "DataFile": "paperzoo.data",
    "fetch": "paperzoo.data",
    "Executor": "paperzoo.executor",
    "Estimator": "paperzoo.interfaces",
    "Experiment": "paperzoo.interfaces",
    "LocalExecutor": "paperzoo.executor",
    "hookimpl": "paperzoo.hookspecs",
    "hookspec": "paperzoo.hookspecs",
    "Plugin": "paperzoo.manifest",
    "Ref": "paperzoo.references",
    "Setting": "paperzoo.settings",
    "PluginHost": "paperzoo.host",
    "get_host": "paperzoo.host",
    "Artifact": "paperzoo.results",
    "Result": "paperzoo.results",
    "Row": "paperzoo.results",
    "Run": "paperzoo.runs",
    "RunOutcome": "paperzoo.runs",
    "RunRequest": "paperzoo.runs",
    "execute": "paperzoo.runs",
    "DatasetSpec": "paperzoo.specs",
    "EstimatorSpec": "paperzoo.specs",
    "ExperimentSpec": "paperzoo.specs",
    "MetricSpec": "paperzoo.specs",
    "PluginInfo": "paperzoo.specs",
}

__all__ = [
    "Artifact",
    "BaseEstimator",
    "DataFile",
    "DatasetSpec",
    "Estimator",
    "EstimatorSpec",
    "Executor",
    "Experiment",
    "ExperimentSpec",
    "LocalExecutor",
    "MetricSpec",
    "PaperzooError",
    "Plugin",
    "PluginHost",
    "PluginInfo",
    "Ref",
    "Result",
    "Row",
    "Run",
    "RunOutcome",
    "RunRequest",
    "Setting",
    "__version__",
    "check_int",
    "check_is_fitted",
    "check_number",
    "clone",
    "execute",
    "fetch",
    "get_host",
    "hookimpl",
    "hookspec",
]


__getattr__, __dir__, _ = lazy_exports(__name__, _LAZY)
