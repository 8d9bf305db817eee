"""Regressions found in review: cache identity, server shutdown, concurrency, validation."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from paperzoo.errors import ConfigError
from paperzoo_llm.backends.openai_api import OpenAIBackend
from paperzoo_llm.backends.scripted import ScriptedBackend
from paperzoo_llm.chat import MAX_N, ChatParams, ChatResponse, Completion, Usage
from paperzoo_llm.cost import CostMeter
from paperzoo_llm.server import LLMServer


def test_two_servers_with_the_same_model_name_do_not_share_cached_answers(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    with (
        LLMServer(ScriptedBackend("yes"), model_name="llama3") as a,
        LLMServer(ScriptedBackend("echo"), model_name="llama3") as b,
    ):
        assert OpenAIBackend("llama3", base_url=a.url, cache=cache).chat("hello").text == "yes"
        assert OpenAIBackend("llama3", base_url=b.url, cache=cache).chat("hello").text == "hello"
        assert b.requests == 1


def test_oracles_with_different_answers_do_not_share_cached_answers(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    assert ScriptedBackend("oracle", answers={"q": "A1"}, cache=cache).chat("q").text == "A1"
    assert ScriptedBackend("oracle", answers={"q": "A2"}, cache=cache).chat("q").text == "A2"


def test_equivalent_parameters_share_a_cache_entry(tmp_path: Path) -> None:
    backend = ScriptedBackend("echo", cache=tmp_path / "cache.sqlite")
    backend.chat("x", temperature=0, stop=["a", "b"])
    assert backend.chat("x", temperature=0.0, stop=["b", "a"]).cached


def test_a_stopped_server_answers_nothing_on_open_connections() -> None:
    server = LLMServer(ScriptedBackend("echo")).start()
    client = OpenAIBackend("echo", base_url=server.url, max_retries=0, timeout=2)
    assert client.chat("before").text == "before"  # the SDK keeps this connection open
    server.stop()
    with pytest.raises(Exception):  # noqa: B017 - any failure: nobody may answer
        client.chat("after stop")
    assert server.requests == 1


def test_stop_without_start_returns() -> None:
    server = LLMServer(ScriptedBackend("echo"))
    done = threading.Event()
    threading.Thread(target=lambda: (server.stop(), done.set()), daemon=True).start()
    assert done.wait(5)


def test_achat_concurrency_bound_holds_above_the_default_pool_and_for_cancelled_callers() -> None:
    active, peak, lock = [0], [0], threading.Lock()

    def slow(messages: object, params: object, index: int) -> str:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.2)
        with lock:
            active[0] -= 1
        return "ok"

    backend = ScriptedBackend(policy=slow, max_concurrency=12)

    async def many() -> None:
        await asyncio.gather(*(backend.achat(f"q{i}") for i in range(24)))

    asyncio.run(many())
    assert peak[0] == 12
    peak[0] = 0
    small = ScriptedBackend(policy=slow, max_concurrency=2)

    async def impatient() -> None:
        for _ in range(6):
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(small.achat("q"), 0.01)

    asyncio.run(impatient())
    time.sleep(0.8)
    assert peak[0] <= 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": MAX_N + 1}, "n must be an integer from 1"),
        ({"n": 2.5}, "n must be an integer"),
        ({"n": True}, "n must be an integer"),
        ({"temperature": "hot"}, "temperature must be a number"),
        ({"temperature": None}, "temperature must be a number"),
        ({"stop": 5}, "stop must be a string or a list"),
        ({"seed": 2**70}, "seed must be a 64-bit integer"),
        ({"seed": True}, "seed must be a 64-bit integer"),
    ],
)
def test_parameter_types_are_checked(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ChatParams(**kwargs)  # type: ignore[arg-type]


def _raw(server: LLMServer, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, object]]:
    import http.client

    host, port = server.url.split("//")[1].split("/")[0].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=5)
    conn.putrequest("POST", "/v1/chat/completions")
    for key, value in headers.items():
        conn.putheader(key, value)
    conn.endheaders()
    conn.send(body)
    response = conn.getresponse()
    data = json.loads(response.read())
    conn.close()
    return response.status, data


@pytest.mark.parametrize(
    ("body", "headers", "message"),
    [
        (b"{}", {"Content-Length": "abc"}, "invalid Content-Length"),
        (b"{}", {"Content-Length": "-1"}, "invalid Content-Length"),
        (b'{"messages": [{"role": "user", "content": "x"}], "stop": 5}', {}, "'stop' must be"),
        (b'{"messages": [{"role": "user", "content": "x"}], "n": 100000}', {}, "n must be an integer"),
    ],
)
def test_server_rejects_odd_requests_with_400(
    server: LLMServer, body: bytes, headers: dict[str, str], message: str
) -> None:
    status, data = _raw(server, body, {"Content-Length": str(len(body)), **headers})
    assert status == 400
    assert message in str(data["error"])


def test_port_out_of_range_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="port must be an integer from 0 to 65535"):
        LLMServer(ScriptedBackend("echo"), port=70000)


def test_missing_usage_makes_the_cost_unknown() -> None:
    meter = CostMeter(prices={"m": (1.0, 1.0)})
    meter.record(ChatResponse((Completion("x"),), Usage(3, 1), "m", "openai"))
    assert meter.cost == pytest.approx(4e-6)
    meter.record(ChatResponse((Completion("x"),), Usage(0, 0, reported=False), "m", "openai"))
    assert meter.cost is None


def test_summary_is_cheap_and_consistent_while_recording() -> None:
    meter = CostMeter()
    response = ChatResponse((Completion("x"),), Usage(2, 1), "m", "scripted")
    stop = threading.Event()

    def record() -> None:
        while not stop.is_set():
            meter.record(response)

    thread = threading.Thread(target=record)
    thread.start()
    start = time.perf_counter()
    for _ in range(200):
        s = meter.summary()
        assert s["prompt_tokens"] == 2 * s["calls"]
    stop.set()
    thread.join()
    assert time.perf_counter() - start < 5


def test_models_endpoint_still_works(server: LLMServer) -> None:
    with urllib.request.urlopen(server.url + "/models", timeout=5) as response:
        assert json.loads(response.read())["object"] == "list"
