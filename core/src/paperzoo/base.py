"""``BaseEstimator``: scikit-learn's parameter rules for paperzoo estimators.

The rules (as in ``sklearn.base``):

* ``__init__`` takes keyword parameters with defaults, stores each one unchanged
  under the same name, and does nothing else (no validation, no work);
* ``fit`` validates, computes, stores fitted state in attributes ending in ``_``
  and returns ``self``;
* ``get_params``/``set_params`` are derived from the ``__init__`` signature, with
  ``<component>__<param>`` addressing nested estimators;
* :func:`clone` builds an unfitted copy with the same parameters;
* ``_parameters`` declares each parameter's allowed values as a
  :class:`~paperzoo.settings.Setting` (as scikit-learn's
  ``_parameter_constraints``), and ``fit`` calls :meth:`BaseEstimator._validate_params`.

Estimators stay compatible with ``sklearn.base.clone``, ``Pipeline`` and grid
search, which only rely on these rules.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import numbers
from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from paperzoo.errors import ConfigError, NotFittedError
from paperzoo.settings import REQUIRED, Setting, bounds_text, check_values

__all__ = ["BaseEstimator", "check_int", "check_is_fitted", "check_number", "clone"]

E = TypeVar("E", bound="BaseEstimator")


class BaseEstimator:
    """Base class giving ``get_params``, ``set_params``, ``clone``, a repr and parameter checks.

    Declare constraints once and check them in ``fit``::

        class GRACE(BaseEstimator):
            _parameters = {"epochs": Setting(low=1), "tau": Setting(low=0, low_open=True)}

            def fit(self, graph):
                params = self._validate_params()   # {"epochs": 200, "tau": 0.5, ...}

    A :class:`~paperzoo.settings.Setting` without a default takes its type from
    the ``__init__`` default; non-finite numbers are refused unless a
    parameter says ``finite=False``.
    """

    _parameters: ClassVar[Mapping[str, Setting]] = {}

    def _validate_params(self) -> dict[str, Any]:
        """Every parameter, checked against ``_parameters`` and normalised (numpy ints → int).

        Raises:
            ConfigError: one line, e.g. ``"GRACE: epochs must be an integer ≥ 1, got 0"``.
        """
        defaults = {
            p.name: p.default
            for p in inspect.signature(type(self).__init__).parameters.values()
            if p.default is not p.empty
        }
        constraints = {
            name: dataclasses.replace(setting, default=defaults.get(name))
            if setting.default is REQUIRED and setting.type is None
            else setting
            for name, setting in self._parameters.items()
        }
        unknown = sorted(set(constraints) - set(self._get_param_names()))
        if unknown:
            raise TypeError(f"{type(self).__name__}._parameters names {unknown}, which are not parameters")
        return check_values(self.get_params(deep=False), constraints, owner=type(self).__name__)

    @classmethod
    def _get_param_names(cls) -> list[str]:
        init = cls.__init__
        if init is object.__init__:
            return []
        params = inspect.signature(init).parameters.values()
        names = []
        for p in params:
            if p.name == "self" or p.kind == p.VAR_KEYWORD:
                continue
            if p.kind == p.VAR_POSITIONAL:
                raise TypeError(
                    f"{cls.__name__}.__init__ takes *{p.name}; estimators must take "
                    "explicit keyword parameters only"
                )
            names.append(p.name)
        return sorted(names)

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of this estimator (and, if ``deep``, of nested estimators)."""
        out: dict[str, Any] = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                for sub, sub_value in value.get_params(deep=True).items():
                    out[f"{name}__{sub}"] = sub_value
            out[name] = value
        return out

    def set_params(self: E, **params: Any) -> E:
        """Set parameters (``name`` or ``component__name``) and return ``self``.

        Raises:
            ConfigError: a name is not a parameter; the hint lists the valid ones.
        """
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict[str, Any]] = {}
        for key, value in params.items():
            name, sep, sub = key.partition("__")
            if name not in valid:
                raise ConfigError(
                    f"{type(self).__name__} has no parameter {name!r}",
                    hint=f"its parameters are: {', '.join(self._get_param_names()) or '(none)'}",
                )
            if sep:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def __repr__(self) -> str:
        defaults = {
            p.name: p.default
            for p in inspect.signature(type(self).__init__).parameters.values()
            if p.default is not p.empty
        }
        shown = []
        for name in self._get_param_names():
            value = getattr(self, name, None)
            default = defaults.get(name, inspect.Parameter.empty)
            try:
                same = bool(value == default) if type(value) is type(default) else False
            except Exception:  # arrays and other objects without a plain ==
                same = value is default
            if not same:
                shown.append(f"{name}={value!r}")
        return f"{type(self).__name__}({', '.join(shown)})"


