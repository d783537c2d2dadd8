"""Theorem 9's bound at one large ``m`` from polynomial tails instead of full tables.

Internal module of :mod:`treebound.theory.partitioning`. A certificate needs the root's values
at one ``m`` (the sample and its ghost: five times the rows), and the tables route builds every
subtree's table up to that ``m``. But from an anchor ``K_t`` on, every row of a subtree's table
is a polynomial of degree at most ``L_t - 1`` in ``m``, with non-negative coefficients in the
basis ``C(m - K_t, v)``:

* a leaf: ``pi^1 = 1`` from ``m = 1`` (``K = 1``);
* a node, from its start ``F = max(K_l + K_r - 1, 2 ell, L + 1)`` on (every weight ``min(2
  ell, C(m, k))`` is ``2 ell``, and no ``k`` has both children below their anchors): ``N_c(m)``
  is a sum of each child's values below its anchor times the other child's polynomial, and of
  products of both polynomials (:func:`~treebound._kernels.polynomial_tails.tail_node_sums`);
  a polynomial with non-negative coefficients again.
* the clip ``min(N_c(m) 2^{-[l=r]}, S(m, c))`` must not bind from ``K`` on. It is checked
  at ``m = K .. K + 2D - 1`` (``D`` the degree); beyond, a polynomial ``f`` with non-negative
  coefficients in ``C(x, v)``, ``v <= D``, has ``f(x + 1) <= 2 f(x)`` once ``x >= 2D - 1``
  (``C(x, v - 1) <= C(x, v)`` there), while ``S(m + 1, c) >= c S(m, c) >= 2 S(m, c)``: the
  inequality carries over by induction. Where it binds, the anchor moves past it. (Were the
  check fooled by rounding, the polynomial would stand for ``min(polynomial, S)``: larger, and
  Theorem 9's recursion only grows with its children's values, so every value stays an upper
  bound.)

So a node's table is built only below its start ``F`` (by direct sums in linear space,
:func:`~treebound._kernels.polynomial_tails.low_node_table`, or the tables route where those
could overflow), from its children's tables below their starts and their clipped polynomials
between start and anchor: each shape once, up to a few hundred or thousand ``m`` instead of
five times the rows. The root is the polynomial of its sums at ``m``, clipped there. All terms
are non-negative, so the values carry a relative error of a few hundred ``eps`` at most, far
below the tables route's tolerance (``1e-11``, which the tests compare to). Tails do not depend
on ``m``: the cache keeps them for any later ``m`` (and the bound over blocks of points reads
them). Where a start would pass ``m`` (many-level categorical features make ``2 ell`` large),
:func:`tail_root_values` returns ``None`` and the caller builds the tables.
"""

from __future__ import annotations

import math

import numpy as np

from treebound._kernels.polynomial_tails import (
    low_node_table,
    shift_tail,
    tail_log_values,
    tail_log_values_at,
    tail_node_sums,
)
from treebound.theory import _tables

LOG2 = math.log(2.0)
#: Most points the kernels take (their integers are 64-bit); beyond, the tables route's
#: resource check answers (it refuses).
MAX_POINTS = 2**62


def _start(left_anchor, right_anchor, n_leaves, two_ell) -> int:
    """Where a node's polynomial starts (module docstring): below ``left_anchor + right_anchor -
    1`` the two children's tables overlap in the sum, below ``2 ell`` the weights vary."""
    return max(left_anchor + right_anchor - 1, two_ell, n_leaves + 1)


def _check_clip(anchor, coef, log_stirling_of):
    """The first anchor ``>= anchor`` from which ``coef``'s rows ``c >= 2`` stay at most
    ``log S(m, c)`` (module docstring), and the coefficients re-anchored there."""
    degree = coef.shape[1] - 1
    while True:
        window = max(2 * degree - 1, 0)
        values = tail_log_values(coef, anchor, anchor, anchor + window)
        stirling = log_stirling_of(anchor + window, coef.shape[0] - 1)[
            : coef.shape[0], anchor : anchor + window + 1]
        over = values[2:] > stirling[2:]
        if not over.any():
            return anchor, coef
        last = int(np.flatnonzero(over.any(axis=0))[-1])
        coef = shift_tail(coef, last + 1)
        anchor += last + 1


class _Tail:
    """One shape's values: its table below ``first`` (the tables route), the polynomial of its
    unclipped sums from ``first`` on (``first_coef``), and the same polynomial re-anchored at
    ``anchor >= first``, from where the clip does not bind (``coef``)."""

    __slots__ = ("anchor", "coef", "first", "first_coef", "low", "nbytes")

    def __init__(self, low, first, first_coef, anchor, coef):
        self.low, self.first, self.first_coef = low, first, first_coef
        self.anchor, self.coef = anchor, coef
        self.nbytes = low.nbytes + first_coef.nbytes + coef.nbytes

    def values_at(self, points, log_stirling, rows):
        """``log pi^c(k)``, ``c < rows``, at each ``k`` of ``points`` (``log_stirling``: at least
        ``rows`` rows, up to the largest point)."""
        out = np.full((rows, points.shape[0]), -np.inf)
        below = points < self.first
        out[:, below] = self.low[:rows][:, points[below]]
        if not below.all():
            above = points[~below]
            tail = tail_log_values_at(self.first_coef[:rows], self.first, above)
            out[1:, ~below] = tail[1:]
            out[2:, ~below] = np.minimum(tail[2:], log_stirling[2:rows][:, above])
        return out

    def values(self, width, log_stirling, rows):
        """:meth:`values_at` every ``k <= width`` (slices instead of an index array)."""
        out = np.empty((rows, width + 1))
        n = min(width + 1, self.first)
        out[:, :n] = self.low[:rows, :n]
        if width >= self.first:
            tail = tail_log_values(self.first_coef[:rows], self.first, self.first, width)
            out[0, self.first :] = -np.inf
            out[1:, self.first :] = tail[1:]
            np.minimum(out[2:, self.first :], log_stirling[2:rows, self.first : width + 1],
                       out=out[2:, self.first :])
        return out


