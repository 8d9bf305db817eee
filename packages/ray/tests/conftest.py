"""A real local Ray with 2 CPUs, and a tiny test plugin its workers can load."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperzoo.testing import fake_distribution

TEST_PLUGIN = '''
import time

from paperzoo import ExperimentSpec, PluginInfo, Result, hookimpl


def flaky(run):
    """Fails for seed ``fail_seed``; otherwise reports its seed."""
    if run.seed == run.settings["fail_seed"]:
        raise RuntimeError(f"failing on purpose (seed {run.seed})")
    return Result().add("seed", float(run.seed))


def sleepy(run):
    """Sleeps ``seconds`` in short steps (so that cancelling interrupts it)."""
    end = time.monotonic() + run.settings["seconds"]
    while time.monotonic() < end:
        time.sleep(0.05)
    return Result().add("slept", run.settings["seconds"], unit="s")


@hookimpl
def paperzoo_plugin_info():
    return PluginInfo(id="raytest")


@hookimpl
def paperzoo_register_experiments(register):
    register(ExperimentSpec("raytest.flaky", f"{__name__}:flaky", "Fails for one seed", settings={"fail_seed": 1}))
    register(ExperimentSpec("raytest.sleepy", f"{__name__}:sleepy", "Sleeps", settings={"seconds": 30.0}))
'''


@pytest.fixture(scope="session")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding the installed test plugin ``raytest`` (put it on PYTHONPATH)."""
    site = tmp_path_factory.mktemp("site")
    return fake_distribution(
        site, name="paperzoo-raytest", module="paperzoo_raytest", source=TEST_PLUGIN, entry_point="raytest"
    )


@pytest.fixture(scope="module")
def ray_cluster(plugin_site: Path) -> Iterator[object]:
    """A local Ray with 2 CPUs whose workers see the test plugin; shut down after the module."""
    ray = pytest.importorskip("ray")
    previous = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(plugin_site), previous) if p)
    try:  # Ray's processes inherit the environment of ray.init
        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING")
    finally:
        if previous is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = previous
    try:
        yield ray
    finally:
        ray.shutdown()
