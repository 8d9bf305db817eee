"""Protocols of what plugins provide, for type checkers and ``isinstance`` checks.

Implementations need not inherit from anything: these are structural types.
:class:`~paperzoo.base.BaseEstimator` satisfies :class:`Estimator`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from paperzoo.results import Result
    from paperzoo.runs import Run, RunOutcome, RunRequest

__all__ = ["DatasetLoader", "Estimator", "Executor", "Experiment", "Metric"]


@runtime_checkable
class Estimator(Protocol):
    """scikit-learn's estimator protocol: parameters in, ``fit`` returns ``self``."""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of the estimator."""
        ...

    def set_params(self, **params: Any) -> Any:
        """Set parameters; return ``self``."""
        ...

    def fit(self, *args: Any, **kwargs: Any) -> Any:
        """Fit; return ``self``."""
        ...


@runtime_checkable
class Experiment(Protocol):
    """An experiment function: reads ``run.settings``, returns a Result."""

    def __call__(self, run: Run) -> Result:
        """Run the experiment."""
        ...


@runtime_checkable
class DatasetLoader(Protocol):
    """A dataset loader: keyword options in, plain objects out."""

    def __call__(self, **options: Any) -> Any:
        """Load the dataset."""
        ...


@runtime_checkable
class Metric(Protocol):
    """A metric: arrays in, a number out."""

    def __call__(self, *args: Any, **kwargs: Any) -> float:
        """Compute the metric."""
        ...


@runtime_checkable
class Executor(Protocol):
    """Carries out run requests.

    Implementations must record every run in the results store (calling
    :func:`paperzoo.runs.execute` wherever the run happens does that), yield one
    outcome per request, and turn a crashed worker into a failed outcome rather
    than an exception.
    """

    name: str

    def map(self, requests: Sequence[RunRequest]) -> Iterator[RunOutcome]:
        """Run every request; yield outcomes in completion order."""
        ...
