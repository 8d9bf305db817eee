"""``LLMBackend``: the interface every backend implements.

Subclasses implement :meth:`LLMBackend._chat` (and :meth:`~LLMBackend.count_tokens`,
:meth:`~LLMBackend.capabilities`, optionally :meth:`~LLMBackend.logprobs`). The base
class validates the conversation and parameters, serves and fills the response
cache, meters tokens, and provides async and batched calls with bounded
concurrency, so that every backend behaves the same.
"""

from __future__ import annotations

import asyncio
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, ClassVar

from paperzoo.errors import ConfigError
from paperzoo_llm.cache import ResponseCache, cache_key
from paperzoo_llm.chat import (
    Capabilities,
    ChatParams,
    ChatResponse,
    LLMResponseError,
    LLMUnsupportedError,
    Message,
    TokenLogprob,
    check_messages,
)
from paperzoo_llm.cost import CostMeter

__all__ = ["Conversation", "LLMBackend"]

Conversation = Sequence[Message | Mapping[str, Any]] | str


class LLMBackend(ABC):
    """A chat model behind a uniform interface.

    Args:
        model: Model name (what the backend loads or the server serves).
        cache: A :class:`~paperzoo_llm.cache.ResponseCache` or a path to one.
        meter: A :class:`~paperzoo_llm.cost.CostMeter` counting every call.
        max_concurrency: Calls in flight at once in :meth:`achat` and :meth:`batch`.
    """

    name: ClassVar[str] = "backend"

    def __init__(
        self,
        model: str,
        *,
        cache: ResponseCache | str | Path | None = None,
        meter: CostMeter | None = None,
        max_concurrency: int = 4,
    ) -> None:
        if not isinstance(max_concurrency, int) or max_concurrency < 1:
            raise ConfigError(f"max_concurrency must be an integer >= 1, got {max_concurrency!r}")
        self.model = model
        self.cache = ResponseCache(cache) if isinstance(cache, (str, Path)) else cache
        self.meter = meter
        self.max_concurrency = max_concurrency
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r})"

    # ------------------------------------------------------------------ chat

    def chat(
        self,
        messages: Conversation,
        *,
        n: int = 1,
        temperature: float = 1.0,
        top_p: float = 1.0,
        max_tokens: int | None = None,
        stop: str | Sequence[str] | None = None,
        seed: int | None = None,
    ) -> ChatResponse:
        """Complete a conversation ``n`` times.

        Args:
            messages: ``[{"role": ..., "content": ...}, ...]``, or a string (one user turn).
            n: Number of completions.
            temperature: Sampling temperature, 0 (greedy) to 2.
            top_p: Nucleus sampling mass.
            max_tokens: Longest completion (``None``: the backend's default).
            stop: Strings that end a completion.
            seed: Seed for reproducible sampling (where supported).

        Raises:
            ConfigError: invalid messages or parameters.
            LLMError: the backend failed (one clear line: connection, auth, rate
                limit, server error, timeout, malformed response).
        """
        conversation = check_messages(messages)
        params = ChatParams(
            n, temperature, top_p, max_tokens, tuple([stop] if isinstance(stop, str) else stop or ()), seed
        )
        key = ""
        if self.cache is not None:
            key = cache_key(self.name, self.model, conversation, params, self.cache_identity())
        response = self.cache.get(key) if self.cache is not None else None
        if response is None:
            start = time.perf_counter()
            fresh = self._chat(conversation, params)
            response = ChatResponse(
                fresh.completions, fresh.usage, fresh.model, fresh.backend, False, time.perf_counter() - start
            )
            if len(response.completions) != n:
                raise LLMResponseError(
                    f"{self.name} returned {len(response.completions)} completions, asked for {n}"
                )
            if self.cache is not None:
                request = {"messages": [m.to_dict() for m in conversation], "params": params.to_dict()}
                self.cache.put(key, request, response)
        if self.meter is not None:
            self.meter.record(response)
        return response

    @abstractmethod
    def _chat(self, messages: list[Message], params: ChatParams) -> ChatResponse:
        """Produce exactly ``params.n`` completions (validated inputs, no cache)."""

    def cache_identity(self) -> dict[str, Any]:
        """What, beyond backend name and model, decides the answer (part of the cache key).

        Backends override it: the server URL, the model file, the scripted policy.
        """
        return {}

    def _bounded_chat(self, messages: Conversation, params: dict[str, Any]) -> ChatResponse:
        with self._slots:  # shared by achat and batch: never more than max_concurrency calls
            return self.chat(messages, **params)

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    self.max_concurrency, thread_name_prefix=f"paperzoo-{self.name}"
                )
            return self._pool

    async def achat(self, messages: Conversation, **params: Any) -> ChatResponse:
        """:meth:`chat` without blocking the event loop; at most ``max_concurrency`` at once.

        The calls run on the backend's own pool of ``max_concurrency`` threads, so
        the bound holds across event loops, together with :meth:`batch`, and for
        callers that were cancelled while their call was still running.
        """
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor(), self._bounded_chat, messages, params)

    def batch(self, conversations: Iterable[Conversation], **params: Any) -> list[ChatResponse]:
        """:meth:`chat` over many conversations, ``max_concurrency`` at a time, in order."""
        items = list(conversations)
        if self.max_concurrency == 1 or len(items) <= 1:
            return [self.chat(c, **params) for c in items]
        return list(self._executor().map(lambda c: self._bounded_chat(c, params), items))

    # ----------------------------------------------------------------- other

    @abstractmethod
    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` in the model's tokenizer."""

    def capabilities(self) -> Capabilities:
        """What the backend can do."""
        return Capabilities()

    def logprobs(self, text: str, *, top_k: int = 5) -> list[TokenLogprob]:
        """Per-token log-probabilities of ``text`` (and the ``top_k`` alternatives).

        Raises:
            LLMUnsupportedError: the backend cannot score text (HTTP backends).
        """
        raise LLMUnsupportedError(
            f"the {self.name} backend cannot compute log-probabilities",
            hint="use a local backend, e.g. transformers:smollm2",
        )

    def close(self) -> None:
        """Release resources (threads, connections, models)."""
        with self._pool_lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> LLMBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
