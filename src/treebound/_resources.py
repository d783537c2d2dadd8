"""Resource limits: estimate what a computation needs before starting it, refuse when too much.

Some public functions can be asked for far more than the machine has (a growth-function table
over ten million examples, every tree shape with 30 leaves, a 100,000-pixel figure). Each of
them estimates the memory and the time it will need from its arguments, before any work, and
raises :class:`ResourceLimitError` (a ``ValueError``) naming the estimate, the limit and how to
raise it when an estimate is over its limit. Loops whose length is hard to predict also stop at
the time limit.

The limits, most specific first:

* ``with treebound.resource_limits(max_memory="8G", max_seconds=600): ...`` for a block of code
  (``None`` means no limit);
* the environment variables ``TREEBOUND_MAX_MEMORY`` (bytes, or ``512M``, ``4G``, ``none``)
  and ``TREEBOUND_MAX_SECONDS`` (seconds, or ``none``);
* the defaults: 1 GiB and 10 s.

Estimates are deliberately rough (a factor of two either way); they exist to refuse requests
that are off by orders of magnitude, in a second, instead of running for minutes into swap.
A limit only ever refuses: no result depends on it. Growth, pruning and certificates are sized
by the training data already in memory and run without these limits, except bound pruning with
the tight bound, whose tables can take minutes on large trees: it is estimated before any work
and refused over the limits, naming ``pruning_params={'variant': 'loose'}``.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import time
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["DEFAULT_MAX_MEMORY", "DEFAULT_MAX_SECONDS", "MEMORY_ENV", "SECONDS_ENV",
           "ResourceLimitError", "ResourceLimits", "check_resources", "current_limits",
           "format_bytes", "parse_memory", "parse_seconds", "resource_limits", "unbounded",
           "unlimited"]

MEMORY_ENV = "TREEBOUND_MAX_MEMORY"
SECONDS_ENV = "TREEBOUND_MAX_SECONDS"
DEFAULT_MAX_MEMORY = 2**30
DEFAULT_MAX_SECONDS = 10.0

_UNITS = {"": 1, "b": 1, "k": 2**10, "kb": 2**10, "kib": 2**10, "m": 2**20, "mb": 2**20,
          "mib": 2**20, "g": 2**30, "gb": 2**30, "gib": 2**30, "t": 2**40, "tb": 2**40,
          "tib": 2**40}
_NO_LIMIT = ("none", "inf", "unlimited", "off")


class ResourceLimitError(ValueError):
    """A computation that would need more memory or time than the current limits allow.

    A ``ValueError``; the message names the estimate, the limit and how to raise it
    (:func:`resource_limits` or the environment variables ``TREEBOUND_MAX_MEMORY`` and
    ``TREEBOUND_MAX_SECONDS``).

    Examples
    --------
    >>> from treebound import ResourceLimitError, resource_limits
    >>> from treebound.theory import TreeStructure, log_growth_function_upper_bound
    >>> try:
    ...     with resource_limits(max_memory="1M"):
    ...         log_growth_function_upper_bound(TreeStructure.full(3), n_examples=10**6,
    ...                                         n_features=10**6, n_classes=2)
    ... except ResourceLimitError as exc:
    ...     print(str(exc)[:60])
    log_growth_function_upper_bound (8 leaves, m=1000000, tight)
    """


@dataclass(frozen=True)
class ResourceLimits:
    """``max_memory`` in bytes and ``max_seconds``; ``math.inf`` means no limit."""

    max_memory: float
    max_seconds: float


def parse_memory(value, name: str = "max_memory") -> float:
    """Bytes from ``1073741824``, ``"512M"``, ``"1.5G"``, ``"4GiB"``; ``None``/``"none"`` = no
    limit (``math.inf``)."""
    if value is None:
        return math.inf
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a size such as 512M or 4G, got {value!r}")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip().lower()
        if text in _NO_LIMIT:
            return math.inf
        match = re.fullmatch(r"([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([a-z]*)", text)
        if match is None or match.group(2) not in _UNITS:
            raise ValueError(f"{name} must be a size such as 512M or 4G (or none), got "
                             f"{value!r}")
        number = float(match.group(1)) * _UNITS[match.group(2)]
    else:
        raise ValueError(f"{name} must be a size such as 512M or 4G, got {value!r}")
    if math.isnan(number) or number <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return number


def parse_seconds(value, name: str = "max_seconds") -> float:
    """Seconds from a number or a numeric string; ``None``/``"none"`` = no limit."""
    if value is None:
        return math.inf
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _NO_LIMIT:
            return math.inf
        try:
            number = float(text.removesuffix("s"))
        except ValueError:
            raise ValueError(f"{name} must be a number of seconds (or none), got "
                             f"{value!r}") from None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = float(value)
    else:
        raise ValueError(f"{name} must be a number of seconds, got {value!r}")
    if math.isnan(number) or number <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return number


_ACTIVE: ContextVar[ResourceLimits | None] = ContextVar("treebound_resource_limits",
                                                        default=None)


def _from_environment() -> ResourceLimits:
    memory = os.environ.get(MEMORY_ENV)
    seconds = os.environ.get(SECONDS_ENV)
    return ResourceLimits(
        DEFAULT_MAX_MEMORY if memory is None else parse_memory(memory, MEMORY_ENV),
        DEFAULT_MAX_SECONDS if seconds is None else parse_seconds(seconds, SECONDS_ENV))


def unbounded() -> bool:
    """Whether both limits are off here (then estimates need not even be computed)."""
    limits = current_limits()
    return math.isinf(limits.max_memory) and math.isinf(limits.max_seconds)


def current_limits() -> ResourceLimits:
    """The limits in force here (see the module docstring for where they come from)."""
    active = _ACTIVE.get()
    return active if active is not None else _from_environment()


_KEEP = object()


@contextlib.contextmanager
def resource_limits(max_memory=_KEEP, max_seconds=_KEEP):
    """Set the memory and time limits of the guarded functions inside a ``with`` block.

    The guarded functions (growth-function tables, VC-dimension searches, structure
    enumeration, tree plots, tight bound pruning, ...) estimate what they need before starting
    and raise :class:`ResourceLimitError` when it is over a limit; a limit never changes a
    result. Growth, the other pruning methods and certificates are sized by the data already in
    memory and run without these limits.

    Parameters
    ----------
    max_memory : int, float, str or None, optional
        Bytes, or a size such as ``"512M"`` or ``"8G"``; ``None`` for no limit; omitted: keep
        the current limit (by default ``TREEBOUND_MAX_MEMORY``, else 1 GiB).
    max_seconds : float or None, optional
        Seconds; ``None`` for no limit; omitted: keep the current limit (by default
        ``TREEBOUND_MAX_SECONDS``, else 10 s).

    Returns
    -------
    context manager
        Entering it yields the :class:`ResourceLimits` in force inside the block; leaving it
        restores the previous limits.

    Examples
    --------
    >>> from treebound import resource_limits
    >>> from treebound.theory import enumerate_structures
    >>> with resource_limits(max_memory="64M") as limits:
    ...     print(limits.max_memory, len(enumerate_structures(12)))
    67108864.0 451
    """
    base = current_limits()
    limits = ResourceLimits(
        base.max_memory if max_memory is _KEEP else parse_memory(max_memory),
        base.max_seconds if max_seconds is _KEEP else parse_seconds(max_seconds))
    token = _ACTIVE.set(limits)
    try:
        yield limits
    finally:
        _ACTIVE.reset(token)


def unlimited():
    """``resource_limits(None, None)``: for computations sized by data already in memory."""
    return resource_limits(max_memory=None, max_seconds=None)


def format_bytes(n: float) -> str:
    """``1.5 GB``-style text (powers of 1024)."""
    if not math.isfinite(n):
        return "unlimited" if n > 0 else str(n)
    for unit, size in (("TB", 2**40), ("GB", 2**30), ("MB", 2**20), ("KB", 2**10)):
        if n >= size:
            value = n / size
            return f"{value:.3g} {unit}" if value < 1e6 else f"{value:.2e} {unit}"
    return f"{n:.0f} bytes"


def _format_seconds(s: float) -> str:
    if not math.isfinite(s):
        return "unlimited"
    if s < 1e6:
        return f"{s:.3g} s"
    return f"{s:.2e} s"


class Deadline:
    """The time limit of a running computation: :meth:`check` raises once it has passed."""

    __slots__ = ("what", "limit", "started", "_end")

    def __init__(self, what: str, limit: float):
        self.what = what
        self.limit = limit
        self.started = time.monotonic()
        self._end = self.started + limit

    def check(self) -> None:
        if time.monotonic() > self._end:
            elapsed = time.monotonic() - self.started
            raise ResourceLimitError(
                f"{self.what} stopped after {elapsed:.1f} s, over the time limit of "
                f"{_format_seconds(self.limit)}; raise it with {SECONDS_ENV}=<seconds> or "
                "treebound.resource_limits(max_seconds=...)")


#: Estimates below these are never refused (nor is the environment read for them).
TRIVIAL_MEMORY = 2**20
TRIVIAL_SECONDS = 0.01


class _NoDeadline(Deadline):
    __slots__ = ()

    def check(self) -> None:
        return None


_NEVER = _NoDeadline("a small computation", math.inf)


def check_resources(what: str, *, memory: float = 0.0, seconds: float = 0.0,
                    watch: bool = False) -> Deadline:
    """Refuse (``ResourceLimitError``) when the estimated ``memory`` (bytes) or ``seconds`` of
    ``what`` are over the current limits; else the computation's :class:`Deadline` (with
    ``watch``, a computation whose estimate is trivial still gets the real time limit)."""
    if not watch and memory <= TRIVIAL_MEMORY and seconds <= TRIVIAL_SECONDS:
        return _NEVER
    limits = current_limits()
    if memory > limits.max_memory:
        raise ResourceLimitError(
            f"{what} needs about {format_bytes(memory)} of memory, over the limit of "
            f"{format_bytes(limits.max_memory)}; raise it with {MEMORY_ENV}="
            f"{_suggest_memory(memory)} or treebound.resource_limits(max_memory=...)")
    if seconds > limits.max_seconds:
        raise ResourceLimitError(
            f"{what} needs about {_format_seconds(seconds)}, over the time limit of "
            f"{_format_seconds(limits.max_seconds)}; raise it with {SECONDS_ENV}="
            f"{_suggest_seconds(seconds)} or treebound.resource_limits(max_seconds=...)")
    return Deadline(what, limits.max_seconds)


#: Beyond these no machine helps: the message suggests no limit rather than a number.
_HOPELESS_MEMORY = 2.0**50
_HOPELESS_SECONDS = 1e7


def _suggest_memory(n: float) -> str:
    if n > _HOPELESS_MEMORY:
        return "none"
    gib = max(1, math.ceil(2 * n / 2**30))
    return f"{gib}G"


def _suggest_seconds(s: float) -> str:
    if s > _HOPELESS_SECONDS:
        return "none"
    return str(max(1, math.ceil(2 * s)))
