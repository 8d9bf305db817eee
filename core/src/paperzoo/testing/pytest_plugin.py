"""pytest plugin ``paperzoo``: makes the fixtures of :mod:`paperzoo.testing.fixtures`
available to every test suite once paperzoo is installed, and lets tests of Ctrl-C work
when the suite itself was started in the background."""

from __future__ import annotations

import signal

import pytest

from paperzoo.testing.fixtures import paperzoo_home, paperzoo_host

__all__ = ["paperzoo_home", "paperzoo_host", "pytest_configure"]


def pytest_configure(config: pytest.Config) -> None:
    """Declare the ``slow`` marker and undo an inherited "ignore SIGINT".

    A shell without job control starts background commands (``cmd &``) with SIGINT
    ignored, and every process they start inherits that: a run or server that a test
    interrupts would never see its KeyboardInterrupt. A handler, unlike "ignore", is
    reset to the default in child processes, which Python turns into KeyboardInterrupt.
    """
    config.addinivalue_line("markers", "slow: takes more than a few seconds (PluginContract marks some)")
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
