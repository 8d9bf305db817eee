"""Finding backends by name: ``get_backend("openai:gpt-4o-mini", base_url=...)``."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from paperzoo.errors import ConfigError
from paperzoo.host import get_host
from paperzoo.specs import Spec

if TYPE_CHECKING:
    from paperzoo.host import PluginHost
    from paperzoo.registry import Registry
    from paperzoo_llm.backend import LLMBackend

__all__ = ["BackendSpec", "backends", "get_backend", "parse_backend"]

HOOK = "paperzoo_llm_backends"


class BackendSpec(Spec):
    """An LLM backend class registered through ``paperzoo_llm_backends``.

    Attributes:
        default_model: Model used when the spec string names none.
    """

    _kind = "LLM backend"


def backends(host: PluginHost | None = None) -> Registry[BackendSpec]:
    """Every registered backend (``scripted``, ``openai``, ``transformers`` and plugins')."""
    return (host or get_host()).registry(HOOK, BackendSpec, "LLM backend", listing="paperzoo llm backends")


def parse_backend(spec: str) -> tuple[str, str | None]:
    """``"openai:gpt-4o-mini"`` → ``("openai", "gpt-4o-mini")``; ``"scripted"`` → ``("scripted", None)``."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigError(f"invalid backend {spec!r}", hint="write backend[:model], e.g. openai:gpt-4o-mini")
    name, _, model = spec.strip().partition(":")
    return name, model or None


def get_backend(spec: str, *, host: PluginHost | None = None, **options: Any) -> LLMBackend:
    """Build the backend ``"name[:model]"`` with ``options``.

    Examples: ``"scripted:echo"``, ``"transformers:smollm2"``,
    ``"openai:gpt-4o-mini"``, ``"openai:Qwen/Qwen2.5-7B-Instruct"`` with
    ``base_url="http://localhost:8000/v1"`` for vLLM.

    Raises:
        UnknownNameError: no backend has that name (the hint lists close ones).
    """
    name, model = parse_backend(spec)
    backend_class = backends(host).get(name).load()
    accepted = _accepted_options(backend_class)
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ConfigError(
            f"the {name} backend has no option {unknown[0]!r}",
            hint=f"its options are: {', '.join(sorted(accepted))}",
        )
    model_param = inspect.signature(backend_class).parameters.get("model")
    if model is None and model_param is not None and model_param.default is inspect.Parameter.empty:
        raise ConfigError(f"the {name} backend needs a model", hint=f"write {name}:MODEL")
    return backend_class(model, **options) if model is not None else backend_class(**options)


def _accepted_options(backend_class: type) -> set[str]:
    """Keyword options of a backend class and of the classes it passes ``**options`` to."""
    accepted: set[str] = set()
    for klass in backend_class.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        parameters = inspect.signature(init).parameters.values()
        accepted |= {p.name for p in parameters if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
        if not any(p.kind is p.VAR_KEYWORD for p in parameters):
            break  # this class takes no further options: stop here
    return accepted - {"self", "model"}
