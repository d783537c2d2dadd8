"""Printing bounds so that the printed number is still a bound.

A risk bound printed to the nearest digit can read below the bound that was computed (0.27636
prints as 0.276): the printed promise would then be stronger than the proved one. Every bound
treebound prints goes through :func:`format_bound`: an upper bound is rounded up, a lower bound
(and a confidence level, a lower bound on a probability) down, in exact decimal arithmetic. The
command line, ``str(Certificate)``, the demo, the reports and the plots use it.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

__all__ = ["format_bound", "format_count", "promises_nothing"]

_SIDES = {"upper": ROUND_CEILING, "lower": ROUND_FLOOR}


def format_bound(value: float, side: str = "upper", digits: int = 3) -> str:
    """``value`` with ``digits`` significant digits, rounded towards the safe side.

    Parameters
    ----------
    value : float
        The bound.
    side : {"upper", "lower"}, default="upper"
        ``"upper"``: rounded up, so the printed number is never below ``value``; ``"lower"``
        (lower bounds, confidence levels): rounded down.
    digits : int, default=3
        Significant digits (two below 0.01, where three would suggest a precision nobody
        needs).

    Returns
    -------
    str
        Plain decimal notation without trailing zeros (``"0.277"``, ``"1"``, ``"0.0031"``);
        ``"nan"``, ``"inf"`` or ``"-inf"`` for those values.

    Examples
    --------
    >>> format_bound(0.27636)
    '0.277'
    >>> format_bound(0.27636, "lower")
    '0.276'
    >>> format_bound(0.99995), format_bound(0.26), format_bound(0.003123)
    ('1', '0.26', '0.0032')
    >>> float(format_bound(0.1 + 0.2)) >= 0.1 + 0.2  # 0.30000000000000004
    True
    >>> format_bound(0.1 + 0.2)
    '0.301'
    """
    if side not in _SIDES:
        raise ValueError(f"side must be 'upper' or 'lower', got {side!r}")
    value = float(value)
    if not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if value == 0.0:
        return "0"
    if abs(value) < 0.01:
        digits = min(digits, 2)
    # The shortest decimal that reads back as this float (repr): rounding it towards the safe
    # side gives a number that reads back on the safe side of the float, since reading a
    # decimal rounds monotonically (0.26 stays 0.26; the float's exact binary expansion,
    # 0.26000000000000000888, would print 0.261).
    shortest = Decimal(repr(value))
    quantum = Decimal(1).scaleb(shortest.adjusted() - digits + 1)
    rounded = shortest.quantize(quantum, rounding=_SIDES[side])
    text = format(rounded, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def promises_nothing(value: float) -> bool:
    """Whether an upper bound on an error rate, as printed, promises nothing (``>= 1``).

    A bound just below 1 prints as 1 once rounded up, and then says nothing either.

    Parameters
    ----------
    value : float
        An upper bound on an error rate.

    Returns
    -------
    bool

    Examples
    --------
    >>> promises_nothing(0.99995), promises_nothing(0.998), promises_nothing(1.26)
    (True, False, True)
    """
    return float(format_bound(value, "upper")) >= 1.0


def format_count(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 leaf"``, ``"2 leaves"``, ``"1 error"``, ``"0 errors"``: a count with its noun.

    Parameters
    ----------
    n : int
        The count.
    noun : str
        The singular noun.
    plural : str, optional
        The plural (default: ``noun + "s"``).

    Returns
    -------
    str

    Examples
    --------
    >>> format_count(1, "error"), format_count(2, "leaf", "leaves"), format_count(0, "row")
    ('1 error', '2 leaves', '0 rows')
    """
    word = noun if n == 1 else (plural if plural is not None else noun + "s")
    return f"{n} {word}"
