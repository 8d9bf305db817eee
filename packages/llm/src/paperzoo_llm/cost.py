"""``CostMeter``: tokens per call and per run, and money where prices are known."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paperzoo_llm.chat import ChatResponse

if TYPE_CHECKING:
    from paperzoo.runs import Run

__all__ = ["CallRecord", "CostMeter"]


@dataclass(frozen=True)
class CallRecord:
    """One chat call as metered."""

    backend: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cached: bool
    latency_s: float
    time: float


class CostMeter:
    """Counts tokens of every call, per model, thread-safely.

    Args:
        prices: USD per million tokens by model, ``{"gpt-4o-mini": (0.15, 0.60)}``
            as (input, output). Models without a price make :attr:`cost` ``None``.

    Cache hits are recorded (``cached=True``) but cost nothing.

    Example:
        >>> meter = CostMeter(prices={"m": (1.0, 2.0)})
        >>> backend = get_backend("scripted:echo", meter=meter)   # doctest: +SKIP
    """

    def __init__(self, prices: Mapping[str, tuple[float, float]] | None = None) -> None:
        self.prices = dict(prices or {})
        self.calls: list[CallRecord] = []
        self._lock = threading.Lock()

    def record(self, response: ChatResponse) -> None:
        """Count one call."""
        record = CallRecord(
            response.backend,
            response.model,
            response.usage.prompt_tokens,
            response.usage.completion_tokens,
            response.cached,
            response.latency_s,
            time.time(),
        )
        with self._lock:
            self.calls.append(record)

    def _paid(self) -> list[CallRecord]:
        with self._lock:
            return [c for c in self.calls if not c.cached]

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens of the calls that were not cache hits."""
        return sum(c.prompt_tokens for c in self._paid())

    @property
    def completion_tokens(self) -> int:
        """Completion tokens of the calls that were not cache hits."""
        return sum(c.completion_tokens for c in self._paid())

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens (not counting cache hits)."""
        return self.prompt_tokens + self.completion_tokens

    @property
    def cost(self) -> float | None:
        """USD spent, or ``None`` if some model used has no price."""
        total = 0.0
        for call in self._paid():
            price = self.prices.get(call.model)
            if price is None:
                return None
            total += (call.prompt_tokens * price[0] + call.completion_tokens * price[1]) / 1e6
        return total

    def summary(self) -> dict[str, Any]:
        """Totals: calls, cache hits, tokens, cost, and tokens per model."""
        with self._lock:
            calls = list(self.calls)
        per_model: dict[str, dict[str, int]] = {}
        for c in calls:
            if not c.cached:
                m = per_model.setdefault(c.model, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
                m["calls"] += 1
                m["prompt_tokens"] += c.prompt_tokens
                m["completion_tokens"] += c.completion_tokens
        return {
            "calls": len(calls),
            "cache_hits": sum(c.cached for c in calls),
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost,
            "by_model": per_model,
        }

    def log_to(self, run: Run, prefix: str = "llm") -> None:
        """Record the totals as metrics of a paperzoo run."""
        summary = self.summary()
        for key in ("calls", "cache_hits", "prompt_tokens", "completion_tokens"):
            run.log_metric(f"{prefix}.{key}", float(summary[key]))
        if summary["cost_usd"] is not None:
            run.log_metric(f"{prefix}.cost_usd", float(summary["cost_usd"]))

    def reset(self) -> None:
        """Forget every call."""
        with self._lock:
            self.calls.clear()
