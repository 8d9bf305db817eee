"""Executors: how the runs of a sweep are carried out.

An executor takes :class:`~paperzoo.runs.RunRequest` objects and yields their
:class:`~paperzoo.runs.RunOutcome` as they finish. The core ships
:class:`LocalExecutor` (sequential, or a process pool with ``workers > 1``);
plugins provide others (Ray, a batch scheduler) through the
``paperzoo_executor`` hook, selected with ``paperzoo run --executor NAME``.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING

from paperzoo.interfaces import Executor
from paperzoo.runs import RunOutcome, RunRequest, execute

if TYPE_CHECKING:
    from paperzoo.host import PluginHost

__all__ = ["Executor", "LocalExecutor"]


def _execute_in_worker(request: RunRequest) -> RunOutcome:
    return execute(request)


class LocalExecutor:
    """Runs requests on this machine.

    Args:
        workers: 1 runs them one after another in this process; more runs them in
            a pool of that many fresh (``spawn``) processes, each loading the
            installed plugins itself.
        host: Plugin host for in-process runs (default: the process-wide one).
    """

    name = "local"

    def __init__(self, workers: int = 1, *, host: PluginHost | None = None) -> None:
        if workers < 1:
            from paperzoo.errors import ConfigError

            raise ConfigError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.host = host

    def map(self, requests: Sequence[RunRequest]) -> Iterator[RunOutcome]:
        """Run every request; yield outcomes in completion order."""
        if self.workers == 1 or len(requests) <= 1:
            for request in requests:
                yield execute(request, host=self.host)
            return
        context = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(max_workers=min(self.workers, len(requests)), mp_context=context)
        pending: dict[Future[RunOutcome], RunRequest] = {
            pool.submit(_execute_in_worker, request): request for request in requests
        }
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    request = pending.pop(future)
                    try:
                        yield future.result()
                    except Exception as exc:  # the worker process died
                        yield RunOutcome(
                            request,
                            "",
                            "failed",
                            "",
                            error=f"{type(exc).__name__}: {exc}",
                            hint="a worker process crashed; rerun with --workers 1 to see why",
                        )
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
