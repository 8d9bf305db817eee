"""The Bloom filter and its hashing: no false negatives, the FPR it promises, hash
quality, exact sizing, bit-exact serialisation, and clear errors."""

from __future__ import annotations

import hashlib
import math
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paperzoo.errors import ConfigError, DataError
from paperzoo_elbf.bloom import FORMAT_VERSION, MAGIC, BloomFilter
from paperzoo_elbf.hashing import as_keys, hash_keys

M64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15

# -- a slow, independent pure-Python reading of the documented formulas -----------------


def ref_mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def ref_hashes(key: int | str | bytes, seed: int) -> tuple[int, int]:
    s0, s1, s2 = (ref_mix((seed + (t + 1) * GAMMA) & M64) for t in range(3))
    if isinstance(key, int):
        h1 = ref_mix((key & M64) ^ s0)
    else:
        data = key.encode() if isinstance(key, str) else key
        u = 0
        for j in range(max(1, math.ceil(len(data) / 8))):
            word = int.from_bytes(data[8 * j : 8 * j + 8].ljust(8, b"\0"), "little")
            k = (s1 + j * GAMMA) & M64
            u = (u + ref_mix(word ^ k) - ref_mix(k)) & M64
        h1 = ref_mix(u ^ ((s0 + len(data) * GAMMA) & M64))
    return h1, ref_mix(h1 ^ s2) | 1


def ref_positions(key: int | str | bytes, n_bits: int, n_hashes: int, seed: int) -> list[int]:
    h1, h2 = ref_hashes(key, seed)
    return [((h1 + i * h2) & M64) % n_bits for i in range(n_hashes)]