#: Largest log of a sum the linear-space kernel forms (``exp(700)`` is about ``1e304``).
LINEAR_LOG_LIMIT = 700.0


def _low_table(t, low_left, low_right, rows, width, n_features, log_stirling, log_coef):
    """``t``'s table up to ``width``: by :func:`~treebound._kernels.polynomial_tails.
    low_node_table` in linear space when no sum can overflow there (its terms are at most the
    children's largest values times ``2 ell`` times the merge counts, ``m`` terms a pair),
    else by the tables route."""
    top = max(float(np.max(low_left[:, :width])), float(np.max(low_right[:, :width])), 0.0)
    count = math.log(2 * n_features) + math.log(max(width, 1)) + 2 * math.log(rows + 1)
    coef = log_coef[: rows + 1, : rows + 1, : rows + 1]
    if 2 * top + count + float(np.max(coef)) >= LINEAR_LOG_LIMIT:
        return _tables.log_node_table(t.n_leaves, t.left.n_leaves, t.right.n_leaves,
                                      t.left is t.right, low_left, low_right, rows, width,
                                      n_features, log_stirling, log_coef)
    return low_node_table(np.exp(low_left[:, :width]), np.exp(low_right[:, :width]),
                          t.n_leaves, t.left.n_leaves, t.right.n_leaves, t.left is t.right,
                          float(2 * n_features), np.exp(coef),
                          np.ascontiguousarray(log_stirling[: rows + 1]), width)


def tail_root_values(structure, n_parts_max, m, n_features, cache):
    """``log pi^c(m)`` for ``c = 0 .. min(C, L)`` from the subtrees' polynomial tails, or ``None``
    when some anchor would exceed ``m``."""
    if structure.is_leaf or m <= structure.n_leaves:
        return None
    C = min(n_parts_max, structure.n_leaves)
    two_ell = 2 * n_features
    log_two_ell = math.log(two_ell)
    log_coef = cache._log_coef_upto(C)
    store = cache._store("tight_tail", n_features)

    def log_stirling_of(max_m, rows):
        return cache._log_stirling_upto(max_m, rows)

    tails = {}
    for t in structure._postorder():
        rows = min(C, t.n_leaves)
        known = store.get(t)
        if known is not None and known.low.shape[0] > rows:
            tails[t] = known
            continue
        if t.is_leaf:
            low = log_stirling_of(1, 1)[:2, :1].copy()
            coef = np.array([[-np.inf], [0.0]])
            tails[t] = store[t] = _Tail(low, 1, coef, 1, coef)
            continue
        left, right = tails[t.left], tails[t.right]
        first = _start(left.anchor, right.anchor, t.n_leaves, two_ell)
        if first > m:
            return None
        log_stirling = log_stirling_of(first, C)
        low_left = left.values(first - 1, log_stirling, min(C, t.left.n_leaves) + 1)
        low_right = right.values(first - 1, log_stirling, min(C, t.right.n_leaves) + 1)
        low = _low_table(t, low_left, low_right, rows, first - 1, n_features, log_stirling,
                         log_coef)
        coef = tail_node_sums(low_left, low_right, left.coef, right.coef, t.left.n_leaves,
                              t.right.n_leaves, left.anchor, right.anchor, first, log_coef,
                              C)[: rows + 1]
        coef = coef + (log_two_ell - (LOG2 if t.left is t.right else 0.0))
        coef[0] = -np.inf
        coef[1] = -np.inf
        coef[1, 0] = 0.0
        anchor, clipped = _check_clip(first, coef, log_stirling_of)
        tails[t] = store[t] = _Tail(low, first, coef, anchor, clipped)
    # the root's sums are polynomial from its start on, the clip taken at m itself
    root = tails[structure]
    if root.first > m:  # stored by a call at a larger m
        return None
    out = np.full(C + 1, -np.inf)  # log S(m, 0) = -inf for m >= 1
    out[1:] = tail_log_values(root.first_coef, root.first, m, m)[1 : C + 1, 0]
    if m < root.anchor:  # the clip may bind below the anchor (no Stirling table beyond it)
        out[2:] = np.minimum(out[2:], log_stirling_of(m, C)[2 : C + 1, m])
    return out


def tail_starts(structure, n_features) -> dict:
    """Each distinct subtree's start before any clip check (every anchor is at least it):
    where :func:`tail_root_values` can answer, and what its tables below cost. No table."""
    start = {}
    for t in structure._postorder():
        start[t] = 1 if t.is_leaf else _start(start[t.left], start[t.right], t.n_leaves,
                                              2 * n_features)
    return start
