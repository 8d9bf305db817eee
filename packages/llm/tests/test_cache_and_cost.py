"""The response cache (also across processes) and the cost meter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from paperzoo_llm.backends.openai_api import OpenAIBackend
from paperzoo_llm.backends.scripted import ScriptedBackend
from paperzoo_llm.cache import ResponseCache
from paperzoo_llm.cost import CostMeter
from paperzoo_llm.server import LLMServer


def test_cache_answers_the_same_request_without_calling_again(server: LLMServer, tmp_path: Path) -> None:
    meter = CostMeter()
    backend = OpenAIBackend("count", base_url=server.url, cache=tmp_path / "cache.sqlite", meter=meter)
    first = backend.chat("hello", n=2, seed=1)
    second = backend.chat("hello", n=2, seed=1)
    assert server.requests == 1
    assert not first.cached
    assert second.cached
    assert second.texts == first.texts
    assert second.usage == first.usage
    backend.chat("hello", n=2, seed=2)  # another seed is another request
    backend.chat("hello", n=1, seed=1)  # so is another n
    assert server.requests == 3
    summary = meter.summary()
    assert (summary["calls"], summary["cache_hits"]) == (4, 1)
    assert meter.prompt_tokens == 3 * 1


def test_cache_survives_a_new_backend(server: LLMServer, tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    OpenAIBackend("count", base_url=server.url, cache=path).chat("resume me")
    again = OpenAIBackend("count", base_url=server.url, cache=ResponseCache(path)).chat("resume me")
    assert again.cached
    assert server.requests == 1
    assert len(ResponseCache(path)) == 1


WRITER = """
import sys
from paperzoo_llm.backends.scripted import ScriptedBackend
backend = ScriptedBackend("echo", cache=sys.argv[1])
for i in range(40):
    backend.chat(f"prompt {i % 25}")   # overlapping keys across processes
"""


def test_concurrent_writers_share_one_cache(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stderr=subprocess.PIPE) for _ in range(4)
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err.decode()
    cache = ResponseCache(path)
    assert len(cache) == 25
    backend = ScriptedBackend("echo", cache=cache)
    assert backend.chat("prompt 7").cached
    assert backend.chat("prompt 7").text == "prompt 7"


def test_cost_meter_prices_and_totals() -> None:
    meter = CostMeter(prices={"echo": (1.0, 2.0)})
    backend = ScriptedBackend("echo", meter=meter)
    backend.chat("a b c")  # 3 prompt tokens, 3 completion tokens
    backend.chat("d e", n=2)  # 2 prompt tokens, 4 completion tokens
    assert (meter.prompt_tokens, meter.completion_tokens, meter.total_tokens) == (5, 7, 12)
    assert meter.cost == pytest.approx((5 * 1.0 + 7 * 2.0) / 1e6)
    assert meter.summary()["by_model"]["echo"] == {"calls": 2, "prompt_tokens": 5, "completion_tokens": 7}
    ScriptedBackend("yes", meter=meter).chat("x")
    assert meter.cost is None  # "yes" has no price
    meter.reset()
    assert meter.summary()["calls"] == 0


def test_cost_meter_logs_into_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from paperzoo.runs import Run
    from paperzoo.specs import ExperimentSpec

    meter = CostMeter()
    ScriptedBackend("echo", meter=meter).chat("one two")
    run = Run(
        id="r", spec=ExperimentSpec("x.y", "m:f"), scale="smoke", seed=0, settings={}, directory=tmp_path
    )
    meter.log_to(run)
    run.close()
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert any('"llm.prompt_tokens", "value": 2.0' in line for line in lines)