def ref_bits(keys: list, n_bits: int, n_hashes: int, seed: int) -> bytes:
    bits = bytearray(-(-n_bits // 8))
    for key in keys:
        for p in ref_positions(key, n_bits, n_hashes, seed):
            bits[p // 8] |= 1 << (p % 8)
    return bytes(bits)


def positions(keys, n_bits: int, n_hashes: int, seed: int) -> np.ndarray:
    """Probe positions (n, k) from hash_keys, by the documented double hashing."""
    h1, h2 = hash_keys(keys, seed)
    return (h1[:, None] + np.arange(n_hashes, dtype=np.uint64) * h2[:, None]) % np.uint64(n_bits)


def urls(n: int, start: int = 0) -> list[str]:
    hosts = ["news", "shop", "login", "secure", "cdn", "mail", "video", "bank"]
    return [
        f"https://{hosts[i % 8]}{i % 97}.example.com/path/{i}?q={i * 7919 % 10007}"
        for i in range(start, start + n)
    ]


keys_strategy = st.one_of(
    st.lists(st.integers(-(2**63), 2**64 - 1), max_size=60),
    st.lists(st.text(max_size=30), max_size=60),
    st.lists(st.binary(max_size=30), max_size=60),
)

# -- no false negatives --------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    keys=keys_strategy,
    n_bits=st.one_of(st.just(0), st.integers(1, 16), st.integers(17, 5_000)),
    n_hashes=st.integers(1, 12),
    seed=st.integers(0, 2**64 - 1),
)
def test_added_keys_are_always_found(keys, n_bits, n_hashes, seed):
    bloom = BloomFilter(n_bits, n_hashes, seed=seed).add(keys)
    assert bloom.contains(keys).all()
    assert all(key in bloom for key in keys[:5])
    assert BloomFilter.from_bytes(bloom.to_bytes()).contains(keys).all()


@settings(max_examples=60, deadline=None)
@given(
    keys=keys_strategy,
    n_bits=st.integers(1, 3_000),
    n_hashes=st.integers(1, 8),
    seed=st.integers(0, 2**64 - 1),
)
def test_bits_match_a_pure_python_reference(keys, n_bits, n_hashes, seed):
    bloom = BloomFilter(n_bits, n_hashes, seed=seed).add(keys)
    assert bloom.bits.tobytes() == ref_bits(keys, n_bits, n_hashes, seed)


@pytest.mark.parametrize(
    ("n_bits", "n_keys"),
    [(1_000_003, 20), (997, 400), (64, 3)],  # few probes in a big array (OR them in) and many (scratch)
)
def test_both_ways_of_setting_bits_match_the_reference(n_bits, n_keys):
    keys = urls(n_keys)
    bloom = BloomFilter(n_bits, 5, seed=3).add(keys).add(list(range(n_keys)))
    assert bloom.bits.tobytes() == ref_bits(keys + list(range(n_keys)), n_bits, 5, 3)


def test_hashes_match_the_reference_for_awkward_keys():
    keys = [
        "",
        "\0",
        "a",
        "a\0",
        "é",
        "日本語" * 7,
        "x" * 8,
        "x" * 9,
        "\U0001f600" * 3,
        "é" * 200,
        "y" * 1_001,
    ]
    h1, h2 = hash_keys(keys, 12345)
    assert [(int(a), int(b)) for a, b in zip(h1, h2)] == [ref_hashes(k, 12345) for k in keys]
    ints = [0, 1, -1, 2**63, 2**64 - 1, -(2**63)]
    h1, h2 = hash_keys(ints, 2**64 - 1)
    assert [(int(a), int(b)) for a, b in zip(h1, h2)] == [ref_hashes(k, 2**64 - 1) for k in ints]


# -- key semantics -------------------------------------------------------------------------


def test_str_is_its_utf8_bytes_and_length_matters():
    h = {
        repr(k): int(hash_keys([k], 0)[0][0]) for k in ["a", b"a", "a\0", b"a\0", "", "\0", "é", "é".encode()]
    }
    assert h["'a'"] == h["b'a'"] and h["'a\\x00'"] == h["b'a\\x00'"] and h["'é'"] == h[repr("é".encode())]
    assert len({h["'a'"], h["'a\\x00'"], h["''"], h["'\\x00'"]}) == 4


def test_integer_dtypes_and_negatives_are_the_same_key_mod_2_64():
    expected = hash_keys([2**64 - 1, 5], 7)[0]
    for arr in [np.array([-1, 5], np.int8), np.array([-1, 5], np.int64), np.array([2**64 - 1, 5], np.uint64)]:
        assert np.array_equal(hash_keys(arr, 7)[0], expected)
    assert np.array_equal(hash_keys([-1, 5], 7)[0], expected)
    assert np.array_equal(as_keys([-1, 2**64 - 1]), np.array([M64, M64], np.uint64))


def test_a_keys_hash_does_not_depend_on_its_batch():
    keys = ["short", "a" * 1000, "mid-length key", *urls(20_000)]  # wide rows and several chunks
    batch = hash_keys(keys, 9)
    for i in [0, 1, 2, 3, 10_000, 20_002]:
        one = hash_keys(keys[i], 9)
        assert (batch[0][i], batch[1][i]) == (one[0][0], one[1][0])


def test_one_huge_key_among_many_hashes_like_alone():
    keys = [*urls(3_000), "z" * 3_000_000, *urls(3_000, 3_000)]
    h1, _ = hash_keys(keys, 1)
    assert h1[3_000] == hash_keys(["z" * 3_000_000], 1)[0][0]
    assert np.array_equal(h1[:3_000], hash_keys(urls(3_000), 1)[0])


def test_non_ascii_text_hashes_like_its_utf8_bytes():
    text = ["naïve", "ascii", "Straße", "日本"] * 3_000
    assert np.array_equal(hash_keys(text, 4)[0], hash_keys([t.encode() for t in text], 4)[0])
    assert as_keys(["é", "a"]) == [b"\xc3\xa9", b"a"]


def test_numpy_string_arrays_are_accepted():
    assert np.array_equal(hash_keys(np.array(["ab", "c"]), 0)[0], hash_keys(["ab", "c"], 0)[0])
    assert np.array_equal(hash_keys(np.array([b"ab", b"c"]), 0)[0], hash_keys([b"ab", b"c"], 0)[0])
    assert np.array_equal(hash_keys(np.array(["ab", "c"], dtype=object), 0)[0], hash_keys(["ab", "c"], 0)[0])


@pytest.mark.parametrize(
    "keys",
    [
        [1, "a"],
        ["a", 1],
        ["a", b"a"],
        [b"a", "a"],
        [1.5],
        [None],
        ["a", None],
        [True, False],
        [1, True],
        2.5,
        True,
        np.array([1.0]),
        np.array([True]),
    ],
)
def test_rejects_mixed_or_unsupported_keys(keys):
    with pytest.raises(ConfigError, match="keys must be all integers, all str or all bytes"):
        hash_keys(keys, 0)
    with pytest.raises(ConfigError):
        as_keys(keys)


def test_rejects_huge_ints_2d_arrays_and_lone_surrogates():
    with pytest.raises(ConfigError, match=r"\[-2\*\*63, 2\*\*64\)"):
        hash_keys([2**64], 0)
    with pytest.raises(ConfigError, match="1-d batch"):
        hash_keys(np.zeros((2, 2), np.int64), 0)
    with pytest.raises(ConfigError, match=r"str key 10000 \('\\ud800'\) is not valid Unicode"):
        hash_keys([*urls(10_000), "\ud800"], 0)


@pytest.mark.parametrize("seed", [-1, 2**64, 1.0, True, "1"])
def test_rejects_bad_seeds(seed):
    with pytest.raises(ConfigError, match="seed"):
        hash_keys([1], seed)


# -- hash quality --------------------------------------------------------------------------


def chi_square(counts: np.ndarray) -> float:
    expected = counts.sum() / counts.size
    return float(((counts - expected) ** 2 / expected).sum())


@pytest.mark.parametrize("keys", [np.arange(200_000), urls(100_000)], ids=["sequential-ints", "urls"])
def test_probes_are_uniform_over_the_bits(keys):
    m = 1_009
    pos = positions(keys, m, 4, 0)
    dof = m - 1
    for i in range(4):  # every probe g_i alone is uniform over [0, m)
        assert chi_square(np.bincount(pos[:, i].astype(np.int64), minlength=m)) < dof + 6 * math.sqrt(2 * dof)


@pytest.mark.parametrize("keys", [np.arange(100_000), urls(50_000)], ids=["sequential-ints", "urls"])
def test_two_seeds_give_independent_probes(keys):
    a = positions(keys, 31, 1, 0)[:, 0].astype(np.int64)
    b = positions(keys, 31, 1, 1)[:, 0].astype(np.int64)
    table = np.bincount(a * 31 + b, minlength=31 * 31)  # joint distribution: uniform over 31 × 31
    dof = 31 * 31 - 1
    assert chi_square(table) < dof + 6 * math.sqrt(2 * dof)
    assert np.mean(a == b) == pytest.approx(1 / 31, abs=0.005)


def test_every_output_bit_flips_half_the_time_on_a_one_bit_change():
    x = np.random.default_rng(0).integers(0, 2**63, 4_000, dtype=np.uint64)
    base = hash_keys(x, 5)
    for b in range(64):
        flipped = hash_keys(x ^ np.uint64(1 << b), 5)
        for h, g in zip(base, flipped):
            diff = (h ^ g)[:, None] >> np.arange(64, dtype=np.uint64) & np.uint64(1)
            rates = diff.mean(axis=0)
            rates = rates[1:] if h is base[1] else rates  # h2's lowest bit is always 1
            assert np.all(np.abs(rates - 0.5) < 0.05), (b, rates.min(), rates.max())


# -- false-positive rate -------------------------------------------------------------------


def fpr_check(positives, negatives, bits_per_key: int, tolerance: float) -> None:
    bloom = BloomFilter.with_bits(bits_per_key * len(positives), len(positives), seed=11).add(positives)
    empirical = float(bloom.contains(negatives).mean())
    assert bloom.estimated_fpr() == pytest.approx(bloom.expected_fpr(), rel=0.04)
    assert empirical == pytest.approx(bloom.expected_fpr(), rel=tolerance)
    assert bloom.contains(positives).all()


def test_empirical_fpr_matches_the_formula_for_int_keys():
    rng = np.random.default_rng(1)
    fpr_check(rng.integers(0, 2**62, 200_000), rng.integers(2**62, 2**63, 1_000_000), 8, 0.04)


def test_empirical_fpr_matches_the_formula_for_url_keys():
    fpr_check(urls(20_000), urls(150_000, start=10**6), 8, 0.09)


@pytest.mark.slow
def test_empirical_fpr_matches_the_formula_on_a_million_urls():
    fpr_check(urls(200_000), urls(1_000_000, start=10**7), 8, 0.04)


def test_fpr_formulas():
    bloom = BloomFilter(1_000, 7)
    assert bloom.expected_fpr(100) == pytest.approx((1 - math.exp(-7 * 100 / 1_000)) ** 7)
    assert bloom.expected_fpr() == 0.0 and bloom.estimated_fpr() == 0.0 and bloom.fill_ratio == 0.0
    bloom.add(range(100))
    assert bloom.expected_fpr() == bloom.expected_fpr(100)
    assert bloom.fill_ratio == np.unpackbits(bloom.bits).sum() / 1_000
    assert bloom.estimated_fpr() == bloom.fill_ratio**7


@pytest.mark.parametrize("n", [-1, math.nan])
def test_expected_fpr_rejects_negative_counts(n):
    with pytest.raises(ConfigError, match="n_items"):
        BloomFilter(100, 2).expected_fpr(n)


def test_duplicates_count_as_added_items():
    bloom = BloomFilter(1_000, 3).add([1, 2]).add([1, 1])
    assert bloom.n_items == 4


# -- sizing --------------------------------------------------------------------------------


@pytest.mark.parametrize(("n", "fpr"), [(1_000, 0.01), (12_345, 0.001), (1, 0.5), (10**6, 0.0001)])
def test_for_capacity_picks_the_optimal_m_and_k(n, fpr):
    bloom = BloomFilter.for_capacity(n, fpr, seed=3)
    m = math.ceil(-n * math.log(fpr) / math.log(2) ** 2)
    assert (bloom.n_bits, bloom.size_in_bits, bloom.seed) == (m, m, 3)
    assert bloom.n_hashes == max(1, round(m / n * math.log(2)))
    assert bloom.bits.size == -(-m // 8)
    assert bloom.expected_fpr(n) <= fpr * 1.02


def test_for_capacity_known_value_and_edges():
    assert BloomFilter.for_capacity(1_000, 0.01)._params() == (9_586, 7, 0)
    assert BloomFilter.for_capacity(0, 0.01)._params() == (1, 1, 0)  # an empty filter rejects everything
    assert BloomFilter.for_capacity(1_000, 1.0).n_bits == 0  # ε = 1: no filter needed


def test_with_bits_picks_the_optimal_k():
    assert BloomFilter.with_bits(1_000, 100).n_hashes == 7  # round(6.93)
    assert BloomFilter.with_bits(1_000, 1_000).n_hashes == 1  # round(0.69)
    assert BloomFilter.with_bits(123, 0).n_hashes == 1
    assert BloomFilter.with_bits(0, 10)._params() == (0, 1, 0)
    assert BloomFilter.with_bits(10**6, 1).n_hashes == 64  # capped


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((-1, 3), {}, "n_bits"),
        ((1.5, 3), {}, "n_bits"),
        ((True, 3), {}, "n_bits"),
        (("8", 3), {}, "n_bits"),
        ((8, 0), {}, "n_hashes"),
        ((8, False), {}, "n_hashes"),
        ((8, 2.0), {}, "n_hashes"),
        ((8, 3), {"seed": -1}, "seed"),
        ((8, 3), {"seed": 2**64}, "seed"),
    ],
)
def test_rejects_bad_constructor_arguments(args, kwargs, match):
    with pytest.raises(ConfigError, match=match):
        BloomFilter(*args, **kwargs)


@pytest.mark.parametrize("fpr", [0, 0.0, -0.1, 1.5, math.nan, True, "0.1"])
def test_for_capacity_rejects_bad_fpr(fpr):
    with pytest.raises(ConfigError, match="fpr"):
        BloomFilter.for_capacity(10, fpr)


# -- the "no filter" and empty cases -------------------------------------------------------


def test_zero_bits_means_no_filter():
    bloom = BloomFilter(0, 3).add(["a", "b"])
    assert bloom.contains(["a", "zzz", "anything"]).all() and "never added" in bloom
    assert bloom.expected_fpr() == 1.0 and bloom.estimated_fpr() == 1.0 and bloom.n_items == 2
    assert BloomFilter.from_bytes(bloom.to_bytes()) == bloom


def test_empty_filter_rejects_everything_and_empty_batches_work():
    bloom = BloomFilter(64, 3)
    assert not bloom.contains(range(1_000)).any()
    assert bloom.contains([]).shape == (0,) and bloom.add([]).n_items == 0


# -- combining -----------------------------------------------------------------------------


def test_union_holds_both_key_sets():
    a = BloomFilter(4_096, 4, seed=2).add(range(100))
    b = BloomFilter(4_096, 4, seed=2).add(range(100, 200))
    both = a.union(b)
    assert both.contains(range(200)).all() and both.n_items == 200
    assert both == BloomFilter(4_096, 4, seed=2).add(range(200))
    assert a.n_items == 100 and not a.contains(range(100, 200)).all()  # operands unchanged


@pytest.mark.parametrize(
    "other", [BloomFilter(4_097, 4, seed=2), BloomFilter(4_096, 5, seed=2), BloomFilter(4_096, 4)]
)
def test_union_rejects_different_parameters(other):
    with pytest.raises(ConfigError, match="cannot unite"):
        BloomFilter(4_096, 4, seed=2).union(other)


def test_copy_is_independent_and_equality_compares_parameters_and_bits():
    a = BloomFilter(500, 3).add(["x"])
    b = a.copy()
    assert a == b and b.n_items == 1
    b.add(["y"])
    assert a != b and "y" not in a
    assert BloomFilter(500, 3) != BloomFilter(500, 3, seed=1)
    assert BloomFilter(500, 3).add([1, 1]) == BloomFilter(500, 3).add([1])  # n_items is not compared
    assert repr(a) == f"BloomFilter(n_bits=500, n_hashes=3, seed=0, n_items=1, fill_ratio={a.fill_ratio:.3f})"


def test_in_takes_a_single_key():
    bloom = BloomFilter(100, 2).add([b"k"]).add([7])
    assert b"k" in bloom and 7 in bloom and np.uint64(7) in bloom
    for batch in ([1, 2], np.array([7]), {"k": 1}):
        with pytest.raises(ConfigError, match="single int, str or bytes key"):
            _ = batch in bloom


def test_bits_are_read_only():
    with pytest.raises(ValueError, match="read-only"):
        BloomFilter(16, 1).bits[0] = 1


# -- serialisation -------------------------------------------------------------------------


def test_round_trip_is_bit_exact(tmp_path):
    bloom = BloomFilter.for_capacity(5_000, 0.01, seed=2**64 - 1).add(urls(5_000)).add(urls(10))
    data = bloom.to_bytes()
    again = BloomFilter.from_bytes(data)
    assert again == bloom and again.to_bytes() == data and again.n_items == 5_010
    bloom.save(tmp_path / "f.bloom")
    loaded = BloomFilter.load(tmp_path / "f.bloom")
    assert (tmp_path / "f.bloom").read_bytes() == data and loaded.to_bytes() == data
    probe = urls(20_000, start=50_000)
    assert np.array_equal(loaded.contains(probe), bloom.contains(probe))
    assert os.listdir(tmp_path) == ["f.bloom"]


def test_layout_of_the_header():
    data = BloomFilter(20, 2, seed=5).to_bytes()
    assert data.startswith(MAGIC) and len(data) == 44 + 3 + 32
    assert int.from_bytes(data[8:12], "little") == FORMAT_VERSION
    assert int.from_bytes(data[12:20], "little") == 20


def resealed(body: bytes) -> bytes:
    """``body`` with a valid checksum appended."""
    return body + hashlib.sha256(body).digest()


@pytest.mark.parametrize(
    ("mangle", "match"),
    [
        (lambda d: d[:-40] + bytes([d[-40] ^ 1]) + d[-39:], "checksum mismatch"),
        (lambda d: d[:-1] + bytes([d[-1] ^ 0x80]), "checksum mismatch"),
        (lambda d: d[:50], "truncated Bloom filter: 50 bytes, expected"),
        (lambda d: d[:30], "truncated Bloom filter: 30 bytes, the header alone"),
        (lambda d: d[:3], "truncated Bloom filter: 3 bytes"),
        (lambda d: b"", "truncated Bloom filter: 0 bytes"),
        (lambda d: d + b"\0", "over-long Bloom filter"),
        (lambda d: b"PK\x03\x04" + d[4:], "not a paperzoo Bloom filter"),
        (
            lambda d: resealed(d[:8] + (FORMAT_VERSION + 1).to_bytes(4, "little") + d[12:-32]),
            "version 2 is not supported",
        ),
        (lambda d: resealed(d[:-33] + b"\xff"), "bits set beyond n_bits"),
        (lambda d: resealed(d[:20] + (0).to_bytes(8, "little") + d[28:-32]), "header is invalid: n_hashes"),
    ],
    ids=[
        "bit-flip",
        "digest-flip",
        "truncated-bits",
        "truncated-header",
        "truncated-magic",
        "empty",
        "over-long",
        "wrong-magic",
        "future-version",
        "padding-bits",
        "zero-hashes",
    ],
)
def test_rejects_damaged_data_with_a_one_line_message(mangle, match, tmp_path):
    data = BloomFilter(1_001, 3, seed=1).add(range(50)).to_bytes()
    with pytest.raises(DataError, match=match) as caught:
        BloomFilter.from_bytes(mangle(data))
    assert "\n" not in str(caught.value)
    (tmp_path / "bad.bloom").write_bytes(mangle(data))
    with pytest.raises(DataError, match=f"bad.bloom: .*{match}"):
        BloomFilter.load(tmp_path / "bad.bloom")


def test_future_version_suggests_an_upgrade():
    data = BloomFilter(8, 1).to_bytes()
    with pytest.raises(DataError) as caught:
        BloomFilter.from_bytes(resealed(data[:8] + (99).to_bytes(4, "little") + data[12:-32]))
    assert caught.value.hint == "upgrade paperzoo-elbf"


def test_load_of_a_missing_file_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="cannot read Bloom filter"):
        BloomFilter.load(tmp_path / "missing.bloom")


