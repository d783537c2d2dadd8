"""Certificates of a tree with several outputs (a classifier fitted on a 2-D ``y``): one
certificate per output, combined by a union bound.

Output ``k`` of such a tree is itself a tree classifier: the same partition of the feature
space (the same tests), each leaf predicting the majority class of output ``k``. Every
training-sample bound holds uniformly over all trees, whatever chose the partition (here a
criterion averaged over the outputs), so each output's error has a certificate of its own on the
same rows. Each is computed at ``delta / n_outputs``: by the union bound, all of them hold
together with probability at least ``1 - delta`` (``docs/certificates.md``).
"""

from __future__ import annotations

import numpy as np

from treebound._flat._sklearn_view import as_flat

__all__ = ["OutputView", "n_model_outputs", "output_delta"]


def n_model_outputs(model) -> int:
    """Outputs of a fitted classifier: ``n_outputs_`` (1 when it has none)."""
    return int(getattr(model, "n_outputs_", 1) or 1)


def output_delta(delta: float, n_outputs: int) -> float:
    """The confidence parameter of each of ``n_outputs`` certificates that hold together with
    probability at least ``1 - delta`` (the union bound).

    >>> output_delta(0.05, 1), output_delta(0.05, 4)
    (0.05, 0.0125)
    """
    return float(delta) / int(n_outputs)


class OutputView:
    """Output ``k`` of a fitted multi-output treebound classifier, as the certificates read a
    one-output classifier: ``tree_`` is the flat tree of that output
    (:meth:`treebound.tree.Tree.output`), ``classes_`` its labels; every other attribute
    (``encode``, ``encoder_``, the parameters) is the model's.

    Parameters
    ----------
    model : DecisionTreeClassifier
        Fitted on a 2-D ``y``.
    k : int
        The output.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_depth=2).fit(X, np.c_[y, y == 2])
    >>> view = OutputView(model, 1)
    >>> view.classes_.tolist(), view.tree_.value.shape, view.n_features_in_
    ([0, 1], (7, 2), 4)
    """

    def __init__(self, model, k: int):
        classes = model.classes_[k]
        self._model = model
        self.output = int(k)
        self.classes_ = np.asarray(classes)
        self.tree_ = as_flat(model.tree_).output(int(k), len(classes))
        self.n_outputs_ = 1

    def __getattr__(self, name: str):
        # only reached for names this view does not set: the model's (its scikit-learn tags,
        # which say it is a classifier, but no other special name)
        if (name.startswith("__") and name != "__sklearn_tags__") or name == "_model":
            raise AttributeError(name)
        return getattr(self._model, name)
