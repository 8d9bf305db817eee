"""Text corpora from the mirror, byte-level tokens and batches of windows.

Tokens are the UTF-8 bytes of the text (vocabulary 256): for tiny-shakespeare,
which is ASCII, this is character-level modelling, as in a CPU re-run of the paper's setup.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paperzoo.data import fetch
from paperzoo.errors import ConfigError
from paperzoo_laser.plugin import TINYSHAKESPEARE, WIKITEXT2

__all__ = [
    "Corpus",
    "decode",
    "encode",
    "load_corpus",
    "load_tinyshakespeare",
    "load_wikitext2",
    "sample_windows",
]


@dataclass(frozen=True)
class Corpus:
    """Byte tokens of a train and a validation split (uint8 arrays)."""

    name: str
    train: np.ndarray
    val: np.ndarray


def encode(text: str) -> np.ndarray:
    """UTF-8 bytes of ``text`` as a uint8 array (token ids 0–255)."""
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).copy()


def decode(tokens: np.ndarray) -> str:
    """Inverse of :func:`encode` (invalid byte sequences are replaced)."""
    return np.asarray(tokens, dtype=np.uint8).tobytes().decode("utf-8", errors="replace")


def load_tinyshakespeare(val_fraction: float = 0.1) -> Corpus:
    """tiny-shakespeare (1,115,394 characters): the first 90 % trains, the last 10 % validates."""
    if not 0.0 < val_fraction < 1.0:
        raise ConfigError(f"val_fraction must be in (0, 1), got {val_fraction}")
    tokens = encode(fetch(TINYSHAKESPEARE).read_text(encoding="utf-8"))
    cut = int(len(tokens) * (1.0 - val_fraction))
    return Corpus("tinyshakespeare", tokens[:cut], tokens[cut:])


def load_wikitext2() -> Corpus:
    """WikiText-2 (tokenised): its validation split trains, its test split validates.

    The mirror holds only these two splits, so they stand in for train and validation.
    """
    train, val = (encode(fetch(f).read_text(encoding="utf-8")) for f in WIKITEXT2)
    return Corpus("wikitext-2", train, val)


def load_corpus(name: str) -> Corpus:
    """The corpus called ``name``: ``"tinyshakespeare"`` or ``"wikitext-2"``."""
    loaders = {"tinyshakespeare": load_tinyshakespeare, "wikitext-2": load_wikitext2}
    if name not in loaders:
        raise ConfigError(f"unknown corpus {name!r}", hint=f"use one of {', '.join(loaders)}")
    return loaders[name]()


def sample_windows(tokens: np.ndarray, n: int, length: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` random windows of ``length`` consecutive tokens, (n, length) int32."""
    if len(tokens) <= length:
        raise ConfigError(f"a split of {len(tokens)} tokens is too short for windows of {length}")
    starts = rng.integers(0, len(tokens) - length, size=n)
    return tokens[starts[:, None] + np.arange(length)].astype(np.int32)
