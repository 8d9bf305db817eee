from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paperzoo.errors import ConfigError
from paperzoo.sweep import coerce, expand_grid, parse_assignments, parse_seeds

SCHEMA = {"n": 10, "lr": 0.1, "name": "a", "flag": False, "sizes": [1, 2], "extra": None}


@pytest.mark.parametrize(
    ("text", "seeds"),
    [("0", [0]), ("0-4", [0, 1, 2, 3, 4]), ("0,3,10-11", [0, 3, 10, 11]), (" 2 - 3 ", [2, 3])],
)
def test_parse_seeds(text: str, seeds: list[int]) -> None:
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["", "a", "3-1", "1,1", "-1", "1-"])
def test_parse_seeds_rejects(text: str) -> None:
    with pytest.raises(ConfigError):
        parse_seeds(text)


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=20, unique=True))
def test_parse_seeds_round_trips_lists(seeds: list[int]) -> None:
    assert parse_seeds(",".join(map(str, seeds))) == seeds


def test_coerce_to_type_of_default() -> None:
    assert coerce("n", "5", 10) == 5
    assert coerce("lr", "1e-3", 0.1) == 1e-3
    assert coerce("flag", "yes", False) is True
    assert coerce("flag", "0", True) is False
    assert coerce("sizes", "3,4", [1]) == [3, 4]
    assert coerce("sizes", "[3, 4]", [1]) == [3, 4]
    assert coerce("pair", "1,2", (0, 0)) == (1, 2)
    assert coerce("extra", "[1]", None) == [1]
    assert coerce("extra", "word", None) == "word"
    assert coerce("name", r"a\,b", "x") == "a,b"
    assert coerce("clip", "None", 1.0) is None and coerce("limit", "null", 5) is None
    assert coerce("name", "none", "x") == "none"


@pytest.mark.parametrize(("key", "raw"), [("n", "1.5"), ("lr", "fast"), ("flag", "maybe"), ("sizes", "{}")])
def test_coerce_errors_name_the_key(key: str, raw: str) -> None:
    with pytest.raises(ConfigError, match=f"setting '{key}'"):
        coerce(key, raw, SCHEMA[key])


def test_assignments_sweep_on_commas_except_for_lists() -> None:
    values = parse_assignments(["n=1,2,3", "sizes=5,6", r"name=a\,b"], SCHEMA)
    assert values == {"n": [1, 2, 3], "sizes": [[5, 6]], "name": ["a,b"]}


def test_unknown_setting_suggests_close_name() -> None:
    with pytest.raises(ConfigError, match="unknown setting 'nn' of exp") as info:
        parse_assignments(["nn=1"], SCHEMA, experiment="exp")
    assert info.value.hint == "did you mean 'n'?"


@pytest.mark.parametrize("bad", ["n", "=1", "n=1 n=2"])
def test_malformed_assignment(bad: str) -> None:
    with pytest.raises(ConfigError):
        parse_assignments(bad.split(" "), SCHEMA)


def test_expand_grid_is_cartesian() -> None:
    grid = expand_grid({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(grid) == 6
    assert {"a": 2, "b": "z"} in grid
    assert expand_grid({}) == [{}]


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf"])
def test_non_finite_numbers_are_rejected(raw: str) -> None:
    with pytest.raises(ConfigError, match="NaN and infinity are not allowed"):
        coerce("lr", raw, 0.1)
    with pytest.raises(ConfigError, match="NaN and infinity"):
        coerce("extra", "NaN", None)


def test_json_list_items_take_the_type_of_the_default_items() -> None:
    assert coerce("alphas", "[1, 2]", [0.5]) == [1.0, 2.0]
    assert all(isinstance(v, float) for v in coerce("alphas", "[1, 2]", [0.5]))
    with pytest.raises(ConfigError) as info:
        coerce("bots", "[1.5]", [1])
    assert str(info.value).count("invalid value") == 1  # one message, not nested


def test_nested_errors_are_reported_once() -> None:
    with pytest.raises(ConfigError) as info:
        coerce("alphas", "0.1,x", [0.5])
    assert (
        info.value.message == "invalid value 'x' for setting 'alphas': could not convert string to float: 'x'"
    )


def test_huge_sweeps_are_refused_before_expanding() -> None:
    with pytest.raises(ConfigError, match="more than 10000 runs"):
        parse_seeds("0-20000000")
    with pytest.raises(ConfigError, match="too large"):
        parse_seeds(str(2**63))
    with pytest.raises(ConfigError, match="combinations"):
        expand_grid({"a": list(range(200)), "b": list(range(200))})


def test_json_list_of_strings_keeps_the_strings() -> None:
    from paperzoo.sweep import coerce

    assert coerce("bases", '["linear", "random-forest"]', ["linear"]) == ["linear", "random-forest"]
    assert coerce("sizes", "[10, 100]", [1]) == [10, 100]
