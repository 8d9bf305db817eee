"""The direct-prompt forecaster: prompt format, parsing, rejection with retries, clear failure."""

from __future__ import annotations

import numpy as np
import pytest

from paperzoo.data import locate_unverified
from paperzoo.errors import ConfigError
from paperzoo_cik.direct_prompt import DirectPrompt, ForecastFailedError, make_prompt, parse_forecast
from paperzoo_cik.forecasters import make_forecaster
from paperzoo_cik.plugin import TASKS_FILE

pytest.importorskip("paperzoo_llm")
pytestmark = pytest.mark.skipif(
    locate_unverified(TASKS_FILE) is None, reason="cik/all_tasks.json not available"
)


@pytest.fixture(scope="module")
def tasks():
    from paperzoo_cik.tasks import load_tasks

    return load_tasks()


@pytest.fixture(scope="module")
def inst(tasks):
    """An instance with every context text."""
    return next(i for i in tasks if i.background and i.scenario and i.constraints_text and i.horizon < 30)


def _answer(instance, values=None) -> str:
    values = instance.future_values if values is None else values
    lines = "\n".join(f"({t}, {float(v)!r})" for t, v in zip(instance.future_time, values))
    return f"Sure.\n<forecast>\n{lines}\n</forecast>\nDone."


def _scripted(policy):
    from paperzoo_llm.backends.scripted import ScriptedBackend

    calls: list[int] = []

    def counting(messages, params, index):
        if index == 0:
            calls.append(params.n)
        return policy(messages, params, index, len(calls))

    return ScriptedBackend(policy=counting), calls


def test_prompt_has_context_history_and_future_timestamps(inst) -> None:
    prompt = make_prompt(inst)
    assert f"Background: {inst.background}" in prompt
    assert f"Constraints: {inst.constraints_text}" in prompt
    assert f"Scenario: {inst.scenario}" in prompt
    assert prompt.count("\n(") - 5 == len(inst.past_time)  # the example block has 5 lines
    assert f"({inst.past_time[0]}, " in prompt
    assert all(f"'{t}'" in prompt for t in inst.future_time)
    bare = make_prompt(inst, use_context=False)
    assert inst.background not in bare and "<context>\n\n</context>" in bare


def test_parse_reads_every_timestamp_and_rejects_a_missing_one(inst) -> None:
    np.testing.assert_array_equal(parse_forecast(_answer(inst), inst.future_time), inst.future_values)
    quoted = _answer(inst).replace(f"({inst.future_time[0]},", f"('{inst.future_time[0]}',")
    np.testing.assert_array_equal(parse_forecast(quoted, inst.future_time), inst.future_values)
    missing = _answer(inst).replace(f"({inst.future_time[-1]},", "(1999-01-01 00:00:00,")
    assert parse_forecast(missing, inst.future_time) is None
    assert parse_forecast("(2020-01-01 00:00:00, 1.0)", inst.future_time) is None  # no tags
    assert parse_forecast(_answer(inst).replace(", ", ", nan"), inst.future_time) is None


def test_collects_n_samples_in_one_call_when_all_are_valid(inst) -> None:
    backend, calls = _scripted(lambda m, p, i, c: _answer(inst, inst.future_values + i))
    samples = DirectPrompt(model=backend).forecast(inst)
    assert samples.shape == (25, inst.horizon) and calls == [25]
    np.testing.assert_array_equal(samples[:, 0] - inst.future_values[0], np.arange(25))


def test_rejected_samples_are_retried_in_batches_of_five(inst) -> None:
    # first call: 20 of 25 valid; second call: 5 of 5
    backend, calls = _scripted(lambda m, p, i, c: "no forecast" if c == 1 and i >= 20 else _answer(inst))
    forecaster = DirectPrompt(model=backend)
    assert forecaster.forecast(inst).shape == (25, inst.horizon)
    assert calls == [25, 5] and forecaster.completions_[inst.key] == (25, 30)


def test_too_few_valid_samples_fail_in_one_line(inst) -> None:
    backend, calls = _scripted(lambda m, p, i, c: _answer(inst) if i < 2 else "I cannot forecast that.")
    with pytest.raises(ForecastFailedError, match=r"gave 6 valid forecast\(s\) of 25") as info:
        DirectPrompt(model=backend).forecast(inst)
    assert calls == [25, 5, 5]
    assert "\n" not in str(info.value) and "n_retries" in str(info.value)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_bad_retry_settings_are_rejected_before_any_call(inst, bad) -> None:
    backend, calls = _scripted(lambda m, p, i, c: _answer(inst))
    with pytest.raises(ConfigError, match="DirectPrompt: n_retries must be an integer ≥ 1"):
        DirectPrompt(model=backend, n_retries=bad).forecast(inst)
    assert calls == []


def test_direct_prompt_follows_the_estimator_rules() -> None:
    from paperzoo import clone

    f = make_forecaster("direct-prompt", model="scripted:count", use_context=False)
    assert isinstance(f, DirectPrompt) and not hasattr(f, "backend_")
    assert f.get_params()["use_context"] is False and f.get_params()["n_retries"] == 3
    assert clone(f.set_params(n_retries=5)).n_retries == 5
    assert repr(f) == "DirectPrompt(model='scripted:count', n_retries=5, use_context=False)"


def _row(outcome, metric: str) -> float:
    return next(r.value for r in outcome.result.rows if r.metric == metric)


def test_benchmark_with_an_answering_model_scores_zero_and_a_silent_one_scores_five(
    tasks, tmp_path, monkeypatch
) -> None:
    """End to end through the core: the oracle answers parse back to the true future."""
    from paperzoo import PluginHost, execute
    from paperzoo.runs import RunRequest

    monkeypatch.setenv("PAPERZOO_HOME", str(tmp_path))
    chosen = [i for i in tasks if i.seed == 1 and i.horizon <= 30][:3]
    answers = {make_prompt(i): _answer(i) for i in chosen}
    overrides = {
        "forecaster": "direct-prompt",
        "tasks": [i.task for i in chosen],
        "seeds": [1],
        "model": "scripted:oracle",
        "llm_options": {"answers": answers},
    }
    host = PluginHost()
    good = execute(RunRequest("cik.benchmark", "smoke", 0, overrides=overrides), host=host, reraise=True)
    assert _row(good, "aggregate RCRPS") < 1e-9
    assert _row(good, "failed instances (scored 5)") == 0
    silent = {**overrides, "llm_options": {"answers": {}}}
    bad = execute(RunRequest("cik.benchmark", "smoke", 0, overrides=silent), host=host, reraise=True)
    assert _row(bad, "aggregate RCRPS") == 5.0
    assert _row(bad, "failed instances (scored 5)") == 3
