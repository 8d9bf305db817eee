"""paperzoo-ray: run paperzoo sweeps as Ray tasks, locally or on a cluster.

Importing this package is cheap: Ray is imported only when the ``ray`` executor
runs (``paperzoo run EXPERIMENT --executor ray``).
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {"RayExecutor": ".executor"})
