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
