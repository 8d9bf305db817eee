"""paperzoo-laser: LASER: Attention with Exponential Transformation.

Importing this package is cheap: its names are imported on first use, and the
plugin module (``paperzoo_laser.plugin``) names everything by ``"module:attr"`` targets.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(__name__, {"ShrunkMean": ".estimators"})
