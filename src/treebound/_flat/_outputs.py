"""Several outputs: a 2-D ``y`` (one column per output) fitted by one tree, as scikit-learn's
trees fit it.

Growth already takes a 2-D ``y`` (every split minimizes the criterion averaged over the
outputs); this module reads the targets and answers ``predict``/``predict_proba`` per output,
for the estimators, and says which of their options have no multi-output meaning. The flat tree of such a fit has a 3-D
``value`` ``(n_nodes, n_outputs, max_n_classes)`` (:meth:`treebound.tree.Tree.output` is the
tree of one output).
"""

from __future__ import annotations

import numpy as np

from treebound._flat._labels import fit_labels

__all__ = ["classification_targets", "is_multi_output", "output_predictions",
           "output_probabilities", "check_multi_output_options", "target_array"]


def target_array(y) -> np.ndarray:
    """``y`` as a numpy array (a pandas Series or DataFrame read through ``to_numpy``)."""
    return np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)


def is_multi_output(y) -> bool:
    """Whether ``y`` has several outputs: 2-D with more than one column (a one-column ``y`` is
    one output, as in scikit-learn).

    >>> is_multi_output([[0, 1], [1, 0]]), is_multi_output([[0], [1]]), is_multi_output([0, 1])
    (True, False, False)
    """
    if y is None:
        return False
    shape = np.shape(target_array(y))
    return len(shape) == 2 and shape[1] > 1


def classification_targets(y, n_samples: int, owner: str,
                           min_classes: int) -> tuple[list[np.ndarray], np.ndarray]:
    """The classes of every output of a 2-D ``y`` and the class index of every cell.

    Parameters
    ----------
    y : array-like of shape (n_samples, n_outputs)
        Class labels, one column per output (each column checked as a 1-D ``y`` is).
    n_samples : int
        Rows of ``X``.
    owner : str
        The estimator's name, for the error messages.
    min_classes : int
        Fewest distinct labels accepted per output.

    Returns
    -------
    classes : list of ndarray
        The sorted labels of each output (``classes_``).
    indices : ndarray of int32, shape (n_samples, n_outputs)
        ``classes[k][indices[:, k]] == y[:, k]``.

    Examples
    --------
    >>> classes, indices = classification_targets([["a", 1], ["b", 2], ["a", 2]], 3,
    ...                                           "DecisionTreeClassifier", 1)
    >>> [c.tolist() for c in classes], indices.tolist()
    ([['a', 'b'], ['1', '2']], [[0, 0], [1, 1], [0, 1]])
    """
    y = target_array(y)
    if y.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} samples but y has {y.shape[0]}")
    classes, columns = [], []
    for k in range(y.shape[1]):
        classes_k, indices_k = fit_labels(y[:, k], n_samples, owner, min_classes=min_classes)
        classes.append(classes_k)
        columns.append(indices_k)
    return classes, np.ascontiguousarray(np.column_stack(columns), dtype=np.int32)


def output_probabilities(counts: np.ndarray, n_classes) -> list[np.ndarray]:
    """Per output, the class frequencies of ``counts`` (rows: the leaves reached, shape
    ``(n_rows, n_outputs, max_n_classes)``), without the padding columns; uniform where an
    output's counts are all zero.

    >>> counts = np.array([[[3.0, 1.0, 0.0], [1.0, 2.0, 1.0]]])
    >>> [p.tolist() for p in output_probabilities(counts, [2, 3])]
    [[[0.75, 0.25]], [[0.25, 0.5, 0.25]]]
    """
    out = []
    for k, n_k in enumerate(n_classes):
        c = counts[:, k, :n_k]
        totals = c.sum(axis=1, keepdims=True)
        uniform = np.full_like(c, 1.0 / n_k)
        out.append(np.divide(c, totals, out=uniform, where=totals > 0))
    return out


def output_predictions(classes: list[np.ndarray], majority: np.ndarray) -> np.ndarray:
    """The label of every output from the class indices ``majority`` ``(n_rows, n_outputs)``,
    in an array of the first output's label dtype (scikit-learn's choice).

    >>> output_predictions([np.array([0, 1]), np.array([5, 7])], np.array([[1, 0], [0, 1]]))
    array([[1, 5],
           [0, 7]])
    """
    out = np.zeros(majority.shape, dtype=classes[0].dtype)
    for k, classes_k in enumerate(classes):
        out[:, k] = classes_k.take(majority[:, k])
    return out


def check_multi_output_options(pruning, monotonic_cst, n_outputs: int) -> None:
    """A one-line ``ValueError`` for an option a tree of several outputs cannot take:
    ``monotonic_cst`` (scikit-learn's message: a constraint is on one output's prediction) and
    every ``pruning`` method (each scores subtrees by one output's risk: the bounds on its 0-1
    error, the cross-validated error of one label); ``ccp_alpha``, the criterion averaged over
    the outputs as scikit-learn prunes, is the pruning with a multi-output meaning.

    >>> check_multi_output_options("bound", None, 2)
    Traceback (most recent call last):
    ...
    ValueError: pruning='bound' is not supported with several outputs (y has 2 columns): it scores subtrees by the risk of one output; use ccp_alpha (or pruning=None), or fit one tree per output
    """
    if n_outputs <= 1:
        return
    if monotonic_cst is not None:
        raise ValueError("Monotonicity constraints are not supported with multiple outputs.")
    if pruning is not None:
        raise ValueError(f"pruning={pruning!r} is not supported with several outputs (y has "
                         f"{n_outputs} columns): it scores subtrees by the risk of one output; "
                         "use ccp_alpha (or pruning=None), or fit one tree per output")
