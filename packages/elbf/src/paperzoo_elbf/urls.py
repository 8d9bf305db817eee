"""Malicious-URL data and small URL oracles on disjoint feature subsets.

``malicious_urls()`` reads the mirror's ``urls/urldata.csv`` (``url<TAB>label``).
That file holds 7,085 URLs, all labelled ``bad``: it has no benign URLs.
:func:`benign_urls` therefore *synthesises* non-keys from the keys themselves:
each alphabetic word of a random key is replaced by a benign word of the same
length (Faker's surname and lorem lists), keeping its TLD, digits, symbols and
shape, so an oracle can only learn from the words. Pass a file with ``good`` rows to
:func:`load_labelled_urls` to use real non-keys instead.

Oracles (:func:`url_oracles`), each a scikit-learn pipeline on raw URL strings:

* ``host``: character 3-grams of the host, hashed into 2^b features, logistic
  regression — (2^b + 1) parameters;
* ``shape``: 16 hand features of the rest of the URL and its shape (lengths,
  digit and symbol counts, path depth, query size, entropy), a depth-``d``
  decision tree.
"""

from __future__ import annotations

import csv
import math
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from paperzoo.data import fetch
from paperzoo.errors import DataError
from paperzoo_elbf.oracles import SklearnOracle
from paperzoo_elbf.plugin import URL_FILE

__all__ = [
    "URL_FILE",
    "benign_urls",
    "host_of",
    "load_labelled_urls",
    "malicious_urls",
    "shape_features",
    "url_oracles",
]


