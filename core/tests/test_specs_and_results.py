from __future__ import annotations

import math

import pytest

from paperzoo.errors import ConfigError, PluginError, ResultError
from paperzoo.results import Result, Row
from paperzoo.specs import ExperimentSpec, load_target


def test_settings_for_merges_scale_overrides() -> None:
    spec = ExperimentSpec("x.y", "m:f", settings={"n": 10, "k": 1}, scales={"smoke": {"n": 2}})
    assert spec.settings_for("smoke") == {"n": 2, "k": 1}
    assert spec.settings_for("default") == {"n": 10, "k": 1}
    assert spec.settings_for("paper") == {"n": 10, "k": 1}


def test_scale_override_of_undeclared_setting_is_rejected() -> None:
    with pytest.raises(ConfigError, match="undeclared settings m"):
        ExperimentSpec("x.y", "m:f", settings={"n": 1}, scales={"smoke": {"m": 2}})


def test_unknown_scale_is_rejected() -> None:
    with pytest.raises(ConfigError, match="unknown scale 'huge'"):
        ExperimentSpec("x.y", "m:f", scales={"huge": {}})


@pytest.mark.parametrize("name", ["", "Upper", "has space", "-leading"])
def test_invalid_names_are_rejected(name: str) -> None:
    with pytest.raises(ConfigError, match="invalid experiment name"):
        ExperimentSpec(name, "m:f")


def test_invalid_target_is_rejected() -> None:
    with pytest.raises(ConfigError, match="invalid target"):
        ExperimentSpec("x.y", "no_colon")


def test_spec_settings_are_read_only() -> None:
    spec = ExperimentSpec("x.y", "m:f", settings={"n": 1})
    with pytest.raises(TypeError):
        spec.settings["n"] = 2  # type: ignore[index]


def test_load_target_reports_missing_attribute() -> None:
    with pytest.raises(PluginError, match="cannot load 'json:nope'"):
        load_target("json:nope")
    assert load_target("json:dumps.__name__") == "dumps"


def test_row_validates_and_normalises() -> None:
    assert Row("m", float("nan")).value is None
    assert Row("m", 3, paper=4).ratio == 0.75
    assert Row("m", 1.0, setting={"a": 1, "b": "x"}).setting == "a=1, b=x"
    with pytest.raises(ResultError, match="row 'm': value must be a real number"):
        Row("m", "1.0")  # type: ignore[arg-type]
    with pytest.raises(ResultError):
        Row("m", True)
    with pytest.raises(ResultError, match="non-empty"):
        Row("", 1.0)


def test_result_round_trips_through_dict() -> None:
    result = Result(notes="n").add("a", 1.5, paper=2.0, unit="%", setting={"k": 3}).add("b", math.nan)
    again = Result.from_dict(result.to_dict())
    assert again == result
    assert again.value("a", {"k": 3}) == 1.5
    with pytest.raises(KeyError):
        again.value("a")


def test_infinite_values_are_undefined_and_serialisable() -> None:
    import json

    row = Row("loss", math.inf, paper=-math.inf)
    assert row.value is None
    assert row.paper is None
    json.dumps(Result(rows=[row]).to_dict(), allow_nan=False)
