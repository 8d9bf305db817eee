"""Seeded 64-bit hashing of key batches, vectorised with numpy.

A key is an integer (taken modulo 2⁶⁴, so ``-1`` and ``2**64 - 1`` are the same key)
or a byte string. ``str`` keys are UTF-8 encoded, so ``"a"`` and ``b"a"`` are the
same key, while ``"a"`` and ``"a\\0"`` are not (the length is hashed). numpy ``U``/``S``
arrays follow numpy's own rule that trailing NULs are not part of an element.

All arithmetic is on uint64 arrays, which wrap modulo 2⁶⁴ silently. String keys are
handled a chunk at a time (so their objects stay in cache and the temporaries stay
small): checked by one ``str.join``, measured by ``len``, and copied into a
zero-padded byte matrix by ``np.array(..., dtype="S<width>")``, all at C speed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, TypeAlias, cast

import numpy as np

from paperzoo.errors import ConfigError

__all__ = ["Keys", "as_keys", "hash_keys"]

Key: TypeAlias = "int | str | bytes | np.integer[Any]"
Keys: TypeAlias = "Key | np.ndarray | Iterable[Key]"
Strings: TypeAlias = "list[str] | list[bytes]"

_U64 = np.dtype(np.uint64)
_WORD = np.dtype("<u8")  # byte strings are read as little-endian 64-bit words
_MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15  # ⌊2⁶⁴/φ⌋, the splitmix64 increment
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_CHUNK = 1 << 16  # integer keys per step: the temporaries stay in cache
_STRING_CHUNK = 1 << 13  # string keys per step: their objects stay in cache between passes
_MATRIX_BYTES = 1 << 23  # a padded byte matrix larger than this is split in halves


def _mix_int(z: int) -> int:
    """mix(z) on a Python int (see :func:`hash_keys`)."""
    z &= _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _mix(z: np.ndarray) -> np.ndarray:
    """mix(z) elementwise, in place on a uint64 array (see :func:`hash_keys`)."""
    t = z >> np.uint64(30)
    z ^= t
    z *= _M1
    np.right_shift(z, np.uint64(27), out=t)
    z ^= t
    z *= _M2
    np.right_shift(z, np.uint64(31), out=t)
    z ^= t
    return z


def _kind_error(what: str) -> ConfigError:
    return ConfigError(
        f"keys must be all integers, all str or all bytes; got {what}",
        hint="convert them to one kind first, e.g. with str(k) or int(k)",
    )


def _mixed_error(keys: Sequence[Any]) -> ConfigError:
    types = {type(k) for k in keys}
    names = ", ".join(sorted(t.__name__ for t in types))
    return _kind_error(f"a mix of {names}" if len(types) > 1 else f"keys of type {names}")


def _int_array(values: Sequence[Any]) -> np.ndarray:
    """Python/numpy integers → uint64 (two's complement for negatives)."""
    if not all(issubclass(t, int | np.integer) and t is not bool for t in set(map(type, values))):
        raise _mixed_error(values)  # (bool is an int subclass, but True is no key)
    arr = np.array(values)
    if arr.dtype.kind in "iu":
        return arr.astype(_U64)
    ints = [int(v) for v in values]  # numpy found no common integer dtype
    if min(ints) < -(1 << 63) or max(ints) > _MASK64:
        raise ConfigError(
            "integer keys must lie in [-2**63, 2**64)", hint="hash larger integers as bytes or str"
        )
    return np.array([v & _MASK64 for v in ints], dtype=_U64)


def _batch(keys: Keys) -> np.ndarray | Strings:
    """A uint64 array of integer keys, or a list whose first key is a ``str`` (or ``bytes``).

    Only integer batches are fully checked here; a string batch is checked chunk by
    chunk by :func:`_byte_strings`, while its objects are in cache anyway.
    """
    if isinstance(keys, bool | np.bool_):
        raise _kind_error("a bool")
    if isinstance(keys, str | bytes | int | np.integer):
        keys = [keys]
    elif isinstance(keys, np.ndarray):
        keys = keys.reshape(1) if keys.ndim == 0 else keys
        if keys.ndim != 1:
            raise ConfigError(f"keys must be a 1-d batch; got an array of shape {keys.shape}")
        if keys.dtype.kind in "iu":
            return keys.astype(_U64, copy=False)
        if keys.dtype.kind not in "USO":
            raise _kind_error(f"an array of dtype {keys.dtype}")
        keys = keys.tolist()
    elif not isinstance(keys, list):
        try:
            keys = list(keys)
        except TypeError:
            raise _kind_error(f"a single {type(keys).__name__!r} object") from None
    if keys and isinstance(keys[0], str | bytes):
        return cast("Strings", keys)
    return _int_array(keys) if keys else np.empty(0, dtype=_U64)


def _encode(keys: list[str], offset: int) -> list[bytes]:
    """UTF-8 encode, naming the first key that is not valid Unicode (counting from ``offset``)."""
    encoded = []
    for i, key in enumerate(keys):
        try:
            encoded.append(key.encode())
        except UnicodeEncodeError:
            raise ConfigError(
                f"str key {offset + i} ({key!r}) is not valid Unicode (lone surrogate)",
                hint="pass it as bytes, or encode it with errors='surrogatepass'",
            ) from None
    return encoded


def as_keys(keys: Keys) -> np.ndarray | list[bytes]:
    """Canonicalise a batch of keys: integers → uint64 array, ``str``/``bytes`` → ``list[bytes]``.

    A single key (``int``, ``str``, ``bytes``) is a batch of one. Integers are taken
    modulo 2⁶⁴; ``str`` keys are UTF-8 encoded.

    Raises:
        ConfigError: Mixed kinds (integers with strings, ``str`` with ``bytes``), keys
            that are none of these (floats, None, bools), a ``str`` with a lone
            surrogate, or an array that is not 1-d.
    """
    batch = _batch(keys)
    if isinstance(batch, np.ndarray):
        return batch
    strings, _ = _byte_strings(batch, 0)
    return [k.encode() for k in strings] if isinstance(strings[0], str) else strings


def _byte_strings(keys: Strings, offset: int) -> tuple[Strings, np.ndarray]:
    """(the keys as ASCII ``str`` or as ``bytes``, their lengths in bytes).

    Checks that all keys are ``str`` (or all ``bytes``) like the first; non-ASCII text
    is UTF-8 encoded (``offset`` numbers the keys in error messages).
    """
    if isinstance(keys[0], str):
        try:
            ascii_only = "".join(keys).isascii()  # a type check at C speed
        except TypeError:
            raise _mixed_error(keys) from None
        if not ascii_only:
            keys = _encode(keys, offset)
        return keys, np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    try:
        return keys, np.fromiter(map(bytes.__len__, keys), dtype=np.int64, count=len(keys))
    except TypeError:
        raise _mixed_error(keys) from None


def _hash_strings(keys: Strings, lengths: np.ndarray, s0: int, s1: int) -> np.ndarray:
    """h1 = mix(u ⊕ (s₀ + L·γ)), u = Σ_j [mix(w_j ⊕ k_j) − mix(k_j)], k_j = s₁ + j·γ."""
    width = 8 * max(1, -(-int(lengths.max()) // 8))  # the longest key in whole words
    if len(keys) > 1 and len(keys) * width > _MATRIX_BYTES:
        half = len(keys) // 2  # a long key pads every row to its width: hash it apart
        return np.concatenate(
            [
                _hash_strings(keys[:half], lengths[:half], s0, s1),
                _hash_strings(keys[half:], lengths[half:], s0, s1),
            ]
        )
    words = np.array(keys, dtype=f"S{width}").view(_WORD)  # numpy encodes ASCII text in C
    k = (np.uint64(s1) + np.arange(width // 8, dtype=_U64) * np.uint64(_GAMMA))[:, None]
    x = np.ascontiguousarray(words.reshape(len(keys), -1).T)  # (q, n): whole-row operations
    x ^= k
    _mix(x)
    x -= _mix(k)  # a zero (padding) word adds mix(k_j) − mix(k_j) = 0, so the width
    u = x.sum(axis=0, dtype=_U64)  # chosen for a batch never changes a key's hash
    u ^= lengths.astype(_U64) * np.uint64(_GAMMA) + np.uint64(s0)
    return _mix(u)


def _check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= seed <= _MASK64:
        raise ConfigError(f"seed must be an integer in [0, 2**64); got {seed!r}")
    return int(seed)


def hash_keys(keys: Keys, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Two well-mixed 64-bit hashes ``(h1, h2)`` per key, as uint64 arrays.

    With mix(z) = Stafford's Mix13, the splitmix64 finaliser (a bijection of 64-bit
    words; all arithmetic mod 2⁶⁴)::

        z ← (z ⊕ (z ≫ 30))·0xBF58476D1CE4E5B9;  z ← (z ⊕ (z ≫ 27))·0x94D049BB133111EB;  z ⊕ (z ≫ 31)

    and the seed's splitmix64 stream s_t = mix(seed + (t + 1)·γ), γ = 0x9E3779B97F4A7C15:

    * integer key x:   h1 = mix(x ⊕ s₀);
    * byte string of L bytes, read as zero-padded little-endian words w_0 … w_{q−1}:
      h1 = mix(u ⊕ (s₀ + L·γ)) with u = Σ_j [mix(w_j ⊕ k_j) − mix(k_j)], k_j = s₁ + j·γ
      (a word's term is 0 only if the word is 0, which is why L is hashed too);
    * then h2 = mix(h1 ⊕ s₂) | 1 (odd, so the strides i·h2 never repeat mod 2⁶⁴).

    Different seeds give unrelated functions (every s_t changes). A key's hashes do
    not depend on the batch it comes in.

    Args:
        keys: A batch as accepted by :func:`as_keys` (or a single key).
        seed: Integer in [0, 2⁶⁴).

    Raises:
        ConfigError: Bad keys (see :func:`as_keys`) or a bad seed.
    """
    seed = _check_seed(seed)
    s0, s1, s2 = (_mix_int(seed + (t + 1) * _GAMMA) for t in range(3))
    batch = _batch(keys)
    h1 = np.empty(len(batch), dtype=_U64)
    if isinstance(batch, np.ndarray):
        for start in range(0, len(batch), _CHUNK):
            h1[start : start + _CHUNK] = _mix(batch[start : start + _CHUNK] ^ np.uint64(s0))
    else:
        for start in range(0, len(batch), _STRING_CHUNK):
            part, lengths = _byte_strings(batch[start : start + _STRING_CHUNK], start)
            h1[start : start + len(part)] = _hash_strings(part, lengths, s0, s1)
    h2 = _mix(h1 ^ np.uint64(s2))
    h2 |= np.uint64(1)
    return h1, h2
