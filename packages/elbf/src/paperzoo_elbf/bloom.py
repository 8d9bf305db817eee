"""A Bloom filter (Bloom 1970) over a packed numpy bit array, vectorised over key batches.

The k probe positions of a key come from two 64-bit hashes (see
:func:`paperzoo_elbf.hashing.hash_keys`) by Kirsch–Mitzenmacher double hashing:

    g_i(x) = (h1(x) + i·h2(x) mod 2⁶⁴) mod m,    i = 0, …, k − 1.

Bit j of the filter is bit ``j % 8`` (least significant first) of byte ``j // 8``.
With n keys in m bits the false-positive rate is

    FPR ≈ (1 − e^{−kn/m})^k,   minimised at k = (m/n)·ln 2, where FPR = 2^{−k} ≈ 0.6185^{m/n}.
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
import struct
from pathlib import Path
from typing import Any

import numpy as np

from paperzoo.base import check_int
from paperzoo.errors import ConfigError, DataError
from paperzoo_elbf.hashing import Keys, hash_keys

__all__ = ["BloomFilter"]

MAGIC = b"PZBLOOM\0"
FORMAT_VERSION = 1
_HEADER = struct.Struct("<8sIQQQQ")  # magic, version, n_bits, n_hashes, seed, n_items
_DIGEST = hashlib.sha256().digest_size
_MAX_HASHES = 64  # sizing never picks more: beyond it the FPR is < 2⁻⁶⁴ anyway
_CHUNK = 1 << 16  # keys per probing step
_SCRATCH_MAX_BITS = 1 << 28  # add() never allocates more than 256 MiB of scratch
_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)


def _check_int(name: str, value: Any, low: int, high: int = (1 << 64) - 1) -> int:
    return check_int(name, value, low=low, high=high)


class BloomFilter:
    """A set of keys with no false negatives and a tunable false-positive rate.

    ``n_bits == 0`` means "no filter": every query answers True (so a learned
    filter with an empty backup still has no false negatives) and the FPR is 1.

    Args:
        n_bits: m, the size of the bit array (exactly m bits are used and stored).
        n_hashes: k, the probes per key.
        seed: Selects the hash functions; filters that must be independent need
            different seeds.

    The parameters are read-only attributes ``n_bits``, ``n_hashes`` and ``seed``.
    """

    def __init__(self, n_bits: int, n_hashes: int, *, seed: int = 0) -> None:
        self._n_bits = _check_int("n_bits", n_bits, 0)
        self._n_hashes = _check_int("n_hashes", n_hashes, 1)
        self._seed = _check_int("seed", seed, 0)
        self._n_items = 0
        self._bits = np.zeros(-(-self._n_bits // 8), dtype=np.uint8)

    # -- sizing ---------------------------------------------------------------------

    @classmethod
    def with_bits(cls, n_bits: int, n_items: int, *, seed: int = 0) -> BloomFilter:
        """m = ``n_bits`` bits with the optimal k = max(1, round((m/n)·ln 2)) for n = ``n_items``.

        k is 1 when n = 0, and at most 64.
        """
        n_bits = _check_int("n_bits", n_bits, 0)
        n_items = _check_int("n_items", n_items, 0)
        k = round(n_bits / n_items * math.log(2)) if n_items else 1
        return cls(n_bits, min(max(1, k), _MAX_HASHES), seed=seed)

    @classmethod
    def for_capacity(cls, n_items: int, fpr: float, *, seed: int = 0) -> BloomFilter:
        """The smallest optimal filter for ``n_items`` keys at false-positive rate ``fpr``.

        m = ⌈−n·ln ε / ln²2⌉ (at least 1 bit, so an empty filter rejects everything;
        m = 0 when ε = 1), and k as in :meth:`with_bits`.
        """
        n_items = _check_int("n_items", n_items, 0)
        if isinstance(fpr, bool) or not isinstance(fpr, float | int | np.floating) or not 0 < fpr <= 1:
            raise ConfigError(f"fpr must be a number in (0, 1]; got {fpr!r}")
        n_bits = 0 if fpr == 1 else max(1, math.ceil(-n_items * math.log(fpr) / math.log(2) ** 2))
        return cls.with_bits(n_bits, n_items, seed=seed)

    # -- state ----------------------------------------------------------------------

    @property
    def n_bits(self) -> int:
        """m, the size of the bit array."""
        return self._n_bits

    @property
    def n_hashes(self) -> int:
        """k, the probes per key."""
        return self._n_hashes

    @property
    def seed(self) -> int:
        """The seed of the hash functions."""
        return self._seed

    @property
    def n_items(self) -> int:
        """Keys added so far, counting every key of every :meth:`add` call (a key added
        twice counts twice); :meth:`expected_fpr` uses it."""
        return self._n_items

    @property
    def size_in_bits(self) -> int:
        """m: the bits the filter costs (the stored bit array, no padding counted)."""
        return self.n_bits

    @property
    def bits(self) -> np.ndarray:
        """The bit array as ⌈m/8⌉ read-only bytes (bit j is bit j % 8 of byte j // 8)."""
        view = self._bits.view()
        view.flags.writeable = False
        return view

    @property
    def fill_ratio(self) -> float:
        """Fraction of the m bits that are set (1.0 for m = 0, which passes every probe)."""
        if not self.n_bits:
            return 1.0
        return int(_POPCOUNT[self._bits].sum(dtype=np.int64)) / self.n_bits

    def expected_fpr(self, n_items: float | None = None) -> float:
        """(1 − e^{−kn/m})^k for n = ``n_items`` keys (default: :attr:`n_items`); 1 when m = 0."""
        n = self.n_items if n_items is None else n_items
        if not n >= 0:
            raise ConfigError(f"n_items must be ≥ 0; got {n_items!r}")
        if not self.n_bits:
            return 1.0
        return float((-math.expm1(-self.n_hashes * n / self.n_bits)) ** self.n_hashes)

    def estimated_fpr(self) -> float:
        """fill_ratio^k: the FPR of a fresh key against the actual bit array."""
        return self.fill_ratio**self.n_hashes

    # -- keys -----------------------------------------------------------------------

    def _probe(self, x: np.ndarray) -> np.ndarray:
        """Which bits x mod m are set (x: uint64 array; returns bool)."""
        m = np.uint64(self.n_bits)
        pos = x - (x // m) * m  # numpy divides by a scalar with libdivide, without a `div`
        byte = (pos >> np.uint64(3)).view(np.int64)
        shift = (pos & np.uint64(7)).astype(np.uint8)
        hit: np.ndarray = np.take(self._bits, byte) >> shift
        hit &= np.uint8(1)
        return hit.view(np.bool_)

    def add(self, keys: Keys) -> BloomFilter:
        """Insert a batch of keys (or one key); returns ``self``.

        All keys are hashed before any bit is set, so a bad batch changes nothing.
        """
        h1, h2 = hash_keys(keys, self.seed)
        if self.n_bits and len(h1):
            steps = np.arange(self.n_hashes, dtype=np.uint64)
            m = np.uint64(self.n_bits)
            # np.bitwise_or.at costs ~10 ns a probe; scattering into an unpacked scratch
            # array ~2 ns a probe plus ~0.1 ns a bit to clear and pack it: pick the cheaper.
            many = self.n_bits <= _SCRATCH_MAX_BITS and len(h1) * self.n_hashes * 100 >= self.n_bits
            scratch = np.zeros(self.n_bits, dtype=np.bool_) if many else None
            for start in range(0, len(h1), _CHUNK):
                x = h1[start : start + _CHUNK, None] + steps * h2[start : start + _CHUNK, None]
                pos = (x - (x // m) * m).ravel()
                if scratch is None:
                    mask = np.left_shift(np.uint8(1), (pos & np.uint64(7)).astype(np.uint8))
                    np.bitwise_or.at(self._bits, (pos >> np.uint64(3)).view(np.int64), mask)
                else:
                    scratch[pos.view(np.int64)] = True
            if scratch is not None:
                self._bits |= np.packbits(scratch, bitorder="little")
        self._n_items += len(h1)
        return self

    def contains(self, keys: Keys) -> np.ndarray:
        """Membership of each key of a batch: True for every added key, and for a
        fresh key with probability ≈ :meth:`expected_fpr`. Returns a bool array."""
        h1, h2 = hash_keys(keys, self.seed)
        if not self.n_bits:
            return np.ones(len(h1), dtype=np.bool_)
        out = np.zeros(len(h1), dtype=np.bool_)
        for start in range(0, len(h1), _CHUNK):
            # Probe i = 0, 1, … and keep only the keys that passed so far: against a
            # half-full filter a fresh key is rejected after ~2 probes on average.
            x = h1[start : start + _CHUNK].copy()
            stride = h2[start : start + _CHUNK]
            alive = np.arange(start, start + len(x))
            for i in range(self.n_hashes):
                if i:
                    x += stride
                hit = self._probe(x)
                if not hit.all():
                    keep = np.flatnonzero(hit)
                    x, stride, alive = x[keep], stride[keep], alive[keep]
            out[alive] = True
        return out

    def __contains__(self, key: object) -> bool:
        """``key in bloom`` for one ``int``, ``str`` or ``bytes`` key."""
        if not isinstance(key, int | str | bytes | np.integer):
            raise ConfigError(
                f"`in` takes a single int, str or bytes key; got {type(key).__name__}",
                hint="use contains() for a batch",
            )
        return bool(self.contains(key)[0])

    # -- combining ------------------------------------------------------------------

    def copy(self) -> BloomFilter:
        """An independent filter with the same parameters, bits and :attr:`n_items`."""
        twin = BloomFilter(self.n_bits, self.n_hashes, seed=self.seed)
        twin._bits[:] = self._bits
        twin._n_items = self._n_items
        return twin

    def union(self, other: BloomFilter) -> BloomFilter:
        """A new filter holding the keys of both (bitwise OR; :attr:`n_items` add up).

        Both must have the same n_bits, n_hashes and seed.
        """
        if not isinstance(other, BloomFilter):
            raise ConfigError(f"union needs another BloomFilter; got {type(other).__name__}")
        if self._params() != other._params():
            raise ConfigError(
                f"cannot unite filters with different (n_bits, n_hashes, seed): "
                f"{self._params()} and {other._params()}",
                hint="build both with the same n_bits, n_hashes and seed",
            )
        joined = self.copy()
        joined._bits |= other._bits
        joined._n_items += other._n_items
        return joined

    def _params(self) -> tuple[int, int, int]:
        return self.n_bits, self.n_hashes, self.seed

    def __eq__(self, other: object) -> bool:
        """Same n_bits, n_hashes, seed and bits (:attr:`n_items` is bookkeeping, not compared)."""
        if not isinstance(other, BloomFilter):
            return NotImplemented
        return self._params() == other._params() and np.array_equal(self._bits, other._bits)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return (
            f"BloomFilter(n_bits={self.n_bits}, n_hashes={self.n_hashes}, seed={self.seed}, "
            f"n_items={self.n_items}, fill_ratio={self.fill_ratio:.3f})"
        )

    # -- serialisation --------------------------------------------------------------

    def to_bytes(self) -> bytes:
        """Header (magic ``PZBLOOM\\0``, format version, n_bits, n_hashes, seed, n_items;
        little-endian), the ⌈m/8⌉ bytes of bits, then the SHA-256 of all that."""
        body = (
            _HEADER.pack(MAGIC, FORMAT_VERSION, self.n_bits, self.n_hashes, self.seed, self.n_items)
            + self._bits.tobytes()
        )
        return body + hashlib.sha256(body).digest()

    @classmethod
    def from_bytes(cls, data: bytes | bytearray | memoryview) -> BloomFilter:
        """Rebuild a filter from :meth:`to_bytes` output, bit for bit.

        Raises:
            DataError: Not a Bloom filter (wrong magic), a newer format version, a
                truncated or over-long payload, or a checksum mismatch.
        """
        data = bytes(data)
        if data[: len(MAGIC)] != MAGIC:
            if MAGIC.startswith(data):
                raise DataError(f"truncated Bloom filter: {len(data)} bytes, not even a header")
            raise DataError(f"not a paperzoo Bloom filter: starts with {data[:8]!r}, not {MAGIC!r}")
        if len(data) < _HEADER.size:
            raise DataError(f"truncated Bloom filter: {len(data)} bytes, the header alone is {_HEADER.size}")
        _, version, n_bits, n_hashes, seed, n_items = _HEADER.unpack_from(data)
        if version != FORMAT_VERSION:
            raise DataError(
                f"Bloom filter format version {version} is not supported (this version reads {FORMAT_VERSION})",
                hint="upgrade paperzoo-elbf" if version > FORMAT_VERSION else None,
            )
        size = _HEADER.size + -(-n_bits // 8) + _DIGEST
        if len(data) != size:
            state = "truncated" if len(data) < size else "over-long"
            raise DataError(f"{state} Bloom filter: {len(data)} bytes, expected {size} for n_bits={n_bits}")
        if hashlib.sha256(data[:-_DIGEST]).digest() != data[-_DIGEST:]:
            raise DataError("Bloom filter checksum mismatch: the data is corrupt")
        try:
            bloom = cls(n_bits, n_hashes, seed=seed)
        except ConfigError as error:
            raise DataError(f"Bloom filter header is invalid: {error}") from None
        bloom._bits[:] = np.frombuffer(data, dtype=np.uint8, count=len(bloom._bits), offset=_HEADER.size)
        if n_bits % 8 and bloom._bits[-1] >> (n_bits % 8):
            raise DataError(f"Bloom filter has bits set beyond n_bits={n_bits}: the data is corrupt")
        bloom._n_items = n_items
        return bloom

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write :meth:`to_bytes` to ``path`` atomically: a temporary file in the same
        directory, fsynced, then renamed over ``path``; on any failure it is removed
        and an existing ``path`` is left untouched."""
        path = Path(path)
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(self.to_bytes())
                file.flush()
                os.fsync(file.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> BloomFilter:
        """Read a filter written by :meth:`save`.

        Raises:
            DataError: The file cannot be read or is not a valid filter (see :meth:`from_bytes`).
        """
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise DataError(f"cannot read Bloom filter {path}: {error.strerror or error}") from error
        try:
            return cls.from_bytes(data)
        except DataError as error:
            raise DataError(f"{path}: {error.message}", hint=error.hint) from None
