"""Named registries of specs, filled lazily by the registration hooks."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from paperzoo.errors import DuplicateNameError, PluginError, UnknownNameError
from paperzoo.specs import Spec

__all__ = ["Registrar", "Registry", "suggest"]

S = TypeVar("S", bound=Spec)


def suggest(name: str, choices: list[str], *, n: int = 3) -> str | None:
    """A hint naming the closest matches of ``name`` among ``choices``, if any."""
    close = difflib.get_close_matches(name, choices, n=n, cutoff=0.5)
    if not close:
        prefixed = [c for c in choices if c.startswith(name) or name in c][:n]
        close = prefixed
    return f"did you mean {' or '.join(repr(c) for c in close)}?" if close else None


class Registry(Generic[S]):
    """Specs of one kind (estimators, datasets, ...) by unique name.

    Args:
        kind: ``"estimator"``, ``"dataset"``, ``"metric"`` or ``"experiment"``.
        spec_type: The spec class accepted.
        fill: Called once, on first access, to run the registration hooks.
        listing: The command that lists them, for hints (default ``paperzoo list <kind>s``).
        missing_hint: Gives a hint for a name that is not there (an install hint), or ``None``.
    """

    def __init__(
        self,
        kind: str,
        spec_type: type[S],
        fill: Callable[[Registry[S]], None],
        *,
        listing: str | None = None,
        missing_hint: Callable[[str], str | None] | None = None,
    ) -> None:
        self.kind = kind
        self.missing_hint = missing_hint
        self.listing = listing or f"paperzoo list {kind}s"
        self.spec_type = spec_type
        self._filler = fill
        self._fill: Callable[[Registry[S]], None] | None = fill
        self._specs: dict[str, S] = {}

    def reset(self) -> None:
        """Forget every spec; the registration hooks run again on next access."""
        self._specs = {}
        self._fill = self._filler

    def _ensure(self) -> None:
        if self._fill is not None:
            fill, self._fill = self._fill, None
            fill(self)

    def check_new(self, spec: S) -> None:
        """Raise if ``spec.name`` is taken.

        Raises:
            DuplicateNameError: another plugin already registered the name.
        """
        existing = self._specs.get(spec.name)
        if existing is not None:
            raise DuplicateNameError(
                f"{self.kind} {spec.name!r} is registered by both {existing.plugin or '?'} "
                f"and {spec.plugin or '?'}",
                hint="uninstall or disable one of them (PAPERZOO_DISABLE_PLUGINS)",
            )

    def add(self, spec: S) -> None:
        """Add ``spec``; its name must be new.

        Raises:
            DuplicateNameError: the name is taken.
        """
        self.check_new(spec)
        self._specs[spec.name] = spec

    def discard(self, *, plugin: str) -> None:
        """Withdraw every spec registered by ``plugin``."""
        for name in [n for n, s in self._specs.items() if s.plugin == plugin]:
            del self._specs[name]

    def get(self, name: str) -> S:
        """The spec called ``name``.

        Raises:
            UnknownNameError: no such name; the hint names the closest ones.
        """
        self._ensure()
        try:
            return self._specs[name]
        except KeyError:
            hint = (self.missing_hint and self.missing_hint(name)) or suggest(name, self.names())
            hint = hint or f"see '{self.listing}'"
            raise UnknownNameError(f"unknown {self.kind} {name!r}", hint=hint) from None

    def names(self) -> list[str]:
        """All names, sorted."""
        self._ensure()
        return sorted(self._specs)

    def __iter__(self) -> Iterator[S]:
        self._ensure()
        return iter([self._specs[n] for n in sorted(self._specs)])

    def __contains__(self, name: object) -> bool:
        self._ensure()
        return name in self._specs

    def __len__(self) -> int:
        self._ensure()
        return len(self._specs)


class Registrar(Generic[S]):
    """The ``register`` callable handed to one plugin's registration hook.

    It stamps each spec with the plugin's name and collects it; the host adds the
    collected specs to the registry only if the whole hook succeeded, so a plugin
    that fails half-way registers nothing.
    """

    def __init__(self, spec_type: type[S], plugin: str) -> None:
        self.spec_type = spec_type
        self.plugin = plugin
        self.specs: list[S] = []

    def __call__(self, spec: S) -> None:
        if not isinstance(spec, self.spec_type):
            raise PluginError(
                f"plugin {self.plugin} registered {spec!r}; expected a {self.spec_type.__name__}",
            )
        self.specs.append(spec.with_plugin(self.plugin))  # type: ignore[arg-type]
