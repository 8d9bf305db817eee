"""Messages, parameters and responses; the scripted backend."""

from __future__ import annotations

import pytest

from paperzoo.errors import ConfigError
from paperzoo_llm.backends.scripted import ScriptedBackend
from paperzoo_llm.chat import ChatParams, ChatResponse, Message, check_messages


def test_string_is_one_user_message() -> None:
    assert check_messages("hi") == [Message("user", "hi")]


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        ([], "no message"),
        ([{"role": "robot", "content": "x"}], "role 'robot'"),
        ([{"role": "user", "content": 3}], "int content"),
        ([("user", "x")], "not a {'role', 'content'} mapping"),
    ],
)
def test_invalid_conversations(messages: list[object], error: str) -> None:
    with pytest.raises(ConfigError, match=error):
        check_messages(messages)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"n": 0}, "n must be"),
        ({"temperature": 3.0}, "temperature"),
        ({"top_p": 0.0}, "top_p"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"stop": ("",)}, "stop"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_invalid_parameters(kwargs: dict[str, object], error: str) -> None:
    with pytest.raises(ConfigError, match=error):
        ChatParams(**kwargs)  # type: ignore[arg-type]


def test_scripted_policies() -> None:
    assert ScriptedBackend("echo").chat("hello there").text == "hello there"
    assert ScriptedBackend("yes").chat("anything?").text == "yes"
    assert ScriptedBackend("count").chat("x", n=3).texts == ["sample 0", "sample 1", "sample 2"]
    oracle = ScriptedBackend("oracle", answers={"2+2?": "4"}, default="?")
    assert oracle.chat("2+2?").text == "4"
    assert oracle.chat("3+3?").text == "?"
    custom = ScriptedBackend(policy=lambda messages, params, i: f"{len(messages)}:{params.seed}")
    assert (
        custom.chat([{"role": "system", "content": "s"}, {"role": "user", "content": "u"}], seed=7).text
        == "2:7"
    )
    with pytest.raises(ConfigError, match="unknown scripted policy 'nope'"):
        ScriptedBackend("nope")


def test_stop_and_max_tokens_set_finish_reason_and_usage() -> None:
    backend = ScriptedBackend("echo")
    cut = backend.chat("one two three four", max_tokens=2)
    assert (cut.text, cut.completions[0].finish_reason) == ("one two", "length")
    assert cut.usage.completion_tokens == 2
    assert cut.usage.prompt_tokens == 4
    stopped = backend.chat("alpha beta. gamma", stop=".")
    assert (stopped.text, stopped.completions[0].finish_reason) == ("alpha beta", "stop")
    assert backend.count_tokens("Hi, you!") == 4


def test_response_round_trips_through_dict() -> None:
    response = ScriptedBackend("count").chat("x", n=2)
    again = ChatResponse.from_dict(response.to_dict(), cached=True)
    assert again.texts == response.texts
    assert again.usage == response.usage
    assert again.cached
