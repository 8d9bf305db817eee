"""Shared set-up of the paperzoo-graph tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    """One torch thread: faster for these small problems, and steady on a busy 2-core machine."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