def load_labelled_urls(path: str | Path | None = None) -> tuple[list[str], list[str]]:
    """``(bad, good)`` URLs of a ``url<TAB>label`` file (default: the mirror's), duplicates removed.

    Raises:
        DataError: no ``url``/``label`` header, or a label other than good/bad.
    """
    source = Path(path) if path is not None else fetch(URL_FILE)
    bad: dict[str, None] = {}
    good: dict[str, None] = {}
    with open(source, encoding="utf-8", errors="replace", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t")
        if reader.fieldnames is None or not {"url", "label"} <= set(reader.fieldnames):
            raise DataError(f"{source}: expected a tab-separated header 'url<TAB>label'")
        for number, row in enumerate(reader, 2):
            label = (row["label"] or "").strip().lower()
            if label not in ("bad", "good"):
                raise DataError(f"{source}:{number}: label {row['label']!r} is neither 'good' nor 'bad'")
            (bad if label == "bad" else good)[row["url"].strip()] = None
    return list(bad), list(good)


def malicious_urls() -> list[str]:
    """The mirror's 7,085 malicious URLs (the keys of ``elbf.urls``), first occurrence order."""
    return load_labelled_urls()[0]


def host_of(url: str) -> str:
    """The host of a scheme-less URL: up to the first ``/``, ``?`` or ``:``, lower-cased."""
    end = len(url)
    for sep in "/?:":
        i = url.find(sep)
        if i != -1:
            end = min(end, i)
    return url[:end].lower()


_KEEP = frozenset(
    [
        "www",
        "com",
        "net",
        "org",
        "info",
        "biz",
        "html",
        "htm",
        "php",
        "asp",
        "aspx",
        "jsp",
        "js",
        "css",
        "cgi",
        "exe",
        "txt",
        "jpg",
        "jpeg",
        "gif",
        "png",
        "pdf",
        "zip",
        "index",
        "home",
        "main",
        "search",
        "login",
        "admin",
        "images",
        "image",
        "img",
        "files",
        "file",
        "download",
        "downloads",
        "uploads",
        "wp",
        "content",
        "includes",
        "plugins",
        "themes",
        "templates",
        "components",
        "modules",
        "cache",
        "forum",
        "links",
        "page",
    ]
)
"""Structural tokens that benign and malicious URLs share; :func:`benign_urls` keeps them."""
_ALPHA = re.compile(r"[a-z]+", re.IGNORECASE)


def _benign_words() -> dict[int, list[str]]:
    """ASCII surnames of five locales and lorem words (Faker's lists), by length."""
    from faker.providers.lorem.en_US import Provider as Lorem
    from faker.providers.person import cs_CZ, de_DE, en_US, es_ES, it_IT

    words = {w.lower() for w in Lorem.word_list}
    for module in (en_US, de_DE, cs_CZ, es_ES, it_IT):
        words.update(n.lower() for n in module.Provider.last_names)
    by_length: dict[int, list[str]] = {}
    for w in sorted(w for w in words if w.isascii() and w.isalpha()):
        by_length.setdefault(len(w), []).append(w)
    return by_length


def benign_urls(n: int, keys: Sequence[str], *, seed: int = 0) -> list[str]:
    """``n`` distinct synthetic benign URLs with the structure of ``keys``, none of them a key.

    Each is a random key with every alphabetic run replaced by a benign word of
    the same length (a run longer than any word: words joined), except the
    top-level domain and common structural tokens (``www``, ``php``, ``index``,
    ...). Digits, symbols, lengths, path depth and TLDs keep the keys'
    distribution; only the words change.
    """
    if n < 0:
        raise DataError(f"n must be non-negative, got {n}")
    if not keys:
        raise DataError("benign_urls needs keys to take the structure from")
    rng = np.random.default_rng(seed)
    by_length = _benign_words()
    longest = max(by_length)
    taken = set(keys)
    out: dict[str, None] = {}

    def word(length: int) -> str:
        parts = []
        while length > longest:
            parts.append(by_length[longest][int(rng.integers(len(by_length[longest])))])
            length -= longest
        bucket = by_length.get(length) or by_length[min(by_length, key=lambda k: abs(k - length))]
        parts.append(bucket[int(rng.integers(len(bucket)))])
        return "".join(parts)

    def replace(match: re.Match[str]) -> str:
        token = match.group(0)
        return token if token.lower() in _KEEP else word(len(token))

    for _ in range(100):
        if len(out) >= n:
            break
        for k in rng.integers(len(keys), size=int((n - len(out)) * 1.05) + 16):
            url = keys[k]
            host = host_of(url)
            dot = host.rfind(".")
            head, tld = (host[:dot], host[dot:]) if dot > 0 else (host, "")
            candidate = _ALPHA.sub(replace, head) + tld + _ALPHA.sub(replace, url[len(host) :])
            if candidate not in taken:
                out[candidate] = None
    if len(out) < n:
        raise DataError(f"could only make {len(out)} distinct benign URLs of {n}", hint="ask for fewer")
    return list(out)[:n]


_SYMBOLS = "-_.=&%~"


def shape_features(urls: Sequence[str]) -> np.ndarray:
    """16 features of a URL's path, query and shape (not its host's characters).

    Length, path length, query length, path depth, digits in the path, letters in
    the path, each of ``- _ . = & % ~`` in the path, dots in the host (subdomain
    depth), host length, and the character entropy of the path (bits).
    """
    rows = []
    for url in urls:
        host = host_of(url)
        rest = url[len(host) :]
        path, _, query = rest.partition("?")
        counts = Counter(path)
        total = len(path)
        entropy = -sum(c / total * math.log2(c / total) for c in counts.values()) if total else 0.0
        shape = [len(url), len(path), len(query), path.count("/"), sum(ch.isdigit() for ch in path)]
        shape += [sum(ch.isalpha() for ch in path), *(counts[s] for s in _SYMBOLS)]
        rows.append([*shape, host.count("."), len(host), entropy])
    return np.asarray(rows, dtype=float).reshape(len(rows), 16)


def _hosts(urls: Sequence[str]) -> list[str]:
    return [host_of(u) for u in urls]


def url_oracles(
    keys: Sequence[str],
    nonkeys: Sequence[str],
    *,
    host_bits: Sequence[int] = (6, 7, 8, 9, 10),
    tree_depths: Sequence[int] = (2, 3, 4, 6, 8),
    seed: int = 0,
) -> tuple[list[SklearnOracle], list[int]]:
    """Fit the ``host`` oracles (2^b hashed 3-grams, b in ``host_bits``) and the ``shape``
    oracles (trees of the given depths) on ``keys`` vs ``nonkeys``; return them and their groups.

    Sizes are counted by :func:`paperzoo_elbf.oracles.model_size_in_bits` (32-bit numbers).
    """
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer
    from sklearn.tree import DecisionTreeClassifier

    X = list(keys) + list(nonkeys)
    y = np.r_[np.ones(len(keys), dtype=int), np.zeros(len(nonkeys), dtype=int)]
    oracles, groups = [], []
    for b in host_bits:
        model = make_pipeline(
            FunctionTransformer(_hosts),
            HashingVectorizer(analyzer="char", ngram_range=(3, 3), n_features=2**b, alternate_sign=False),
            LogisticRegression(C=10.0, max_iter=2_000, random_state=seed),
        ).fit(X, y)
        oracles.append(SklearnOracle(model, name=f"host 3-grams, 2^{b} features"))
        groups.append(0)
    for depth in tree_depths:
        model = make_pipeline(
            FunctionTransformer(shape_features),
            DecisionTreeClassifier(max_depth=depth, min_samples_leaf=20, random_state=seed),
        ).fit(X, y)
        oracles.append(SklearnOracle(model, name=f"shape tree, depth {depth}"))
        groups.append(1)
    return oracles, groups
