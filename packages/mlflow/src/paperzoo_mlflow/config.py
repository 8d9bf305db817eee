"""Whether paperzoo runs are logged to MLflow, and where.

Logging is opt-in: installing ``paperzoo-mlflow`` changes nothing until a tracking
URI is set (``PAPERZOO_MLFLOW_URI`` or ``MLFLOW_TRACKING_URI``) or ``PAPERZOO_MLFLOW=1``
asks for the local default. ``PAPERZOO_MLFLOW=0`` turns it off whatever else is
set (``PAPERZOO_DISABLE_PLUGINS=mlflow`` keeps the plugin from loading at all).
The tracking URI is the first of:

1. ``PAPERZOO_MLFLOW_URI`` — for paperzoo only;
2. ``MLFLOW_TRACKING_URI`` — MLflow's own variable, shared with other tools;
3. ``sqlite:///<paperzoo home>/mlflow.db`` — a local database, no server needed.

Artifacts of experiments created here on a database URI go to
``<paperzoo home>/mlflow-artifacts/<experiment>``; a tracking server stores them
where it is configured to. Plain Python: no mlflow import.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from paperzoo.errors import ConfigError
from paperzoo.paths import home

__all__ = ["ENABLE_ENV", "MLFLOW_ENV", "URI_ENV", "Destination", "destination", "enabled", "sqlite_path"]

ENABLE_ENV = "PAPERZOO_MLFLOW"
URI_ENV = "PAPERZOO_MLFLOW_URI"
MLFLOW_ENV = "MLFLOW_TRACKING_URI"

_ON = {"1", "true", "yes", "on"}
_OFF = {"0", "false", "no", "off"}
# schemes MLflow's tracking store registry accepts (databases with an optional +driver)
_SERVERS = {"http", "https"}
_DATABASES = {"sqlite", "postgresql", "mysql", "mssql"}
_OTHERS = {"file", "databricks", "databricks-uc", "uc"}


def enabled() -> bool:
    """Whether runs are logged.

    ``PAPERZOO_MLFLOW`` on (``1``, ``true``, ``yes``, ``on``): yes; off (``0``,
    ``false``, ``no``, ``off``): no; unset or empty: when a tracking URI is set.

    Raises:
        ConfigError: ``PAPERZOO_MLFLOW`` is neither on nor off.
    """
    raw = os.environ.get(ENABLE_ENV, "").strip().lower()
    if raw in _ON:
        return True
    if raw in _OFF:
        return False
    if not raw:
        return any(os.environ.get(env, "").strip() for env in (URI_ENV, MLFLOW_ENV))
    raise ConfigError(
        f"{ENABLE_ENV}={os.environ[ENABLE_ENV]!r} is neither on nor off",
        hint=f"set {ENABLE_ENV}=1 to log runs to MLflow, {ENABLE_ENV}=0 not to",
    )


@dataclass(frozen=True)
class Destination:
    """Where runs are logged.

    Attributes:
        uri: The MLflow tracking URI.
        source: Where it came from: ``"PAPERZOO_MLFLOW_URI"``,
            ``"MLFLOW_TRACKING_URI"`` or ``"default"``.
        artifacts: Root of the artifact locations of experiments created here,
            ``None`` when a tracking server decides.
    """

    uri: str
    source: str
    artifacts: Path | None

    @property
    def is_server(self) -> bool:
        """Whether the URI is an MLflow tracking server (http or https)."""
        return urlsplit(self.uri).scheme in _SERVERS

    def __str__(self) -> str:
        return f"{self.uri} ({'default' if self.source == 'default' else 'from ' + self.source})"


def destination() -> Destination:
    """The tracking URI to log to, checked for shape (nothing is contacted).

    Raises:
        ConfigError: the URI is malformed or has a scheme MLflow does not know.
    """
    for env in (URI_ENV, MLFLOW_ENV):
        raw = os.environ.get(env, "").strip()
        if raw:
            uri = _checked(raw, env)
            scheme = urlsplit(uri).scheme.split("+")[0]
            local = scheme in _DATABASES or scheme in {"", "file"}
            return Destination(uri, env, home() / "mlflow-artifacts" if local else None)
    path = home() / "mlflow.db"
    return Destination("sqlite:///" + path.as_posix(), "default", home() / "mlflow-artifacts")


def _checked(uri: str, env: str) -> str:
    hint = (
        "use http(s)://HOST:PORT of an MLflow server or sqlite:///PATH/mlflow.db, "
        f"or unset it; {ENABLE_ENV}=0 turns MLflow logging off"
    )
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.\-]*:", uri) or re.match(r"^[A-Za-z]:[\\/]", uri):
        return uri  # a plain path (Windows drives included): MLflow's file store
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if scheme.split("+")[0] not in _SERVERS | _DATABASES | _OTHERS:
        raise ConfigError(f"{env}={uri!r} has a scheme MLflow does not know ({scheme!r})", hint=hint)
    if scheme in _SERVERS:
        try:
            port = parts.port
        except ValueError:
            port = -1
        if not parts.hostname or port == -1:
            raise ConfigError(f"{env}={uri!r} is not a valid server address", hint=hint)
    if scheme.split("+")[0] in _DATABASES and not uri.split(":", 1)[1].startswith("//"):
        raise ConfigError(f"{env}={uri!r} is not a valid database URI", hint=hint)
    return uri


def sqlite_path(uri: str) -> Path | None:
    """The file of a ``sqlite:///PATH`` URI, ``None`` for other URIs and in-memory databases."""
    if not uri.startswith("sqlite:///"):
        return None
    path = uri.removeprefix("sqlite:///").split("?", 1)[0]
    return Path(path) if path and path != ":memory:" else None
