"""paperzoo-mlflow: log paperzoo runs to MLflow — params, metrics, artifacts and results.

Runs are logged once a tracking URI is set (``PAPERZOO_MLFLOW_URI`` or
``MLFLOW_TRACKING_URI``) or ``PAPERZOO_MLFLOW=1`` asks for a local SQLite database
under the paperzoo home; ``PAPERZOO_MLFLOW=0`` turns logging off. Importing this
package is cheap: its names are imported on first use, and mlflow itself only
when the first run is logged.
"""

from __future__ import annotations

from paperzoo.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {"Destination": ".config", "destination": ".config", "enabled": ".config", "RunLogger": ".tracking"},
)
