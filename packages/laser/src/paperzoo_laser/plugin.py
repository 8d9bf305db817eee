"""paperzoo plugin ``laser``: hook implementations only.

Everything is named here and pointed at by a ``"module:attr"`` target, imported on
first use: listing plugins never imports numpy, torch or jax.
"""

from __future__ import annotations

from collections.abc import Callable

from paperzoo import DatasetSpec, ExperimentSpec, MetricSpec, PluginInfo, hookimpl
from paperzoo.data import DataFile

TINYSHAKESPEARE = DataFile(
    path="tinyshakespeare/input.txt",
    url="https://raw.githubusercontent.com/karpathy/char-rnn/master/data/tinyshakespeare/input.txt",
    sha256="86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed",
    size=1_115_394,
)

_WIKITEXT2_URL = (
    "https://raw.githubusercontent.com/pytorch/examples/main/word_language_model/data/wikitext-2/"
)
WIKITEXT2 = (
    DataFile(
        path="wikitext-2/valid.txt",
        url=_WIKITEXT2_URL + "valid.txt",
        sha256="f0737ed31fc1329026e95cb8b98e19c2a182c39c240ab909dc31abf2f8af58e8",
        size=1_121_681,
    ),
    DataFile(
        path="wikitext-2/test.txt",
        url=_WIKITEXT2_URL + "test.txt",
        sha256="d790b833ef8cf03a90db7bf1271b7520b83c45ce07ba3c1a9699df81e239eca0",
        size=1_256_449,
    ),
)

LM_SETTINGS = {
    "corpus": "tinyshakespeare",
    "attentions": ["softmax", "laser"],
    "laser_shift": "global",
    "seeds": 3,
    "d_model": 64,
    "n_layers": 2,
    "n_heads": 4,
    "context": 64,
    "batch_size": 16,
    "steps": 1000,
    "lr": 2e-3,
    "warmup": 30,
    "eval_every": 100,
    "eval_batches": 8,
    "checkpoint": True,
}
"""``laser.lm`` at the default scale (≤ 10 min on 2 CPU cores, all seeds and both attentions)."""


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(
        id="laser",
        framework="jax",
        paper="LASER: Attention with Exponential Transformation",
        venue="ICML 2025",
        url="https://arxiv.org/abs/2411.03493",
    )


@hookimpl
def paperzoo_register_metrics(register: Callable[[MetricSpec], None]) -> None:
    register(
        MetricSpec(
            name="laser.small-attention-fraction",
            target="paperzoo_laser.training:small_probability_fraction",
            summary="Share of visible causal attention probabilities below 1e-3 (the paper's vanishing-gradient cue).",
            formula="mean over layers, heads and i ≥ j of [a_ij < 1e-3]",
            greater_is_better=None,
        )
    )


@hookimpl
def paperzoo_register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    register(
        DatasetSpec(
            name="laser.tinyshakespeare",
            target="paperzoo_laser.text:load_tinyshakespeare",
            summary="tiny-shakespeare as byte tokens: first 90 % train, last 10 % validation.",
            files=(TINYSHAKESPEARE,),
            homepage="https://github.com/karpathy/char-rnn",
            license="MIT",
            citation="Karpathy, char-rnn (2015), data/tinyshakespeare/input.txt",
        )
    )
    register(
        DatasetSpec(
            name="laser.wikitext-2",
            target="paperzoo_laser.text:load_wikitext2",
            summary="WikiText-2 (tokenised) as byte tokens: its valid split trains, its test split validates.",
            files=WIKITEXT2,
            homepage="https://github.com/pytorch/examples/tree/main/word_language_model",
            license="CC BY-SA 3.0",
            citation="Merity et al., Pointer Sentinel Mixture Models, ICLR 2017",
        )
    )


@hookimpl
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    register(
        ExperimentSpec(
            name="laser.lm",
            target="paperzoo_laser.experiments:lm",
            summary="Causal LM on tiny-shakespeare, softmax vs LASER: validation loss, gradient norms, small probs.",
            settings=LM_SETTINGS,
            scales={
                "smoke": {
                    "seeds": 2,
                    "d_model": 32,
                    "n_layers": 1,
                    "context": 32,
                    "steps": 40,
                    "eval_every": 20,
                    "eval_batches": 2,
                    "checkpoint": False,
                },
                "paper": {
                    "seeds": 3,
                    "d_model": 128,
                    "n_layers": 4,
                    "context": 128,
                    "steps": 1000,
                    "lr": 1e-3,
                    "warmup": 50,
                    "eval_every": 100,
                },  # the notes' CPU re-run; the paper's 301M-parameter C4 model is out of reach
            },
            reproduces="301M C4 LM: LASER test loss 2.595 vs softmax 2.641 (−1.74 %); notes' CPU re-run −1.6 %",
        )
    )
