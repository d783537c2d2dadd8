"""Kernels of ``treebound.mic.population``: greedy growth in the population setting.

(The OPT(F, t) DP is in ``treebound._kernels.mic_optimal``.) The growth works on a *class-count*
encoding of a read-once DNF under a product distribution. Literals are grouped into ``K`` classes by their probability of being true (``class_prob``, ascending); a
term is the row of its remaining-literal counts per class. Conditioning a leaf on a literal of
term ``i`` either kills term ``i`` (literal false) or removes one literal of its class (literal
true); the other terms are untouched and, being on disjoint independent variables, stay
independent. Hence a leaf is fully described by ``counts[k, K]`` plus an ``alive[k]`` mask, and

    P[F = 0 | leaf] = Π_{alive i} (1 - Π_c class_prob[c] ** counts[i, c]).

An alive term whose counts are all zero is satisfied (the leaf is the constant 1); a leaf with no
alive term is the constant 0.

Tie-breaking (identical in :func:`grow_population` and the tests' naive oracle):

1. Within a leaf, among the moves whose gain is within a relative ``tol`` of the best, take the one
   with the lexicographically smallest (term counts row, class), then the smallest term index.
2. Across leaves, among those whose key (weighted gain for TopDown, gain for BestFirst) is within
   ``tol`` of the best, take the least probable leaf (``prefer_least_probable``) or the most
   probable one, then the smallest canonical state (number of alive terms, then their sorted
   counts rows), then the smallest slot.

Everything the rule looks at is invariant under renaming or negating variables and reordering
terms, so the error sequence depends only on the multiset of term profiles (section 7).
"""

from __future__ import annotations

import numpy as np

from treebound._config import JIT_OPTIONS, njit
from treebound._kernels.array_copy import copy_row


@njit(**JIT_OPTIONS)
def binary_entropy_of_negative(p0):
    """Entropy in bits of a leaf whose probability of label 0 is ``p0`` (0 log 0 = 0)."""
    p1 = 1.0 - p0
    h = 0.0
    if p0 > 0.0:
        h -= p0 * np.log2(p0)
    if p1 > 0.0:
        h -= p1 * np.log2(p1)
    return h


@njit(**JIT_OPTIONS)
def power_table(class_prob, max_count):
    """``table[c, n] = class_prob[c] ** n`` by repeated multiplication (deterministic rounding)."""
    n_classes = class_prob.shape[0]
    table = np.empty((n_classes, max_count + 1))
    for c in range(n_classes):
        table[c, 0] = 1.0
        for n in range(1, max_count + 1):
            table[c, n] = table[c, n - 1] * class_prob[c]
    return table


@njit(**JIT_OPTIONS)
def _term_probability(row, powers, removed_class):
    """P[all remaining literals true] of a counts row, with one literal of ``removed_class`` off."""
    probability = 1.0
    for c in range(row.shape[0]):
        n = row[c] - 1 if c == removed_class else row[c]
        probability *= powers[c, n]
    return probability


@njit(**JIT_OPTIONS)
def _compare_rows(a, b):
    for c in range(a.shape[0]):
        if a[c] != b[c]:
            return -1 if a[c] < b[c] else 1
    return 0


@njit(**JIT_OPTIONS)
def _sorted_alive_terms(counts, alive):
    """Indices of the alive terms, sorted by their counts rows (insertion sort: k <= a dozen)."""
    order = np.empty(counts.shape[0], dtype=np.int64)
    n = 0
    for i in range(counts.shape[0]):
        if alive[i]:
            j = n
            while j > 0 and _compare_rows(counts[order[j - 1]], counts[i]) > 0:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
            n += 1
    return order[:n]


@njit(**JIT_OPTIONS)
def compare_states(counts_a, alive_a, counts_b, alive_b):
    """-1 / 0 / 1 comparison of two leaves' canonical states (alive-term count, sorted rows)."""
    order_a = _sorted_alive_terms(counts_a, alive_a)
    order_b = _sorted_alive_terms(counts_b, alive_b)
    if order_a.shape[0] != order_b.shape[0]:
        return -1 if order_a.shape[0] < order_b.shape[0] else 1
    for r in range(order_a.shape[0]):
        cmp = _compare_rows(counts_a[order_a[r]], counts_b[order_b[r]])
        if cmp != 0:
            return cmp
    return 0


@njit(**JIT_OPTIONS)
def evaluate_leaf(counts, alive, class_prob, powers, tol):
    """``(p0, best_gain, best_term, best_class)`` of one leaf; ``best_term = -1`` if constant.

    The gain of splitting on a literal of class ``c`` in term ``i`` is the entropy gain of Eq. (1)
    without the factor p(l): H(q) - π_c H(q | literal true) - (1 - π_c) H(q | literal false).
    """
    n_terms, n_classes = counts.shape
    term_p = np.zeros(n_terms)
    p0 = 1.0
    for i in range(n_terms):
        if alive[i]:
            term_p[i] = _term_probability(counts[i], powers, -1)
            p0 *= 1.0 - term_p[i]
    if p0 <= 0.0 or p0 >= 1.0:
        return p0, 0.0, -1, -1
    h = binary_entropy_of_negative(p0)
    gains = np.full((n_terms, n_classes), -1.0)
    best_gain = 0.0
    for i in range(n_terms):
        if not alive[i]:
            continue
        others = 1.0
        for j in range(n_terms):
            if j != i and alive[j]:
                others *= 1.0 - term_p[j]
        h_false = binary_entropy_of_negative(others)
        for c in range(n_classes):
            if counts[i, c] == 0:
                continue
            reduced = _term_probability(counts[i], powers, c)
            h_true = binary_entropy_of_negative(others * (1.0 - reduced))
            pi = class_prob[c]
            gain = h - pi * h_true - (1.0 - pi) * h_false
            gains[i, c] = gain
            if gain > best_gain:
                best_gain = gain
    if best_gain <= 0.0:
        return p0, 0.0, -1, -1
    threshold = best_gain * (1.0 - tol)
    best_term = -1
    best_class = -1
    for i in range(n_terms):
        for c in range(n_classes):
            if gains[i, c] < threshold:
                continue
            if best_term == -1:
                best_term, best_class = i, c
                continue
            cmp = _compare_rows(counts[i], counts[best_term])
            if cmp < 0 or (cmp == 0 and c < best_class):
                best_term, best_class = i, c
    return p0, best_gain, best_term, best_class


