"""What one Ray task does: run one request with the core's :func:`paperzoo.execute`.

The task runs in a Ray worker process, which may serve many tasks and may live on
another machine. It takes the driver's ``PAPERZOO_*`` environment with it, so the
run sees the same data mirror, offline switch and plugin selection, and then
records the run one of two ways:

``shared``
    ``PAPERZOO_HOME`` is the driver's home: the run directory and the store row are
    written where ``--executor local`` writes them (the store is SQLite in WAL mode,
    safe for concurrent writers on one machine).
``copy``
    ``PAPERZOO_HOME`` is a temporary directory on the worker (its ``data/`` links to
    the worker's own data home, so datasets are cached across runs). The run's
    directory comes back as a tar archive with its store record; the driver puts
    both into its own store (:func:`adopt`).
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from paperzoo.errors import PaperzooError
from paperzoo.runs import RunOutcome, RunRequest, execute
from paperzoo.store import ResultsStore, RunRecord

__all__ = ["Reply", "adopt", "run_request"]

ENV_PREFIX = "PAPERZOO_"


@dataclass
class Reply:
    """What a task sends back: the outcome and, in ``copy`` mode, the run itself.

    Attributes:
        outcome: The core's outcome of the run.
        record: The run's store record (``copy`` mode; ``None`` otherwise).
        archive: The run directory as a gzipped tar (``copy`` mode).
    """

    outcome: RunOutcome
    record: RunRecord | None = None
    archive: bytes | None = None


def run_request(request: RunRequest, env: Mapping[str, str], copy: bool) -> Reply:
    """Run ``request`` in this worker process with the driver's ``PAPERZOO_*`` ``env``.

    A failed run is a failed outcome, never an exception; so is an invalid request
    (an experiment not installed on this worker, say), which records nothing.
    ``KeyboardInterrupt`` (``ray.cancel``) propagates after :func:`execute` marked
    the run failed.
    """
    from paperzoo.paths import data_home

    node_data = data_home()  # this node's own data cache, before the driver's variables apply
    with _environment(env):
        if not copy:
            return Reply(_execute(request))
        home = Path(tempfile.mkdtemp(prefix="paperzoo-ray-"))
        try:
            node_data.mkdir(parents=True, exist_ok=True)
            (home / "data").symlink_to(node_data, target_is_directory=True)
            os.environ["PAPERZOO_HOME"] = str(home)
            outcome = _execute(request)
            if not outcome.run_id:
                return Reply(outcome)
            record = ResultsStore(home / "results.sqlite").get(outcome.run_id)
            return Reply(outcome, record, _pack(Path(outcome.dir)))
        finally:
            shutil.rmtree(home, ignore_errors=True)


def _execute(request: RunRequest) -> RunOutcome:
    from paperzoo.host import get_host

    try:
        return execute(request, host=get_host())
    except PaperzooError as exc:  # the request is invalid here; nothing was recorded
        return RunOutcome(
            request, "", "failed", "", error=f"{type(exc).__name__}: {exc.message}", hint=exc.hint
        )


_last_env: dict[str, str] | None = None


@contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    """Replace this process's ``PAPERZOO_*`` variables with ``env`` for the block."""
    global _last_env
    saved = {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIX)}
    if _last_env is not None and _last_env != dict(env):
        from paperzoo.host import reset_host

        reset_host(None)  # plugin selection may differ from the previous task's
    _last_env = dict(env)
    for key in saved:
        del os.environ[key]
    os.environ.update(env)
    try:
        yield
    finally:
        for key in [k for k in os.environ if k.startswith(ENV_PREFIX)]:
            del os.environ[key]
        os.environ.update(saved)


def _pack(directory: Path) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        tar.add(directory, arcname=".")
    return buffer.getvalue()


def adopt(reply: Reply) -> RunOutcome:
    """Put a ``copy``-mode run into this process's home and store; return its outcome.

    The run directory is unpacked to ``<home>/runs/<run-id>`` and the record is
    inserted, finished, in one transaction with the status, error and end time it
    had on the worker.
    """
    from paperzoo.paths import runs_dir, store_path

    outcome, record = reply.outcome, reply.record
    if record is None or reply.archive is None:
        return outcome
    target = runs_dir() / record.id
    target.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(reply.archive), mode="r:gz") as tar:
        tar.extractall(target, filter="data")
    succeeded = outcome.ok and outcome.result is not None
    ResultsStore(store_path()).add_finished(
        replace(
            record, dir=str(target), error=None if succeeded else record.error or outcome.error or "failed"
        ),
        outcome.result if succeeded else None,
    )
    hint = outcome.hint.replace(outcome.dir, str(target)) if outcome.hint and outcome.dir else outcome.hint
    return replace(outcome, dir=str(target), hint=hint)