@pytest.mark.parametrize("failing", ["replace", "fsync"])
def test_failed_save_leaves_no_file_and_keeps_the_old_one(tmp_path, monkeypatch, failing):
    good = BloomFilter(100, 2).add([1])
    good.save(tmp_path / "f.bloom")
    before = (tmp_path / "f.bloom").read_bytes()

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, failing, fail)
    with pytest.raises(OSError, match="disk full"):
        BloomFilter(100, 2).add([2]).save(tmp_path / "f.bloom")
    with pytest.raises(OSError, match="disk full"):
        good.save(tmp_path / "new.bloom")
    assert os.listdir(tmp_path) == ["f.bloom"]
    assert (tmp_path / "f.bloom").read_bytes() == before


# -- failed adds change nothing ------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    [
        [*urls(20_000), 5],  # the odd key is in a later chunk than the first
        [*urls(20_000), "\ud800"],
        [*range(10), "a"],
        [1.0, 2.0],
    ],
    ids=["int-after-strings", "lone-surrogate", "str-after-ints", "floats"],
)
def test_a_failed_add_changes_nothing(bad):
    bloom = BloomFilter(10_000, 3).add(["before"])
    bits, n_items = bloom.bits.copy(), bloom.n_items
    with pytest.raises(ConfigError):
        bloom.add(bad)
    assert np.array_equal(bloom.bits, bits) and bloom.n_items == n_items
