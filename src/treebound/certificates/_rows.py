"""Are these the training rows? What :func:`treebound.certify` can check before it believes so.

The training-sample methods are valid only on the sample the tree was fit on, and a fitted tree
remembers a little of it: how many rows reached every node (``n_node_samples``, rows with
positive weight, whatever their weight) and the (weighted) class counts of every node. Given
rows that are not the training sample, these checks catch what they can:

* a categorical level the model never saw in training: no training row holds one, so the rows
  are not the training sample — **refused**;
* a leaf reached by another number of rows than in training: the tree routes every row the same
  way it routed it in fit, so the rows differ — **refused** (for ``pruning="reduced_error"``,
  whose tree was grown on a part of the rows and certified on all of them, a leaf reached by
  *fewer* rows than it was grown on);
* a leaf whose class counts differ from training (a shuffled ``y``, another label column):
  checked only when every node's weight equals its row count — the fit looks unweighted, and
  the stored counts are then row counts. Weights that happen to sum to the row count in every
  node would make this check misfire, so it **warns** instead of refusing.

Passing every check does not prove the rows are the training sample (rows swapped within a
leaf, with the same labels, pass); it catches the usual mistakes: another dataset, the test
part of a split, a reshuffled label column.
"""

from __future__ import annotations

import warnings

import numpy as np

from treebound._validation import external_stacklevel

__all__ = ["check_training_rows"]

#: Families whose ``n_node_samples`` are the training rows with positive weight.
_COUNTED_FAMILIES = ("treebound", "dyadic", "scikit-learn")


def check_training_rows(deployed, y_idx: np.ndarray) -> None:
    """Refuse (``ValueError``) or warn when ``deployed.features`` and ``y_idx`` cannot be the
    rows the tree was fit on (module docstring).

    Parameters
    ----------
    deployed : DeployedTree
        The tree and the rows to certify (encoded).
    y_idx : ndarray of int
        Their classes as indices into ``deployed.classes``.

    Returns
    -------
    None

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> from treebound.certificates import deployed_tree
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_leaf_nodes=3, growth="top_down").fit(X[:100], y[:100])
    >>> check_training_rows(deployed_tree(model, X[:100]), y[:100])
    >>> check_training_rows(deployed_tree(model, X[50:150]), y[50:150])
    Traceback (most recent call last):
    ...
    ValueError: these rows are not the training sample: ...
    """
    if deployed.family not in _COUNTED_FAMILIES:
        return
    tree = deployed.tree
    features = deployed.features
    n_categories = np.asarray(deployed.n_categories)
    for j in np.flatnonzero(n_categories > 0).tolist():
        unseen = int(np.count_nonzero(features[:, j] >= n_categories[j]))
        if unseen:
            raise ValueError(f"these rows are not the training sample: {unseen} of them hold a "
                             f"level of categorical feature {_feature_name(deployed, j)} that "
                             "the model never saw in training; certify needs exactly the rows "
                             "the model was fit on (held-out rows: method='test_set')")
    leaf_of_row = tree.apply(features)
    counts = np.bincount(leaf_of_row, minlength=tree.n_nodes)
    stored = np.asarray(tree.n_node_samples)
    leaves = np.flatnonzero(tree.first_child < 0)
    grown_on_part = getattr(deployed.model, "pruning", None) == "reduced_error"
    if grown_on_part:
        bad = leaves[counts[leaves] < stored[leaves]]
    else:
        bad = leaves[counts[leaves] != stored[leaves]]
    if bad.size:
        leaf = int(bad[0])
        raise ValueError(
            f"these rows are not the training sample: leaf {leaf} held {int(stored[leaf])} "
            f"training rows, and {int(counts[leaf])} of these rows reach it"
            f"{f' ({bad.size} leaves differ)' if bad.size > 1 else ''}; certify needs exactly "
            "the rows the model was fit on (held-out rows: method='test_set')")
    if grown_on_part or not np.allclose(tree.weighted_n_node_samples, stored, rtol=1e-9,
                                        atol=0):
        return  # weighted counts: the stored class counts are not row counts
    n_classes = deployed.n_classes
    given = np.bincount(leaf_of_row * n_classes + y_idx, minlength=tree.n_nodes * n_classes)
    given = given.reshape(tree.n_nodes, n_classes)[leaves]
    value = np.asarray(tree.value, dtype=np.float64)[leaves]
    totals = value.sum(axis=1, keepdims=True)
    expected = np.divide(value, totals, out=np.zeros_like(value), where=totals > 0) \
        * stored[leaves][:, None]  # scikit-learn stores fractions, treebound counts
    differ = np.flatnonzero(np.abs(given - expected).max(axis=1) > 0.5)
    if differ.size:
        leaf = int(leaves[differ[0]])
        warnings.warn(
            f"these rows' labels do not match the training labels: leaf {leaf} held the class "
            f"counts {np.rint(expected[differ[0]]).astype(int).tolist()} in training, these rows "
            f"give {given[differ[0]].tolist()}"
            f"{f' ({differ.size} leaves differ)' if differ.size > 1 else ''}; the certificate "
            "is valid only on the training sample (a model fit with sample weights can trip "
            "this check)", UserWarning, stacklevel=external_stacklevel())


def _feature_name(deployed, j: int) -> str:
    names = getattr(deployed.model, "feature_names_in_", None)
    return f"{str(names[j])!r} (column {j})" if names is not None else f"column {j}"
