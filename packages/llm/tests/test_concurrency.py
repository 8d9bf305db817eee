"""achat and batch: bounded concurrency, order kept."""

from __future__ import annotations

import asyncio
import threading
import time

from paperzoo_llm.backends.scripted import ScriptedBackend
from paperzoo_llm.chat import ChatParams, Message


class Tracker:
    def __init__(self) -> None:
        self.active = 0
        self.peak = 0
        self.lock = threading.Lock()

    def __call__(self, messages: list[Message], params: ChatParams, index: int) -> str:
        with self.lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
        time.sleep(0.05)
        with self.lock:
            self.active -= 1
        return messages[-1].content.upper()


def test_achat_runs_at_most_max_concurrency_at_once() -> None:
    tracker = Tracker()
    backend = ScriptedBackend(policy=tracker, max_concurrency=3)

    async def main() -> list[str]:
        responses = await asyncio.gather(*(backend.achat(f"q{i}") for i in range(12)))
        return [r.text for r in responses]

    assert asyncio.run(main()) == [f"Q{i}" for i in range(12)]
    assert tracker.peak == 3


def test_batch_keeps_order_and_bounds_concurrency() -> None:
    tracker = Tracker()
    backend = ScriptedBackend(policy=tracker, max_concurrency=2)
    texts = [r.text for r in backend.batch([f"p{i}" for i in range(8)])]
    assert texts == [f"P{i}" for i in range(8)]
    assert tracker.peak == 2
