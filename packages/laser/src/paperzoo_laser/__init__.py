"""paperzoo-laser: LASER, attention with exponential transformation (Duvvuri & Dhillon, ICML 2025).

O = log(softmax(QKᵀ/√d) exp(V)), computed stably as m + log(softmax(QKᵀ/√d) exp(V − m)).
JAX: :func:`laser_attention`, :func:`laser_decode` and a Flax NNX language model;
PyTorch: :mod:`paperzoo_laser.torch_attention` (the ``torch`` extra).

Importing this package is cheap: its names are imported on first use, and the
plugin module (``paperzoo_laser.plugin``) names everything by ``"module:attr"`` targets.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "laser_attention": ".attention",
        "softmax_attention": ".attention",
        "laser_decode": ".attention",
        "init_cache": ".attention",
        "KVCache": ".attention",
        "LMConfig": ".model",
        "TransformerLM": ".model",
        "TrainConfig": ".training",
        "train": ".training",
        "load_corpus": ".text",
    },
)
