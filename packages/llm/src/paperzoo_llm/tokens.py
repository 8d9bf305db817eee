"""A deterministic word-level tokenizer for backends without a real one."""

from __future__ import annotations

import re

__all__ = ["word_tokens"]

_TOKEN = re.compile(r"\w+|[^\w\s]")


def word_tokens(text: str) -> list[str]:
    """Words and single punctuation marks: ``"Hi, you!"`` → ``["Hi", ",", "you", "!"]``."""
    return _TOKEN.findall(text)
