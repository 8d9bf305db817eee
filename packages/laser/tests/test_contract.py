"""The core's generated contract tests for everything the laser manifest declares."""

from __future__ import annotations

from typing import Any

import pytest

from paperzoo.errors import ConfigError
from paperzoo.testing import PluginContract
from paperzoo_laser.plugin import plugin


class TestLaser(PluginContract):
    plugin = plugin


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ({"seeds": 0}, "seeds must be an integer ≥ 1, got 0"),
        ({"attentions": []}, "attentions must be a list of ≥ 1"),
        ({"attentions": ["softmax", "linear"]}, "attentions[1] must be one of 'softmax', 'laser'"),
        ({"corpus": "c4"}, "corpus must be one of 'tinyshakespeare', 'wikitext-2'"),
        ({"lr": 0.0}, "lr must be a number > 0, got 0.0"),
        ({"warmup": -1}, "warmup must be an integer ≥ 0, got -1"),
    ],
)
def test_bad_settings_are_one_clear_error(setting: dict[str, Any], message: str) -> None:
    spec = plugin.experiments[0]
    with pytest.raises(ConfigError) as info:
        spec.settings_for("smoke", setting)
    assert message in str(info.value)
