"""paperzoo-els: An analytic theory of creativity in convolutional diffusion models.

Importing this package is cheap: its names are imported on first use, and the
plugin module (``paperzoo_els.plugin``) names everything by ``"module:attr"`` targets.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "IdealScoreMachine": ".machines",
        "LocalScoreMachine": ".machines",
        "EquivariantLocalScoreMachine": ".machines",
        "DDPMNetwork": ".training",
        "calibrate_patch_sizes": ".calibration",
        "pearson_r": ".metrics",
        "nearest_training_distance": ".metrics",
    },
)
