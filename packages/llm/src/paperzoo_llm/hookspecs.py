"""The hook ``paperzoo-llm`` adds to paperzoo, so that backends are plugins too."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from paperzoo import hookspec

if TYPE_CHECKING:
    from paperzoo_llm.registry import BackendSpec


@hookspec
def paperzoo_llm_backends(register: Callable[[BackendSpec], None]) -> None:
    """Register LLM backends.

    Args:
        register: Call ``register(BackendSpec(name="mybackend",
            target="my_plugin.backend:MyBackend", summary=...))`` once per backend.
            The target is an :class:`~paperzoo_llm.backend.LLMBackend` subclass whose
            first argument is the model name; users select it as
            ``get_backend("mybackend:model-name")``.
    """
