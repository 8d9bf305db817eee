"""paperzoo plugin ``ray``: hook implementations only.

The executor's module is imported when ``--executor ray`` is asked for, and Ray
itself only when the executor runs: listing plugins never imports Ray.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from paperzoo import PluginInfo, hookimpl

if TYPE_CHECKING:
    from paperzoo.executor import Executor


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(id="ray", framework="python", url="https://docs.ray.io")


@hookimpl
def paperzoo_executor(name: str, options: Mapping[str, Any]) -> Executor | None:
    """Provide the ``ray`` executor (options: see :func:`paperzoo_ray.executor.from_options`)."""
    if name != "ray":
        return None
    from paperzoo_ray.executor import from_options

    return from_options(options)