def clone(estimator: E, *, safe: bool = True) -> E:
    """An unfitted estimator with the same parameters, deep-copied.

    Nested estimators are cloned too; lists and tuples of estimators are cloned
    element-wise. With ``safe=False``, a non-estimator is deep-copied.

    Raises:
        TypeError: ``estimator`` has no ``get_params`` (and ``safe``), or its
            ``__init__`` does not store parameters unchanged.
    """
    if isinstance(estimator, (list, tuple, set, frozenset)):
        return type(estimator)(clone(e, safe=safe) for e in estimator)
    if not hasattr(estimator, "get_params") or isinstance(estimator, type):
        if not safe:
            return copy.deepcopy(estimator)
        raise TypeError(f"cannot clone {estimator!r}: it has no get_params (is it an estimator?)")
    params = estimator.get_params(deep=False)
    new_params = {name: clone(value, safe=False) for name, value in params.items()}
    new = type(estimator)(**new_params)
    for name, value in new.get_params(deep=False).items():
        if value is not new_params[name]:
            raise TypeError(
                f"{type(estimator).__name__}.__init__ changes parameter {name!r}; "
                "store parameters unchanged and validate them in fit"
            )
    return new


def check_is_fitted(estimator: Any, attributes: str | list[str] | None = None) -> None:
    """Raise :class:`~paperzoo.errors.NotFittedError` unless ``estimator`` is fitted.

    Fitted means: the given ``attributes`` exist, or (by default) at least one
    public attribute ends with ``_``.
    """
    if attributes is not None:
        names = [attributes] if isinstance(attributes, str) else attributes
        fitted = all(hasattr(estimator, n) for n in names)
    else:
        fitted = any(k.endswith("_") and not k.startswith("_") for k in vars(estimator))
    if not fitted:
        raise NotFittedError(
            f"this {type(estimator).__name__} is not fitted yet",
            hint="call fit(...) before using it",
        )


def check_int(
    name: str,
    value: Any,
    *,
    low: int | None = None,
    high: int | None = None,
    allow_none: bool = False,
    owner: str | None = None,
) -> Any:
    """``value`` as an ``int`` in [low, high] (numpy integers accepted, bools not).

    Raises:
        ConfigError: one line, e.g. ``"GRACE: epochs must be an integer ≥ 1, got 2.5"``.
    """
    if value is None and allow_none:
        return None
    ok = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if ok and ((low is not None and value < low) or (high is not None and value > high)):
        ok = False
    if not ok:
        prefix = f"{owner}: " if owner else ""
        raise ConfigError(
            f"{prefix}{name} must be an integer{bounds_text(low, high, False, False)}"
            f"{' or None' if allow_none else ''}, got {value!r}"
        )
    return int(value)


def check_number(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    allow_none: bool = False,
    owner: str | None = None,
) -> Any:
    """``value`` as a ``float`` in the interval given by ``low``/``high`` (open ends on request).

    Integers and numpy numbers are accepted; bools, NaN and non-numbers are not.

    Raises:
        ConfigError: one line, e.g. ``"tau must be a number > 0, got 0.0"``.
    """
    if value is None and allow_none:
        return None
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and not math.isnan(value)
    if ok and low is not None and (value <= low if low_open else value < low):
        ok = False
    if ok and high is not None and (value >= high if high_open else value > high):
        ok = False
    if not ok:
        prefix = f"{owner}: " if owner else ""
        raise ConfigError(
            f"{prefix}{name} must be a number{bounds_text(low, high, low_open, high_open)}"
            f"{' or None' if allow_none else ''}, got {value!r}"
        )
    return float(value)
