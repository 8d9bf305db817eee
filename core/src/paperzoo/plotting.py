"""Optional matplotlib: figures for experiments and reports when it is installed.

matplotlib is an optional dependency (``pip install paperzoo[plots]``). Experiments
ask for it through :func:`pyplot` and skip their figures when it is missing,
instead of failing the run.
"""

from __future__ import annotations

import sys
from types import ModuleType

__all__ = ["pyplot"]


def pyplot() -> ModuleType | None:
    """``matplotlib.pyplot`` (Agg backend unless pyplot was already set up), or ``None``."""
    try:
        import matplotlib
    except ImportError:
        return None
    if "matplotlib.pyplot" not in sys.modules:  # never switch the backend of a notebook or GUI
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
