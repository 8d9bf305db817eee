"""The openai backend against the local OpenAI-compatible server, over real HTTP."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from paperzoo.errors import ConfigError
from paperzoo_llm.backends.openai_api import OpenAIBackend
from paperzoo_llm.backends.scripted import ScriptedBackend
from paperzoo_llm.chat import (
    LLMAuthError,
    LLMConnectionError,
    LLMError,
    LLMRateLimitError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
)
from paperzoo_llm.server import LLMServer


def client(server: LLMServer, **kwargs: object) -> OpenAIBackend:
    options: dict[str, object] = {"base_url": server.url, "max_retries": 2, "timeout": 5.0, **kwargs}
    return OpenAIBackend("count", **options)  # type: ignore[arg-type]


def test_n_and_usage_over_http(server: LLMServer) -> None:
    response = client(server).chat("four words in here", n=3, max_tokens=5)
    assert response.texts == ["sample 0", "sample 1", "sample 2"]
    assert response.usage.prompt_tokens == 4  # the scripted tokenizer: one per word
    assert response.usage.completion_tokens == 6
    assert [c.index for c in response.completions] == [0, 1, 2]
    assert server.requests == 1


def test_rate_limit_then_success(server: LLMServer) -> None:
    server.faults.extend([429])
    assert client(server).chat("x").text == "sample 0"
    assert server.requests == 2


def test_server_error_storm_gives_up_clearly(server: LLMServer) -> None:
    server.faults.extend([500] * 10)
    with pytest.raises(LLMServerError, match=r"failed with HTTP 500 after 2 retries") as info:
        client(server).chat("x")
    assert server.url in str(info.value)
    assert server.requests == 3


def test_rate_limit_storm_gives_up_clearly(server: LLMServer) -> None:
    server.faults.extend([429] * 10)
    with pytest.raises(LLMRateLimitError, match=r"still rate-limiting \(429\) after 1 retries"):
        client(server, max_retries=1).chat("x")


def test_timeout(server: LLMServer) -> None:
    server.faults.extend(["sleep:2"])
    start = time.perf_counter()
    with pytest.raises(LLMTimeoutError, match=r"did not answer within 0.3 s"):
        client(server, timeout=0.3, max_retries=0).chat("x")
    assert time.perf_counter() - start < 1.5


def test_malformed_json(server: LLMServer) -> None:
    server.faults.extend(["malformed"])
    with pytest.raises(LLMResponseError, match="malformed answer"):
        client(server).chat("x")


def test_server_ignoring_n_is_emulated(server: LLMServer) -> None:
    server.faults.extend(["n=1"])
    backend = client(server)
    response = backend.chat("x y", n=3, seed=10)
    assert len(response.completions) == 3
    assert server.requests == 3  # one request answered 1 of 3, then two more
    assert response.usage.prompt_tokens == 3 * 2
    assert not backend.capabilities().native_n
    server.faults.extend(["n=1"])
    strict = client(server, emulate_n=False)
    with pytest.raises(LLMResponseError, match="returned 1 of 3 completions"):
        strict.chat("x", n=3)


def test_connection_refused_is_one_clear_error() -> None:
    with pytest.raises(LLMConnectionError, match=r"cannot connect to http://127.0.0.1:9/v1") as info:
        OpenAIBackend("m", base_url="http://127.0.0.1:9/v1", max_retries=0).chat("x")
    assert "is the server running?" in (info.value.hint or "")


def test_wrong_api_key(tmp_path: object) -> None:
    with LLMServer(ScriptedBackend("echo"), api_key="secret") as srv:
        with pytest.raises(LLMAuthError, match="refused the API key: invalid API key"):
            OpenAIBackend("echo", base_url=srv.url, api_key="wrong").chat("x")
        assert OpenAIBackend("echo", base_url=srv.url, api_key="secret").chat("hi").text == "hi"


def test_missing_api_key_for_openai_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(LLMAuthError, match="no API key for https://api.openai.com/v1"):
        OpenAIBackend("gpt-4o-mini")


def _post(url: str, body: object) -> tuple[int, dict[str, object]]:
    request = urllib.request.Request(
        url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": 7}, "temperature"),
        ({"model": "m", "messages": "hello"}, "'messages' must be a list"),
        ({"model": "m", "messages": [{"role": "user", "content": "x"}], "stream": True}, "streaming"),
        ({"model": "m", "messages": [{"role": "user", "content": "x"}], "n": "many"}, "'n' must be a number"),
        ([1, 2], "JSON object"),
    ],
)
def test_server_rejects_bad_requests_in_openai_format(server: LLMServer, body: object, message: str) -> None:
    status, data = _post(server.url, body)
    assert status == 400
    error = data["error"]
    assert isinstance(error, dict)
    assert message in str(error["message"])
    assert error["type"] == "invalid_request_error"


def test_bad_request_from_the_backend_is_one_clear_error(server: LLMServer) -> None:
    with pytest.raises(LLMError, match=r"rejected the request \(HTTP 404\)"):
        client(server, base_url=server.url.replace("/v1", "/nowhere")).chat("x")


def test_models_and_health(server: LLMServer) -> None:
    with urllib.request.urlopen(server.url + "/models", timeout=5) as response:
        assert json.loads(response.read())["data"][0]["id"] == "count"
    with urllib.request.urlopen(server.url.replace("/v1", "/health"), timeout=5) as response:
        assert json.loads(response.read())["status"] == "ok"


def test_port_in_use_is_a_clear_error(server: LLMServer) -> None:
    port = int(server.url.rsplit(":", 1)[1].split("/")[0])
    with pytest.raises(ConfigError, match=f"cannot listen on 127.0.0.1:{port}"):
        LLMServer(ScriptedBackend("echo"), port=port)


def test_count_tokens_with_cl100k(server: LLMServer) -> None:
    assert client(server).count_tokens("hello world") == 2
