"""Image datasets of the paper, read from the data home, a mirror or the web (sha256-checked).

Every loader returns :class:`Images` with uint8 pixels (N, H, W, C) and labels.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass

import numpy as np

from paperzoo.data import DataFile, fetch
from paperzoo.errors import ConfigError
from paperzoo_els.plugin import CIFAR10_FILES, FASHION_FILES, MNIST_FILES  # also the registry's

__all__ = ["CIFAR10_FILES", "FASHION_FILES", "LOADERS", "MNIST_FILES", "Images", "load_cifar10", "load_fashion_mnist",
           "load_mnist", "to_unit_range"]  # fmt: skip


@dataclass(frozen=True)
class Images:
    """uint8 images (N, H, W, C) with integer labels (N,)."""

    images: np.ndarray
    labels: np.ndarray
    name: str


def _idx(file: DataFile) -> np.ndarray:
    with gzip.open(fetch(file), "rb") as f:
        raw = f.read()
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * ndim).reshape(shape)


def load_mnist() -> Images:
    """MNIST t10k: 10,000 28 × 28 grey digits (the training set here, see :data:`MNIST_FILES`)."""
    return Images(
        _idx(MNIST_FILES["images"])[..., None], _idx(MNIST_FILES["labels"]).astype(np.int64), "mnist"
    )


def load_fashion_mnist() -> Images:
    """Fashion-MNIST train: 60,000 28 × 28 grey clothing images."""
    return Images(_idx(FASHION_FILES["images"])[..., None], _idx(FASHION_FILES["labels"]).astype(np.int64),
                  "fashion-mnist")  # fmt: skip


def load_cifar10() -> Images:
    """CIFAR-10 train subset: 10,000 32 × 32 RGB images (1,000 per class)."""
    with np.load(fetch(CIFAR10_FILES["train"])) as data:
        return Images(data["images"], data["labels"].astype(np.int64), "cifar10")


LOADERS = {"mnist": load_mnist, "fashion-mnist": load_fashion_mnist, "cifar10": load_cifar10}


def to_unit_range(data: Images, n: int, size: int) -> np.ndarray:
    """The first ``n`` images, area-resized to size × size, as float32 in [−1, 1]."""
    if n < 1 or n > len(data.images):
        raise ConfigError(f"n_train must be in [1, {len(data.images)}] for {data.name}, got {n}")
    x = data.images[:n].astype(np.float32) / 127.5 - 1.0
    h = x.shape[1]
    if size != h:
        import jax

        x = np.asarray(jax.image.resize(x, (n, size, size, x.shape[-1]), "linear", antialias=True))
    return np.clip(x, -1.0, 1.0)
