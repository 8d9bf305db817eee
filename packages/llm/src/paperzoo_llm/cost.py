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
            as (input, output). Models without a price, or calls whose server
            reported no usage, make :attr:`cost` ``None`` (unknown).

    Cache hits are recorded (``cached=True``) but cost nothing. Totals are kept
    as calls arrive, so reading them costs nothing however many calls there were.
    """

    def __init__(self, prices: Mapping[str, tuple[float, float]] | None = None) -> None:
        self.prices = dict(prices or {})
        self.calls: list[CallRecord] = []
        self._lock = threading.Lock()
        self._reset_totals()

    def _reset_totals(self) -> None:
        self._hits = 0
        self._by_model: dict[str, dict[str, int]] = {}
        self._unreported = 0

    def record(self, response: ChatResponse) -> None:
        """Count one call."""
        usage = response.usage
        record = CallRecord(
            response.backend,
            response.model,
            usage.prompt_tokens,
            usage.completion_tokens,
            response.cached,
            response.latency_s,
            time.time(),
        )
        with self._lock:
            self.calls.append(record)
            if response.cached:
                self._hits += 1
                return
            model = self._by_model.setdefault(
                response.model, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
            )
            model["calls"] += 1
            model["prompt_tokens"] += usage.prompt_tokens
            model["completion_tokens"] += usage.completion_tokens
            self._unreported += not usage.reported

    def summary(self) -> dict[str, Any]:
        """Totals from one consistent snapshot: calls, cache hits, tokens, cost, per model."""
        with self._lock:
            by_model = {m: dict(v) for m, v in self._by_model.items()}
            hits, unreported, calls = self._hits, self._unreported, len(self.calls)
        prompt = sum(v["prompt_tokens"] for v in by_model.values())
        completion = sum(v["completion_tokens"] for v in by_model.values())
        cost: float | None = None
        if not unreported and all(m in self.prices for m in by_model):
            cost = sum(
                (v["prompt_tokens"] * self.prices[m][0] + v["completion_tokens"] * self.prices[m][1]) / 1e6
                for m, v in by_model.items()
            )
        return {
            "calls": calls,
            "cache_hits": hits,
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "cost_usd": cost,
            "by_model": by_model,
        }

    @property
    def prompt_tokens(self) -> int:
        """Prompt tokens of the calls that were not cache hits."""
        return int(self.summary()["prompt_tokens"])

    @property
    def completion_tokens(self) -> int:
        """Completion tokens of the calls that were not cache hits."""
        return int(self.summary()["completion_tokens"])

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens (not counting cache hits)."""
        summary = self.summary()
        return int(summary["prompt_tokens"] + summary["completion_tokens"])

    @property
    def cost(self) -> float | None:
        """USD spent, or ``None`` if a model has no price or a server reported no usage."""
        cost: float | None = self.summary()["cost_usd"]
        return cost

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
            self._reset_totals()
