"""The ``ray`` executor: each run of a sweep is one Ray task.

``paperzoo run EXPERIMENT --executor ray [--workers N] [--executor-option KEY=VALUE ...]``
hands the sweep's :class:`~paperzoo.runs.RunRequest` objects to
:meth:`RayExecutor.map`, which submits one task per request, each calling the
core's :func:`paperzoo.execute` on a Ray worker (:mod:`paperzoo_ray.worker`), and
yields the :class:`~paperzoo.runs.RunOutcome` of each as it finishes.

Ray is imported when :meth:`RayExecutor.map` starts, never by the plugin module.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from paperzoo.errors import ConfigError
from paperzoo.runs import RunOutcome, RunRequest

__all__ = ["OPTIONS", "RayExecutor", "from_options"]

OPTIONS = {
    "address": "Ray cluster to use: ray://host:port, host:port or auto (default: $RAY_ADDRESS, else a new local Ray)",
    "workers": "CPUs of a local Ray started here; at most this many runs at once (default: all CPUs)",
    "num_cpus": "CPUs each run reserves (default 1)",
    "num_gpus": "GPUs each run reserves (default 0)",
    "results": "shared: workers write into this machine's PAPERZOO_HOME; copy: each run comes back to it "
    "(default: shared when every Ray node is this machine, else copy)",
}
CANCEL_GRACE_S = 10.0
"""How long an interrupted sweep waits for cancelled runs to record their failure."""
CONNECT_TIMEOUT_S = 5.0
CLIENT_PORT = 10001
GCS_PORT = 6379


def from_options(options: Mapping[str, Any]) -> RayExecutor:
    """Build a :class:`RayExecutor` from ``--executor-option`` pairs (plus ``workers``).

    Raises:
        ConfigError: an unknown option, a malformed value, or an ``address`` nothing
            listens on.
    """
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ConfigError(
            f"the ray executor has no option {unknown[0]!r}",
            hint=f"its options are {', '.join(OPTIONS)}; e.g. --executor-option address=auto",
        )
    workers = _number(options, "workers", int, minimum=1)
    return RayExecutor(
        address=options.get("address") or None,
        workers=None if workers is None else int(workers),
        num_cpus=_number(options, "num_cpus", float, minimum=0.0, strict=True) or 1.0,
        num_gpus=_number(options, "num_gpus", float, minimum=0.0) or 0.0,
        results=options.get("results") or None,
    )


def _number(options: Mapping[str, Any], key: str, kind: type, *, minimum: float, strict: bool = False) -> Any:
    if key not in options:
        return None
    try:
        value = kind(options[key])
    except (TypeError, ValueError):
        value = None
    if value is None or value < minimum or (strict and value == minimum):
        bound = f"more than {minimum}" if strict else f"at least {minimum}"
        what = "a whole number" if kind is int else "a number"
        raise ConfigError(
            f"the ray executor's {key} must be {what} {bound}, got {options[key]!r}",
            hint=f"e.g. --executor-option {key}={2 if kind is int else 1}",
        )
    return value


@dataclass(frozen=True)
class _Cluster:
    """A Ray this executor connected to or started."""

    started: bool  # started here: shut it down afterwards
    local: bool  # every node is this machine


class RayExecutor:
    """Runs requests as Ray tasks, locally or on a cluster.

    Args:
        address: The cluster: ``ray://host:port`` (Ray Client), ``host:port`` (a
            head node's GCS) or ``auto`` (the cluster ``ray start`` started on this
            machine). ``None``: ``$RAY_ADDRESS`` if set, else a new local Ray with
            ``workers`` CPUs, shut down when the sweep ends. A Ray already
            initialized in this process is used as it is.
        workers: CPUs of a local Ray started here (default: all), and at most this
            many runs at once anywhere.
        num_cpus: CPUs each run reserves.
        num_gpus: GPUs each run reserves.
        results: ``"shared"`` (workers write into this machine's ``PAPERZOO_HOME``,
            which needs them to see it at the same path) or ``"copy"`` (each run
            is recorded on its worker in a temporary home and copied back here).
            ``None``: shared when every node of the cluster is this machine.

    Raises:
        ConfigError: ``results`` is neither, or nothing listens at ``address``.
    """

    name = "ray"

    def __init__(
        self,
        *,
        address: str | None = None,
        workers: int | None = None,
        num_cpus: float = 1.0,
        num_gpus: float = 0.0,
        results: str | None = None,
    ) -> None:
        if results not in (None, "shared", "copy"):
            raise ConfigError(
                f"the ray executor's results must be shared or copy, got {results!r}",
                hint="shared needs every Ray node to see PAPERZOO_HOME at the same path; copy works anywhere",
            )
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.workers = workers
        self.num_cpus = num_cpus
        self.num_gpus = num_gpus
        self.results = results
        if self.address not in (None, "auto", "local"):
            _check_reachable(self.address)

    def __repr__(self) -> str:
        return f"RayExecutor(address={self.address!r}, workers={self.workers!r}, results={self.results!r})"

    def map(self, requests: Sequence[RunRequest]) -> Iterator[RunOutcome]:
        """Run every request as a Ray task; yield outcomes in completion order.

        A run that fails, or whose worker dies, is a failed outcome; the others go
        on. On ``KeyboardInterrupt`` (or when the caller stops iterating) the runs
        not finished are cancelled: those running are marked failed by
        :func:`paperzoo.execute`, those not started are never recorded, as with
        ``--executor local``. A Ray started here is shut down at the end.
        """
        if not requests:
            return
        ray = _import_ray()
        from paperzoo_ray.worker import Reply, adopt, run_request

        cluster = self._connect(ray)
        try:
            copy = self.results == "copy" or (self.results is None and not cluster.local)
            task = ray.remote(num_cpus=self.num_cpus, num_gpus=self.num_gpus, max_retries=0)(run_request)
            env = _driver_environment(copy)
            env_ref = ray.put(env)
            queue = list(requests)
            limit = self.workers or len(queue)
            pending: dict[Any, RunRequest] = {}
            try:
                while queue or pending:
                    while queue and len(pending) < limit:
                        request = queue.pop(0)
                        pending[task.remote(request, env_ref, copy)] = request
                    (ref,), _ = ray.wait(list(pending), num_returns=1)
                    request = pending.pop(ref)
                    try:
                        reply: Reply = ray.get(ref)
                    except Exception as exc:  # the worker died, or the task could not start
                        yield _crashed(request, exc)
                        continue
                    yield adopt(reply) if copy else reply.outcome
            finally:
                if pending and ray.is_initialized():  # interrupted, or the caller stopped early
                    for ref in pending:
                        ray.cancel(ref)  # KeyboardInterrupt in a running task: execute() records it
                    ray.wait(list(pending), num_returns=len(pending), timeout=CANCEL_GRACE_S)
        finally:
            if cluster.started:
                ray.shutdown()

    def _connect(self, ray: Any) -> _Cluster:
        if ray.is_initialized():
            return _Cluster(started=False, local=_all_nodes_here(ray))
        import logging

        kwargs: dict[str, Any] = {"logging_level": logging.WARNING, "configure_logging": True}
        if self.address is None:
            try:
                ray.init(address="local", num_cpus=self.workers, include_dashboard=False, **kwargs)
            except Exception as exc:
                raise ConfigError(
                    f"cannot start a local Ray: {_first_line(exc)}",
                    hint="see 'ray status'; or pass --executor-option address=... to use a running cluster",
                ) from None
            return _Cluster(started=True, local=True)
        try:
            ray.init(address=self.address, **kwargs)
        except Exception as exc:
            hint = (
                'Ray Client needs grpcio: pip install "ray[client]"'
                if "ray[client]" in str(exc)
                else "start one with 'ray start --head' (then address=auto), or leave out address= "
                "to start a local Ray"
            )
            raise ConfigError(
                f"cannot connect to the Ray cluster at {self.address!r}: {_first_line(exc)}", hint=hint
            ) from None
        return _Cluster(started=True, local=_all_nodes_here(ray))


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(
            f"the ray executor needs Ray, which cannot be imported ({exc})",
            hint='pip install "paperzoo-ray" (it depends on ray[client]>=2.9), or use --executor local',
        ) from None
    return ray


def _check_reachable(address: str) -> None:
    """Fail fast, with a hint, when nothing listens at ``address`` (Ray itself waits minutes)."""
    parts = urlsplit(address if "://" in address else f"gcs://{address}")
    default = CLIENT_PORT if parts.scheme == "ray" else GCS_PORT
    try:
        host, port = parts.hostname, parts.port or default
    except ValueError:
        host, port = None, None
    if not host or port is None:
        raise ConfigError(f"invalid Ray address {address!r}", hint="write ray://host:port, host:port or auto")
    try:
        socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise ConfigError(
            f"cannot reach the Ray cluster at {address!r}: {exc.strerror or exc}",
            hint=f"is its head node up and port {port} open? Start one with 'ray start --head'; "
            "leave out address= (and RAY_ADDRESS) to start a local Ray",
        ) from None


def _all_nodes_here(ray: Any) -> bool:
    """Whether every alive node of the cluster is this machine (then results can be shared)."""
    try:
        here = ray.util.get_node_ip_address()
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        return bool(nodes) and all(n.get("NodeManagerAddress") == here for n in nodes)
    except Exception:  # Ray Client, or an API change: assume remote and copy
        return False


def _driver_environment(copy: bool) -> dict[str, str]:
    """The ``PAPERZOO_*`` variables the tasks run with: this process's, and its home."""
    from paperzoo.paths import HOME_ENV, home

    env = {k: v for k, v in os.environ.items() if k.startswith("PAPERZOO_")}
    env.pop(HOME_ENV, None)
    if not copy:
        env[HOME_ENV] = str(home())
    return env


def _crashed(request: RunRequest, exc: Exception) -> RunOutcome:
    return RunOutcome(
        request,
        "",
        "failed",
        "",
        error=f"{type(exc).__name__}: {_first_line(exc)}",
        hint="a Ray worker died or could not run the task; rerun with --executor local to see why",
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
