"""The exceptions paperzoo raises.

Every error a user can act on is a :class:`PaperzooError`. Its message says what
was wrong; its ``hint`` says what to do. The command line prints both as one line
each and exits with status 2, never with a traceback (unless ``--debug``).
"""

from __future__ import annotations

__all__ = [
    "ConfigError",
    "DataError",
    "DuplicateNameError",
    "NotFittedError",
    "PaperzooError",
    "PluginError",
    "ResultError",
    "StoreError",
    "UnknownNameError",
]


class PaperzooError(Exception):
    """Base class of every error a user can act on.

    Args:
        message: What was wrong, in one sentence.
        hint: What to do about it, in one sentence (optional).
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message} ({self.hint})"


class ConfigError(PaperzooError, ValueError):
    """A setting, scale, seed range or parameter is invalid."""


class UnknownNameError(PaperzooError, KeyError):
    """No estimator, dataset, metric, experiment or run has this name."""

    def __str__(self) -> str:  # KeyError would quote the message
        return PaperzooError.__str__(self)


class DuplicateNameError(PaperzooError, ValueError):
    """Two plugins registered the same name."""


class PluginError(PaperzooError, RuntimeError):
    """A plugin could not be loaded or misbehaved."""


class DataError(PaperzooError, OSError):
    """A data file is missing, corrupt, unsafe or cannot be downloaded."""


class StoreError(PaperzooError, RuntimeError):
    """The results store cannot be read or written."""


class ResultError(PaperzooError, TypeError):
    """An experiment returned something that is not a valid Result."""


class NotFittedError(PaperzooError, AttributeError):
    """An estimator was used before ``fit`` was called."""