@njit(**JIT_OPTIONS)
def grow_population(
    term_counts, n_terms, class_prob, weighted, prefer_least_probable, t_max, tol
):
    """TopDown (``weighted``) or BestFirst growth with exact probabilities, ``t_max`` splits.

    Leaves live in slots ``0 .. n_leaves-1``; splitting slot ``s`` on a literal of term ``i``
    keeps the literal-true child in slot ``s`` and appends the literal-false child (term ``i``
    killed) as slot ``n_leaves``. Growth stops early when no leaf has a positive gain (then every
    leaf is constant, and later trees equal the last one).

    Returns
    -------
    errors : float64 (t_max + 1,)  E(T_t) = Σ_leaves p(l) C(q(l))
    split_slot, split_term, split_class : int64 (t_max,)  the move of iteration t (-1 if none)
    n_splits : int
    """
    n_classes = class_prob.shape[0]
    k = term_counts.shape[0]
    max_count = 0
    for i in range(n_terms):
        for c in range(n_classes):
            max_count = max(max_count, term_counts[i, c])
    powers = power_table(class_prob, max_count)
    n_slots = t_max + 1
    counts = np.zeros((n_slots, k, n_classes), dtype=np.int64)
    alive = np.zeros((n_slots, k), dtype=np.bool_)
    mass = np.zeros(n_slots)
    p0 = np.zeros(n_slots)
    gain = np.zeros(n_slots)
    best_term = np.full(n_slots, -1, dtype=np.int64)
    best_class = np.full(n_slots, -1, dtype=np.int64)
    for i in range(n_terms):
        alive[0, i] = True
        for c in range(n_classes):
            counts[0, i, c] = term_counts[i, c]
    mass[0] = 1.0
    p0[0], gain[0], best_term[0], best_class[0] = evaluate_leaf(
        counts[0], alive[0], class_prob, powers, tol
    )
    errors = np.empty(t_max + 1)
    errors[0] = min(p0[0], 1.0 - p0[0])
    split_slot = np.full(t_max, -1, dtype=np.int64)
    split_term = np.full(t_max, -1, dtype=np.int64)
    split_class = np.full(t_max, -1, dtype=np.int64)
    n_leaves = 1
    n_splits = 0
    for t in range(1, t_max + 1):
        key_max = 0.0
        for s in range(n_leaves):
            key = gain[s] * mass[s] if weighted else gain[s]
            key_max = max(key_max, key)
        if key_max <= 0.0:
            errors[t:] = errors[t - 1]
            break
        threshold = key_max * (1.0 - tol)
        extreme_mass = np.inf if prefer_least_probable else -np.inf
        for s in range(n_leaves):
            key = gain[s] * mass[s] if weighted else gain[s]
            if key >= threshold:
                if prefer_least_probable:
                    extreme_mass = min(extreme_mass, mass[s])
                else:
                    extreme_mass = max(extreme_mass, mass[s])
        chosen = -1
        for s in range(n_leaves):
            key = gain[s] * mass[s] if weighted else gain[s]
            if key < threshold or abs(mass[s] - extreme_mass) > tol * extreme_mass:
                continue
            if chosen == -1 or compare_states(
                counts[s], alive[s], counts[chosen], alive[chosen]
            ) < 0:
                chosen = s
        i = best_term[chosen]
        c = best_class[chosen]
        pi = class_prob[c]
        new = n_leaves
        for term in range(counts.shape[1]):
            for cls in range(counts.shape[2]):
                counts[new, term, cls] = counts[chosen, term, cls]
        copy_row(alive, chosen, alive, new)
        alive[new, i] = False
        mass[new] = mass[chosen] * (1.0 - pi)
        counts[chosen, i, c] -= 1
        mass[chosen] = mass[chosen] * pi
        for s in (chosen, new):
            p0[s], gain[s], best_term[s], best_class[s] = evaluate_leaf(
                counts[s], alive[s], class_prob, powers, tol
            )
        n_leaves += 1
        split_slot[t - 1] = chosen
        split_term[t - 1] = i
        split_class[t - 1] = c
        n_splits += 1
        error = 0.0
        for s in range(n_leaves):
            error += mass[s] * min(p0[s], 1.0 - p0[s])
        errors[t] = error
    return errors, split_slot, split_term, split_class, n_splits


@njit(**JIT_OPTIONS)
def grow_population_batch(
    term_counts, n_terms, class_prob, weighted, prefer_least_probable, t_max, tol
):
    """:func:`grow_population` for many DNFs: ``term_counts`` (n_dnf, k, K), padded rows unused.

    Returns the errors only, float64 (n_dnf, t_max + 1).
    """
    n_dnf = term_counts.shape[0]
    errors = np.empty((n_dnf, t_max + 1))
    for d in range(n_dnf):
        errors[d] = grow_population(
            term_counts[d], n_terms[d], class_prob, weighted, prefer_least_probable, t_max, tol
        )[0]
    return errors
