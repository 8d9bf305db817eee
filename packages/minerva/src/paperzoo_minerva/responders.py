"""Who answers the tests: an oracle, "always yes", or any ``paperzoo-llm`` backend.

``make_responder("oracle")``, ``make_responder("always-yes")`` and
``make_responder("transformers:smollm2", max_tokens=512)`` (any
``backend:model`` spec of :func:`paperzoo_llm.get_backend`) all return a
:class:`Responder`: ``respond(instance) -> str``. Models are asked as Minerva
asks them: system message "You are a helpful AI assistant.", the prompt as the
user turn, temperature 0.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paperzoo_minerva.instance import SYSTEM_PROMPT, Instance
from paperzoo_minerva.scoring import render_reference
from paperzoo_minerva.tasks import get_task

__all__ = ["Responder", "make_responder", "oracle_answer"]


def oracle_answer(instance: Instance) -> str:
    """The answer that scores 1 on every metric of the instance's task."""
    spec = get_task(instance.task)
    return (
        spec.oracle(instance.reference) if spec.oracle is not None else render_reference(instance.reference)
    )


@dataclass
class Responder:
    """Answers instances.

    Attributes:
        name: What the results are labelled with, e.g. ``"oracle"``.
        respond: ``instance -> generation``.
        max_concurrency: How many ``respond`` calls may run at once.
        close: Releases resources.
    """

    name: str
    respond: Callable[[Instance], str]
    max_concurrency: int = 1
    close: Callable[[], None] = lambda: None


def make_responder(
    spec: str, *, max_tokens: int = 4096, max_concurrency: int = 4, **options: Any
) -> Responder:
    """``"oracle"``, ``"always-yes"``, or a ``paperzoo-llm`` backend spec like ``"openai:gpt-4o"``.

    Args:
        spec: The responder.
        max_tokens: Longest answer a model may give (Minerva: 4096).
        max_concurrency: Calls in flight for a model backend.
        **options: Backend options (``base_url``, ``cache``, ``meter``...).
    """
    if spec == "oracle":
        return Responder("oracle", oracle_answer, max_concurrency=64)
    if spec == "always-yes":
        return Responder("always-yes", lambda instance: "yes", max_concurrency=64)
    from paperzoo_llm import get_backend

    backend = get_backend(spec, max_concurrency=max_concurrency, **options)

    def respond(instance: Instance) -> str:
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": instance.prompt},
        ]
        return backend.chat(messages, temperature=0.0, max_tokens=max_tokens).text

    return Responder(spec, respond, max_concurrency=backend.max_concurrency, close=backend.close)
