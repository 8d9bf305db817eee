"""The core's own hook implementations (registered on every host)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from paperzoo.errors import ConfigError
from paperzoo.hookspecs import hookimpl

if TYPE_CHECKING:
    from paperzoo.executor import Executor


@hookimpl(trylast=True)
def paperzoo_executor(name: str, options: Mapping[str, Any]) -> Executor | None:
    """Provide the ``local`` executor (``workers`` option: process-pool size)."""
    if name != "local":
        return None
    unknown = sorted(set(options) - {"workers"})
    if unknown:
        raise ConfigError(f"the local executor has no option {unknown[0]!r}", hint="it takes only workers=N")
    try:
        workers = int(options.get("workers", 1))
    except (TypeError, ValueError):
        raise ConfigError(
            f"workers must be a whole number, got {options['workers']!r}", hint="e.g. --workers 2"
        ) from None
    from paperzoo.executor import LocalExecutor  # the run machinery loads only when something runs

    return LocalExecutor(workers=workers)
