"""Context builder, suites on disk, the resumable runner, responders."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from paperzoo.errors import ConfigError, DataError
from paperzoo_minerva.context import ContextBuilder
from paperzoo_minerva.instance import Instance, read_suite, write_suite
from paperzoo_minerva.responders import Responder, make_responder
from paperzoo_minerva.runner import evaluate, load_answers, run_suite, summarise

WORDS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")


def builder(seed: int = 0) -> ContextBuilder:
    return ContextBuilder(np.random.default_rng(seed))


def test_trim_keeps_only_whole_items_within_the_token_budget() -> None:
    b = builder()
    items = b.unique_words(200)
    for length in (1, 7, 50, 133):
        kept = b.trim(items, length)
        assert kept == items[: len(kept)]
        assert b.count(", ".join(kept)) <= length
        assert b.count(", ".join(items[: len(kept) + 1])) > length  # one more would not fit
    pairs = b.word_pairs(100)
    kept = b.trim(pairs, 25)
    assert all(": " in p and p in pairs for p in kept)


def test_context_kinds_fill_the_budget() -> None:
    b = builder(1)
    for kind in ("unique_words", "random_numbers", "word_pairs", "gibberish"):
        items = b.context(kind, 300)
        assert 290 <= b.count(", ".join(items)) <= 300
    words = b.context("unique_words", 400)
    assert len(set(words)) == len(words)
    numbers = [int(x) for x in b.context("random_numbers", 400)]
    assert min(numbers) >= 0 and max(numbers) <= 1000
    assert all(2 <= len(w) <= 9 and w.isalpha() for w in b.context("gibberish", 200))
    with pytest.raises(ConfigError, match="unknown context kind"):
        b.context("emoji", 10)


def test_builder_is_seeded() -> None:
    assert builder(3).context("gibberish", 100) == builder(3).context("gibberish", 100)
    assert builder(3).context("gibberish", 100) != builder(4).context("gibberish", 100)


def _instances(n: int = 6) -> list[Instance]:
    return [Instance(f"i{k}", "string_search_word", "search", f"prompt {k}", "yes" if k % 2 else "no")
            for k in range(n)]  # fmt: skip


def test_suite_round_trips_and_bad_files_are_clear(tmp_path: Path) -> None:
    path = write_suite(_instances(), tmp_path / "suite.jsonl", seed=0)
    assert list(read_suite(path)) == _instances()
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    with pytest.raises(DataError, match="bad.jsonl:1 is not JSON"):
        list(read_suite(tmp_path / "bad.jsonl"))
    (tmp_path / "new.jsonl").write_text('{"format": "paperzoo-minerva/9"}\n')
    with pytest.raises(DataError, match="paperzoo-minerva/9 suite"):
        list(read_suite(tmp_path / "new.jsonl"))


def test_runner_resumes_and_never_asks_twice(tmp_path: Path) -> None:
    asked: list[str] = []
    lock = threading.Lock()

    def respond(instance: Instance) -> str:
        with lock:
            asked.append(instance.id)
        if instance.id == "i3" and asked.count("i3") == 1:
            raise ConnectionError("the server went away")
        return "yes"

    responder = Responder("flaky", respond, max_concurrency=3)
    path = tmp_path / "answers.jsonl"
    with pytest.raises(ConnectionError):
        run_suite(_instances(), responder, path)
    first = load_answers(path, "flaky")
    assert "i3" not in first
    answers = run_suite(_instances(), responder, path)
    assert sorted(answers) == [f"i{k}" for k in range(6)]
    assert sorted(asked) == sorted([f"i{k}" for k in range(6)] + ["i3"])  # only the failed one again
    with open(path, "a") as fh:
        fh.write('{"id": "i0", "torn')  # a crash mid-write
    assert load_answers(path, "flaky") == answers


def test_runner_bounds_concurrency(tmp_path: Path) -> None:
    active, peak = [0], [0]
    lock = threading.Lock()

    def respond(instance: Instance) -> str:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.05)
        with lock:
            active[0] -= 1
        return "no"

    run_suite(_instances(12), Responder("slow", respond, max_concurrency=3), tmp_path / "a.jsonl")
    assert peak[0] == 3


def test_oracle_and_always_yes_scores() -> None:
    instances = _instances(6)
    oracle = make_responder("oracle")
    scores = evaluate(instances, {i.id: oracle.respond(i) for i in instances})
    assert scores[0].value == 1.0
    yes = make_responder("always-yes")
    (s,) = evaluate(instances, {i.id: yes.respond(i) for i in instances})
    assert s.value == pytest.approx(0.5)
    assert summarise([s])["categories"]["search"] == pytest.approx(0.5)


def test_llm_responder_asks_like_minerva(tmp_path: Path) -> None:
    from paperzoo_llm.backends.scripted import ScriptedBackend
    from paperzoo_llm.server import LLMServer

    seen: list[list[dict[str, str]]] = []

    def policy(messages: object, params: object, index: int) -> str:
        seen.append([m.to_dict() for m in messages])  # type: ignore[attr-defined]
        return "yes"

    with LLMServer(ScriptedBackend(policy=policy), model_name="m") as server:
        responder = make_responder("openai:m", base_url=server.url, max_tokens=8)
        answers = run_suite(_instances(2), responder, tmp_path / "answers.jsonl")
    assert set(answers.values()) == {"yes"}
    assert seen[0][0] == {"role": "system", "content": "You are a helpful AI assistant."}
    assert seen[0][1]["content"] in {"prompt 0", "prompt 1"}
    assert json.loads((tmp_path / "answers.jsonl").read_text().splitlines()[0])["responder"] == "openai:m"
