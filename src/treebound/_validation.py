"""Declarative parameter constraints and shared input checks.

Every estimator declares ``_parameter_constraints`` once (name -> list of accepted forms) and calls
:func:`validate_parameters` at the start of ``fit``; the error names the estimator, the parameter,
what is accepted and what was given.
"""

from __future__ import annotations

import math
import numbers
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np


class RealNotInt:
    """Kind of :class:`Interval` for a real number that is not an integer (scikit-learn's
    ``RealNotInt``): ``min_samples_split=1`` is an int below 2, not the fraction 1.0."""


def check_integer(value, name: str, minimum: int | None = 0) -> int:
    """``value`` as a Python int; ``TypeError`` unless it is an integer (not a bool),
    ``ValueError`` below ``minimum``. The one integer check of the package."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return value


_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class Interval:
    """A number of the given kind (``int``, ``float`` or :class:`RealNotInt`) in a range;
    ``None`` = unbounded."""

    kind: type
    low: float | None = None
    high: float | None = None
    closed: str = "both"  # "both", "left", "right", "neither"

    def accepts(self, value) -> bool:
        if isinstance(value, bool | np.bool_):
            return False
        if self.kind is int and not isinstance(value, numbers.Integral):
            return False
        if self.kind is float and not isinstance(value, numbers.Real):
            return False
        if self.kind is RealNotInt and (not isinstance(value, numbers.Real)
                                        or isinstance(value, numbers.Integral)):
            return False
        if isinstance(value, numbers.Integral):
            if not _INT64_MIN <= value <= _INT64_MAX:  # e.g. 10**23: no int64 holds it
                return False
        elif isinstance(value, numbers.Real) and not math.isfinite(value):
            return False
        if self.low is not None:
            if value < self.low or (value == self.low and self.closed in ("right", "neither")):
                return False
        if self.high is not None:
            if value > self.high or (value == self.high and self.closed in ("left", "neither")):
                return False
        return True

    def describe(self) -> str:
        kind = "an int" if self.kind is int else "a float"  # RealNotInt: a float, not an int
        lo = "-inf" if self.low is None else self.low
        hi = "inf" if self.high is None else self.high
        left = "[" if self.closed in ("both", "left") and self.low is not None else "("
        right = "]" if self.closed in ("both", "right") and self.high is not None else ")"
        return f"{kind} in the range {left}{lo}, {hi}{right}"


@dataclass(frozen=True)
class Options:
    """One of a fixed set of strings."""

    values: tuple[str, ...]

    def accepts(self, value) -> bool:
        return isinstance(value, str) and value in self.values

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


@dataclass(frozen=True)
class InstanceOf:
    """Any instance of the given types (with a readable description)."""

    types: tuple[type, ...]
    name: str

    def accepts(self, value) -> bool:
        return isinstance(value, self.types)

    def describe(self) -> str:
        return self.name


def validate_parameters(owner: str, params: dict, constraints: dict) -> None:
    """Raise a ``ValueError`` (bad value) or ``TypeError`` (bad type) naming the parameter, in
    scikit-learn's words (``The 'max_depth' parameter of DecisionTreeClassifier must be ...``)."""
    for name, accepted in constraints.items():
        value = params[name]
        if any(value is None if rule is None else rule.accepts(value) for rule in accepted):
            continue
        descriptions = ["None" if rule is None else rule.describe() for rule in accepted]
        # scikit-learn's wording, so that code matching its messages matches these
        message = (f"The {name!r} parameter of {owner} must be {' or '.join(descriptions)}. "
                   f"Got {value!r} instead.")
        if isinstance(value, numbers.Integral) and not isinstance(value, bool) and \
                not _INT64_MIN <= value <= _INT64_MAX:
            message += " It is beyond the 64-bit integers the tree is built with."
        same_kind = any(
            (rule is None and value is None)
            or (isinstance(rule, Options) and isinstance(value, str))
            or (isinstance(rule, Interval) and isinstance(value, numbers.Real)
                and not isinstance(value, bool))
            for rule in accepted
        )
        raise (ValueError if same_kind else TypeError)(message)


def check_sample_weight(sample_weight, n_samples: int) -> np.ndarray:
    """Float64 weights of length ``n_samples``: finite, non-negative, not all zero."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    if np.isscalar(sample_weight):
        sample_weight = np.full(n_samples, sample_weight, dtype=np.float64)
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sample_weight must be numeric: {exc}") from None
    if weights.ndim == 0:  # a 0-d array is no scalar for scikit-learn: its TypeError
        raise TypeError("Input should have at least 1 dimension i.e. satisfy `len(x.shape) > "
                        f"0`, got scalar `{weights!r}` instead.")
    if weights.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D, got shape {weights.shape}")
    if weights.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight has {weights.shape[0]} entries but X has {n_samples} samples"
        )
    if not np.all(np.isfinite(weights)):
        raise ValueError("sample_weight contains NaN or infinity")
    if np.any(weights < 0):
        raise ValueError("sample_weight contains negative values")
    if not np.any(weights > 0):
        raise ValueError("sample_weight sums to zero: at least one sample needs positive weight")
    return np.ascontiguousarray(weights)


#: Weights whose largest value lies outside [2^-64, 2^64] are rescaled (see below).
_WEIGHT_EXPONENT_RANGE = 64


def rescale_extreme_weights(weights: np.ndarray) -> np.ndarray:
    """Positive weights scaled by a power of two when the largest is above ``2^64`` or below
    ``2^-64``, so that sums and the squares in the impurities cannot overflow or vanish (one
    row weighted ``1e308`` makes the Gini of its node ``inf``). Every weighted statistic the
    growth reads is a ratio of weights, so the tree is the same; multiplying by a power of two
    is exact. Weights that the scaling would flush to zero become the smallest positive float.
    """
    top = float(weights.max())
    exponent = math.frexp(top)[1]
    if -_WEIGHT_EXPONENT_RANGE <= exponent <= _WEIGHT_EXPONENT_RANGE:
        return weights
    scaled = np.ldexp(weights, 1 - exponent)
    scaled[(scaled == 0) & (weights > 0)] = np.nextafter(0.0, 1.0)
    return scaled


_PACKAGE_DIR = str(Path(__file__).resolve().parent)


def external_stacklevel() -> int:
    """The ``stacklevel`` that makes :func:`warnings.warn`, called by the caller of this
    function, point at the first frame outside treebound (the user's line), however deep the
    call came through the package.

    Returns
    -------
    int

    Examples
    --------
    >>> external_stacklevel()  # called from outside treebound: the caller itself
    1
    """
    frame = sys._getframe(1)
    level = 1
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(
            _PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level
