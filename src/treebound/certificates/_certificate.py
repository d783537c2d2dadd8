"""The :class:`Certificate` a user reads: a risk bound and what it rests on."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from types import MappingProxyType

from treebound._format import format_bound, format_count, promises_nothing

__all__ = ["Certificate", "unavailable_certificate"]

_METHOD_TEXT = {
    "hti": "hypergeometric tail inversion, uniform over all trees",
    "compression": "sample compression",
    "shawe_taylor": "Shawe-Taylor et al. (Leboeuf et al. Eq. 8)",
    "test_set": "test-set bound on held-out rows",
    "prefix_code": "Scott & Nowak's prefix code over dyadic trees",
}


@dataclass(frozen=True)
class Certificate:
    """A bound on the true error rate of a fitted tree classifier.

    With probability at least ``1 - delta`` over the draw of the sample the bound was computed
    on (i.i.d. rows), the tree's error rate on new rows from the same distribution is at most
    ``risk_upper_bound``; where a lower bound is given, it holds on its own with probability at
    least ``1 - lower_bound_delta`` (``1 - delta``, or ``1 - delta / 2`` for ``"auto"``), and
    ``str()`` says so: the two sides do not share one confidence. Printed numbers are rounded
    towards the safe side (:func:`~treebound.certificates.format_bound`). The training-sample
    methods hold
    simultaneously for every tree of every shape, so they certify a tree whatever chose it —
    but only on the sample it was fit on. :func:`treebound.certify` builds certificates; the
    fields below are also its attributes.

    Parameters
    ----------
    risk_upper_bound : float
        Upper bound on the error rate, in ``[0, 1]`` (``"shawe_taylor"`` may exceed 1: vacuous).
    risk_lower_bound : float or None
        Lower bound, ``None`` where the method has none.
    method : str
        ``"hti"``, ``"compression"``, ``"shawe_taylor"``, ``"test_set"``, ``"prefix_code"``
        or ``"auto"`` (the smaller of two bounds, each at ``delta / 2``).
    delta : float
        Confidence parameter.
    n_examples : int
        Rows the bound counts (each once, whatever ``sample_weight`` was).
    n_errors : int
        Misclassified rows among them.
    n_leaves : int
        Leaves of the tree.
    details : mapping, optional
        The parts of the bound (each method's value, ghost sample size, compression set size,
        which growth-function bound was used, ...); stored read-only.

    Examples
    --------
    >>> c = Certificate(0.26, None, "hti", 0.05, 426, 12, 9)
    >>> print(c)  # doctest: +NORMALIZE_WHITESPACE
    With probability at least 0.95 over the draw of the 426 rows, this tree's error rate on new
    data from the same distribution is at most 0.26. [hti: hypergeometric tail inversion,
    uniform over all trees; 12 errors on 426 rows (error rate 0.028); 9 leaves]
    >>> print(Certificate(0.27636, 0.0123, "hti", 0.05, 1, 1, 1))  # doctest: +NORMALIZE_WHITESPACE
    With probability at least 0.95 over the draw of the 1 row, this tree's error rate on new
    data from the same distribution is at most 0.277. Separately, with probability at least
    0.95, it is at least 0.0123. [hti: hypergeometric tail inversion, uniform over all trees;
    1 error on 1 row (error rate 1.000); 1 leaf]
    >>> c.is_vacuous
    False
    """

    risk_upper_bound: float
    risk_lower_bound: float | None
    method: str
    delta: float
    n_examples: int
    n_errors: int
    n_leaves: int
    details: MappingProxyType = field(default_factory=lambda: MappingProxyType({}),
                                      compare=False)

    def __post_init__(self):
        if not isinstance(self.details, MappingProxyType):
            object.__setattr__(self, "details", MappingProxyType(dict(self.details)))

    def __reduce__(self):
        # a mappingproxy does not pickle: rebuild from a plain dict
        return (type(self), (self.risk_upper_bound, self.risk_lower_bound, self.method,
                             self.delta, self.n_examples, self.n_errors, self.n_leaves,
                             dict(self.details)))

    @property
    def is_vacuous(self) -> bool:
        """True when the bound promises nothing: ``>= 1``, or printed as 1 (rounded up)."""
        return promises_nothing(self.risk_upper_bound)

    @property
    def lower_bound_delta(self) -> float:
        """The confidence parameter of :attr:`risk_lower_bound` on its own.

        ``delta`` for a single method; ``delta / 2`` for ``"auto"``, whose lower bound comes
        from the ``hti`` side computed at ``delta / 2``. Each side of the interval holds with
        its own probability; both together with at least ``1 - delta - lower_bound_delta``.
        """
        return self.delta / 2.0 if self.method == "auto" else self.delta

    def __str__(self) -> str:
        if "unavailable" in self.details:
            return f"no certificate: {self.details['unavailable']}"
        confidence = format_bound(1.0 - self.delta, "lower")
        rows = format_count(self.n_examples, "row")
        sentence = (f"With probability at least {confidence} over the draw of the {rows}, this "
                    f"tree's error rate on new data from the same distribution is at most "
                    f"{format_bound(self.risk_upper_bound)}")
        if self.is_vacuous:
            sentence += ", which promises nothing (an error rate is at most 1 anyway)"
        sentence += "."
        if self.risk_lower_bound is not None and self.risk_lower_bound > 0:
            lower = format_bound(self.risk_lower_bound, "lower")
            if float(lower) > 0:
                sentence += (f" Separately, with probability at least "
                             f"{format_bound(1.0 - self.lower_bound_delta, 'lower')}, it is at "
                             f"least {lower}.")
        what = _METHOD_TEXT.get(self.method, self.method)
        if self.method == "auto":
            what = _auto_text(self.details)
        rate = self.n_errors / self.n_examples if self.n_examples else math.nan
        return (f"{sentence} [{self.method}: {what}; "
                f"{format_count(self.n_errors, 'error')} on {rows} (error rate {rate:.3f}); "
                f"{format_count(self.n_leaves, 'leaf', 'leaves')}]")

    def to_dict(self) -> dict:
        """JSON-ready fields (the model file stores the certificate of the fit).

        Returns
        -------
        dict
            The fields as plain numbers, strings, lists and dicts (``details`` included).

        Examples
        --------
        >>> import json
        >>> c = Certificate(0.26, 0.01, "hti", 0.05, 426, 12, 9, {"ghost_size": 1704})
        >>> text = json.dumps(c.to_dict())
        >>> Certificate.from_dict(json.loads(text)) == c
        True
        """
        return {"risk_upper_bound": self.risk_upper_bound,
                "risk_lower_bound": self.risk_lower_bound, "method": self.method,
                "delta": self.delta, "n_examples": self.n_examples, "n_errors": self.n_errors,
                "n_leaves": self.n_leaves, "details": _json_ready(dict(self.details))}

    @classmethod
    def from_dict(cls, data) -> Certificate:
        """Inverse of :meth:`to_dict`, validated.

        Parameters
        ----------
        data : dict
            The output of :meth:`to_dict` (e.g. read back from a model file).

        Returns
        -------
        Certificate

        Raises
        ------
        ValueError
            Naming the first field that is missing, of the wrong type or out of range.

        Examples
        --------
        >>> data = Certificate(0.3, None, "compression", 0.05, 150, 4, 4).to_dict()
        >>> Certificate.from_dict(data).risk_upper_bound
        0.3
        >>> Certificate.from_dict({**data, "n_errors": 151})
        Traceback (most recent call last):
        ...
        ValueError: certificate n_errors cannot exceed n_examples
        """
        if not isinstance(data, dict):
            raise ValueError("a certificate must be an object")
        expected = {"risk_upper_bound", "risk_lower_bound", "method", "delta", "n_examples",
                    "n_errors", "n_leaves", "details"}
        if set(data) != expected:
            raise ValueError(f"certificate fields must be {sorted(expected)}, got "
                             f"{sorted(data)}")
        upper, lower = data["risk_upper_bound"], data["risk_lower_bound"]
        if not _is_rate(upper):
            raise ValueError("certificate risk_upper_bound must be a number in [0, 1]")
        if lower is not None and (not _is_rate(lower) or lower > upper):
            raise ValueError("certificate risk_lower_bound must be null or a number in "
                             "[0, risk_upper_bound]")
        if data["method"] not in (*_METHOD_TEXT, "auto"):
            raise ValueError(f"unknown certificate method {data['method']!r}")
        if not _is_rate(data["delta"]) or not 0 < data["delta"] < 1:
            raise ValueError("certificate delta must be in (0, 1)")
        for name in ("n_examples", "n_errors", "n_leaves"):
            value = data[name]
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"certificate {name} must be a non-negative integer")
        if data["n_errors"] > data["n_examples"]:
            raise ValueError("certificate n_errors cannot exceed n_examples")
        if not isinstance(data["details"], dict):
            raise ValueError("certificate details must be an object")
        return cls(float(upper), None if lower is None else float(lower), data["method"],
                   float(data["delta"]), data["n_examples"], data["n_errors"],
                   data["n_leaves"], data["details"])


def _is_rate(value) -> bool:
    return (not isinstance(value, bool) and isinstance(value, int | float)
            and math.isfinite(value) and 0.0 <= value <= 1.0)


def _auto_text(details) -> str:
    """What ``auto`` combined: both bounds, or the one that applied and why the other did
    not."""
    parts = [f"{name} {format_bound(details[name])}"
             for name in details.get("combined", ()) if name in details]
    if len(parts) > 1:
        return "the smaller of " + " and ".join(parts) + ", each at delta / 2"
    skipped = [name[: -len("_not_applicable")] for name in details
               if name.endswith("_not_applicable")]
    text = (parts[0] if parts else "no method") + " at delta / 2"
    if skipped:
        text += f" ({', '.join(skipped)} does not apply to this tree)"
    return text


def _json_ready(value):
    if isinstance(value, dict):
        return {str(k): _json_ready(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


def unavailable_certificate(reason: str, delta: float, n_examples: int,
                            n_leaves: int) -> Certificate:
    """The certificate of a fit that cannot be certified: the trivial bound 1 (true of every
    classifier) with the reason in ``details["unavailable"]``, which ``str()`` prints."""
    return Certificate(1.0, None, "auto", float(delta), int(n_examples), 0, int(n_leaves),
                       {"unavailable": reason, "combined": ()})
