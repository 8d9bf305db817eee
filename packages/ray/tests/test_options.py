"""Bad input fails before anything runs, in one line with a hint; the plugin stays light."""

from __future__ import annotations

import subprocess
import sys

import pytest

from paperzoo.errors import ConfigError
from paperzoo.runs import RunRequest
from paperzoo.testing import isolated_host
from paperzoo_ray.executor import OPTIONS, RayExecutor, from_options
from paperzoo_ray.plugin import plugin


def test_hook_provides_the_ray_executor_only() -> None:
    host = isolated_host(plugin)
    assert isinstance(host.hooks.executor(name="ray", options={}), RayExecutor)
    assert plugin.paperzoo_executor(name="local", options={}) is None


def test_unknown_option_lists_the_valid_ones() -> None:
    host = isolated_host(plugin)
    with pytest.raises(ConfigError) as info:
        host.hooks.executor(name="ray", options={"adress": "auto"})
    assert info.value.message == "the ray executor has no option 'adress'"
    assert all(name in (info.value.hint or "") for name in OPTIONS)


@pytest.mark.parametrize(
    ("key", "value"),
    [("workers", "0"), ("workers", "two"), ("num_cpus", "0"), ("num_gpus", "-1"), ("num_cpus", "x")],
)
def test_rejects_bad_numbers(key: str, value: str) -> None:
    with pytest.raises(ConfigError, match=f"the ray executor's {key} must be"):
        from_options({key: value})


def test_rejects_unknown_results_mode() -> None:
    with pytest.raises(ConfigError, match="results must be shared or copy, got 'both'"):
        from_options({"results": "both"})


@pytest.mark.parametrize("address", ["ray://127.0.0.1:1", "127.0.0.1:1"])
def test_unreachable_address_fails_fast_with_a_hint(address: str) -> None:
    with pytest.raises(ConfigError) as info:
        from_options({"address": address})
    assert info.value.message.startswith(f"cannot reach the Ray cluster at {address!r}")
    assert "ray start --head" in (info.value.hint or "")


def test_honours_ray_address_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    with pytest.raises(ConfigError, match="cannot reach the Ray cluster at '127.0.0.1:1'"):
        from_options({})


def test_rejects_malformed_address() -> None:
    with pytest.raises(ConfigError, match="invalid Ray address"):
        from_options({"address": "ray://:x"})


def test_missing_ray_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now raises ImportError
    with pytest.raises(ConfigError) as info:
        next(RayExecutor().map([RunRequest("revdiv.synthetic")]))
    assert info.value.message.startswith("the ray executor needs Ray")
    assert "pip install" in (info.value.hint or "")


def test_plugin_and_creating_the_executor_import_no_ray() -> None:
    code = (
        "import sys; from paperzoo.host import PluginHost; "
        "e = PluginHost().hooks.executor(name='ray', options={'workers': '2'}); "
        "print(type(e).__name__, sorted(m for m in sys.modules if m.split('.')[0] == 'ray'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "RayExecutor []"
