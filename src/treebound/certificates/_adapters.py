"""Which reader turns a fitted model into a :class:`~treebound.certificates._deployed.
DeployedTree`: :func:`deployed_tree` tries each adapter of :data:`ADAPTERS` in order.

Every model is recognised by what it has, never by importing its library or its estimator
classes: treebound's classifiers by their ``encode`` method and their class outputs (the adapter
then reads a flat ``Tree`` from ``tree_``), scikit-learn's trees and the optimal sparse trees of
``pystreed`` and ``gosdt`` by the module of their class (none of these libraries is imported
to ask).
"""

from __future__ import annotations

from collections.abc import Callable

from treebound._flat._sklearn_view import as_flat
from treebound._flat._storage import Tree
from treebound.certificates._deployed import DeployedTree, from_sklearn, from_treebound
from treebound.certificates._peers import from_gosdt, from_streed, is_gosdt, is_streed

__all__ = ["ADAPTERS", "deployed_tree"]


def _is_treebound_classifier(model) -> bool:
    """treebound's classifiers, by what they have: the ``encode`` method that gives the matrix
    their tests read, class probabilities (a treebound regressor has none) and, once fitted, a
    flat :class:`~treebound.tree.Tree` behind ``tree_`` (unfitted ones are accepted here so that the
    adapter's error says to fit them)."""
    if not (callable(getattr(model, "encode", None)) and hasattr(model, "predict_proba")):
        return False
    return not hasattr(model, "tree_") or isinstance(as_flat(model.tree_), Tree)


def _is_sklearn_tree_classifier(model) -> bool:
    """scikit-learn's ``DecisionTreeClassifier`` or ``ExtraTreeClassifier`` (or a subclass),
    told apart by the module of the class (importing sklearn.tree to ask takes ~0.4 s)."""
    return any(cls.__module__.startswith("sklearn.tree") and
               cls.__name__ in ("DecisionTreeClassifier", "ExtraTreeClassifier")
               for cls in type(model).__mro__)


#: (predicate, adapter) pairs tried in order by :func:`deployed_tree`.
ADAPTERS: list[tuple[Callable, Callable]] = [
    (_is_treebound_classifier, from_treebound),
    (_is_sklearn_tree_classifier, from_sklearn),
    (is_streed, from_streed),
    (is_gosdt, from_gosdt),
]


def deployed_tree(model, X) -> DeployedTree:
    """The :class:`DeployedTree` of a fitted classifier evaluated on the rows ``X``.

    The adapter is chosen by the model's type: treebound's ``DecisionTreeClassifier`` and
    ``DyadicTreeClassifier``, scikit-learn's ``DecisionTreeClassifier`` (``tree_`` renumbered
    breadth-first), pystreed's ``STreeDClassifier`` and gosdt's ``GOSDTClassifier`` (alone or in
    a ``Pipeline`` after its binarizer; imported only when such a model is given).

    Parameters
    ----------
    model : fitted classifier
        One of the models above.
    X : array-like or DataFrame of shape (n_rows, n_features)
        The rows to certify on, in the model's input format.

    Returns
    -------
    DeployedTree

    Raises
    ------
    TypeError
        For models no adapter reads (regressors included); an unfitted model or an ``X`` with
        other features raises the model's own error.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier as SklearnTree
    >>> X, y = load_iris(return_X_y=True)
    >>> cart = SklearnTree(max_depth=2, random_state=0).fit(X, y)
    >>> deployed = deployed_tree(cart, X)
    >>> deployed.family, deployed.tree.n_leaves
    ('scikit-learn', 3)
    """
    for accepts, adapter in ADAPTERS:
        if accepts(model):
            return adapter(model, X)
    name = type(model).__name__
    if hasattr(model, "predict") and not hasattr(model, "classes_") and hasattr(model, "tree_"):
        raise TypeError(f"certify bounds the 0-1 risk of classifiers; {name} is a regressor")
    raise TypeError(f"certify cannot read a {name}: supported models are treebound's "
                    "DecisionTreeClassifier and DyadicTreeClassifier, scikit-learn's "
                    "DecisionTreeClassifier, pystreed's STreeDClassifier and gosdt's "
                    "GOSDTClassifier (alone or in a Pipeline after its binarizer)")
