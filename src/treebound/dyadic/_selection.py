"""Choosing ``penalty_scale`` of a dyadic tree by cross-validation (the ``"cv"`` default).

Scott & Nowak's penalty with its theoretical constant (scale 1) makes Theorem 2 hold but is a
single leaf on most real data of a few hundred to a few thousand rows; the DDT experiments of
the literature (Blanchard, Schäfer, Rozenholc & Müller 2007, cited by Scott & Nowak) choose the
constant by cross-validation. :func:`select_penalty_scale` does that over a short geometric grid,
from the largest scale down: smaller scales give larger trees and cost the exact search more
cells, so the descent stops at the first scale whose CV accuracy falls below the best one so far
(the CV accuracy of a penalized family is, up to noise, unimodal in the constant) or whose
search would exceed the cell budget in a fold.

The folds are a function of the data, not of the row order (:func:`row_order_free_folds`), so
the fitted tree depends on the training set only, as for every other setting of the estimator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["DEFAULT_PENALTY_SCALES", "N_FOLDS", "ScaleSelection", "n_folds_for",
           "row_order_free_folds", "select_penalty_scale"]

#: Candidate scales of ``penalty_scale="cv"``, tried from the largest down (tuning runs in
#: ``benchmarks/results/defaults_tuning_dyadic.md``).
DEFAULT_PENALTY_SCALES = (1.0, 0.3, 0.1, 0.03, 0.01)
#: Folds of the cross-validation (fewer on tiny data) ...
N_FOLDS = 5
#: ... and above this many rows, when 3 folds of at least 1,667 held-out rows estimate the
#: accuracy well enough and halve the cost of the selection (d = 5, n = 10,000 in under 10 s).
N_FOLDS_LARGE, LARGE_N = 3, 5000


def n_folds_for(y: np.ndarray) -> int:
    """Folds for ``len(y)`` rows: 5, 3 above 5,000 rows, at most ``n // 2`` (so that every
    fold trains on as many rows as it holds out). A class rarer than the folds is not a
    reason for fewer: its rows simply miss from some folds' training parts."""
    folds = N_FOLDS if len(y) <= LARGE_N else N_FOLDS_LARGE
    return int(min(folds, len(y) // 2))


@dataclass(frozen=True)
class ScaleSelection:
    """The chosen penalty scale and the cross-validated accuracy of every candidate.

    Parameters
    ----------
    scale : float
        The chosen scale.
    scales : tuple of float
        The candidates, largest first.
    accuracy : tuple of float
        CV accuracy of each candidate (NaN: not evaluated, below the stopping point).
    n_folds : int
        Folds used (0 or 1: nothing was cross-validated).

    Examples
    --------
    >>> selection = ScaleSelection(0.1, (1.0, 0.1, 0.01), (0.8, 0.9, float("nan")), 5)
    >>> selection.scales[selection.accuracy.index(max(selection.accuracy[:2]))]
    0.1
    """

    scale: float
    scales: tuple[float, ...]
    accuracy: tuple[float, ...]
    n_folds: int


def row_order_free_folds(X: np.ndarray, y: np.ndarray, n_folds: int, seed: int = 0) -> np.ndarray:
    """Stratified fold index of every row, independent of the order of the rows.

    Rows are ranked in a canonical order (by class, then lexicographically by feature values);
    within each class a fixed random permutation (``seed``) of the canonical ranks is dealt out
    to the folds in turn, each class starting where the previous one stopped (so that rare
    classes do not all land in the first folds). Permuting the input rows permutes the fold
    indices with them (equal rows are interchangeable), so the selected scale does not depend
    on the row order.

    Parameters
    ----------
    X : ndarray of float, shape (n_samples, n_features)
        The rows.
    y : ndarray of int, shape (n_samples,)
        Their classes.
    n_folds : int
        Number of folds.
    seed : int, default=0
        Seed of the permutation within each class.

    Returns
    -------
    ndarray of int64, shape (n_samples,)
        Fold of every row, in ``0 .. n_folds - 1``.

    Examples
    --------
    >>> X = np.array([[0.3], [0.1], [0.2], [0.4]]); y = np.array([0, 0, 1, 1])
    >>> folds = row_order_free_folds(X, y, 2)
    >>> sorted(folds[y == 0].tolist()), sorted(folds[y == 1].tolist())  # stratified
    ([0, 1], [0, 1])
    >>> bool(np.all(row_order_free_folds(X[::-1], y[::-1], 2) == folds[::-1]))
    True
    """
    keys = [X[:, j] for j in range(X.shape[1] - 1, -1, -1)] + [y]
    order = np.lexsort(keys)  # by class, then by X[:, 0], X[:, 1], ...
    folds = np.empty(len(y), dtype=np.int64)
    rng = np.random.default_rng(seed)
    start = 0
    for label in np.unique(y):
        members = order[y[order] == label]
        folds[members] = (start + rng.permutation(len(members))) % n_folds
        start += len(members)
    return folds


def select_penalty_scale(X: np.ndarray, y: np.ndarray, scales,
                         fit_predict: Callable, is_budget_error: Callable) -> ScaleSelection:
    """The scale of ``scales`` with the best stratified CV accuracy (ties: the larger scale).

    Over :func:`n_folds_for` folds of :func:`row_order_free_folds`, from the largest scale down,
    stopping at the first scale whose accuracy falls below the best one so far or whose search
    exceeds the cell budget in a fold (the CV accuracy of a penalized family is, up to noise,
    unimodal in the constant). DDT experiments choose the constant this way (Blanchard,
    Schäfer, Rozenholc & Müller 2007, cited by Scott & Nowak 2006).

    Parameters
    ----------
    X : ndarray of float, shape (n_samples, n_features)
        Training rows.
    y : ndarray of int, shape (n_samples,)
        Their classes.
    scales : iterable of float
        Candidate penalty scales (any order).
    fit_predict : callable
        ``fit_predict(scale, X_train, y_train, X_test) -> predicted classes``: fits on one fold
        and predicts the other.
    is_budget_error : callable
        ``is_budget_error(exception) -> bool``: true for the exception of a search that would
        exceed its cell budget (it ends the descent; any other exception propagates).

    Returns
    -------
    ScaleSelection
        With fewer than 4 rows there is nothing to cross-validate: the largest scale.

    Examples
    --------
    A "model" that predicts class 1 at small scales and class 0 at large ones, on data that is
    mostly class 1:

    >>> X = np.arange(20.0).reshape(-1, 1); y = (np.arange(20) >= 4).astype(int)
    >>> def fit_predict(scale, X_train, y_train, X_test):
    ...     return np.full(len(X_test), int(scale < 0.5))
    >>> selection = select_penalty_scale(X, y, [0.1, 1.0], fit_predict, lambda exc: False)
    >>> selection.scale, selection.accuracy, selection.n_folds
    (0.1, (0.2, 0.8), 5)
    """
    ordered = tuple(sorted((float(s) for s in scales), reverse=True))
    accuracy = [np.nan] * len(ordered)
    n_folds = n_folds_for(y)
    if n_folds < 2 or len(ordered) == 1:
        return ScaleSelection(ordered[0], ordered, tuple(accuracy), max(n_folds, 0))
    folds = row_order_free_folds(X, y, n_folds)
    best = 0
    for i, scale in enumerate(ordered):
        correct = 0
        try:
            for k in range(n_folds):
                test = folds == k
                predicted = fit_predict(scale, X[~test], y[~test], X[test])
                correct += int(np.count_nonzero(predicted == y[test]))
        except Exception as exc:
            if not is_budget_error(exc):
                raise
            break
        accuracy[i] = correct / len(y)
        if accuracy[i] > accuracy[best]:
            best = i
        elif accuracy[i] < accuracy[best]:
            break
    return ScaleSelection(ordered[best], ordered, tuple(accuracy), n_folds)
