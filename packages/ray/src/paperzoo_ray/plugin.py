"""paperzoo plugin ``ray``: the ``ray`` executor, as one raw hook.

The executor's module is imported when ``--executor ray`` is asked for, and Ray
itself only when the executor runs: listing plugins never imports Ray.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from paperzoo import Plugin

if TYPE_CHECKING:
    from paperzoo.executor import Executor

plugin = Plugin("ray", framework="python", url="https://docs.ray.io")


@plugin.hook
def paperzoo_executor(name: str, options: Mapping[str, Any]) -> Executor | None:
    """Provide the ``ray`` executor (options: see :func:`paperzoo_ray.executor.from_options`)."""
    if name != "ray":
        return None
    from paperzoo_ray.executor import from_options

    return from_options(options)
