"""``treebound.prune``: prune a fitted estimator or a bare tree without refitting it.

Examples
--------
>>> from sklearn.datasets import load_iris
>>> from treebound import DecisionTreeClassifier, prune
>>> X, y = load_iris(return_X_y=True)
>>> grown = DecisionTreeClassifier(random_state=0).fit(X, y)
>>> result = prune(grown, method="bound")
>>> result.tree.n_leaves <= grown.get_n_leaves(), result.objective < result.info["initial_bound"]
(True, True)
>>> result.estimator.get_n_leaves() == result.tree.n_leaves
True
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np

from treebound._flat._labels import label_indices, label_vector, unknown_labels
from treebound._flat._sklearn_view import SklearnTree, as_flat
from treebound._flat._storage import Tree
from treebound._validation import check_sample_weight
from treebound.certificates import fit_certificate
from treebound.certificates._memo import CertifiedTrees
from treebound.pruning._dispatch import run_pruning, weights_are_uniform, withhold_weighted_bound
from treebound.pruning._registry import pruning_method, resolve_params
from treebound.tree._classes import growth_settings, set_pruning_state
from treebound.tree._fit import regrow_function

__all__ = ["prune"]


def prune(model_or_tree, X=None, y=None, *, method: str = "bound", sample_weight=None,
          settings=None, random_state=None, cache=None, **params):
    """Prune a fitted estimator or a :class:`~treebound.tree.Tree` without refitting it.

    Parameters
    ----------
    model_or_tree : DecisionTreeClassifier, DecisionTreeRegressor or Tree
        A fitted treebound estimator, or a bare tree (then ``X`` must already be encoded and
        ``y`` given as class indices / float targets).
    X, y : array-like, optional
        "ccp_cv"/"mcart_cv"/"certified": the training data the tree was grown on (fold trees
        are regrown on it with the estimator's growth settings). "reduced_error": the held-out pruning set.
        "bound" and "srm" do not read them: they use the training statistics stored in the
        tree's nodes.
    method : {"bound", "ccp_cv", "mcart_cv", "certified", "srm", "reduced_error"}, \
default="bound"
        The pruning method (see :mod:`treebound.pruning`).
    sample_weight : array-like, optional
        Weights of ``X``.
    settings : treebound.tree._builder.GrowthSettings, optional
        Growth settings for the CV methods on a bare tree (an estimator supplies its own).
    random_state : int, optional
        Seeds the CV folds (default: the estimator's growth seed, or 0).
    cache : treebound.theory.PartitioningCache, optional
        Memo tables shared across calls ("bound", and "srm" with ``vc_bound="upper"``).
    **params
        Options of the method (``pruning_params`` of the estimators), validated.

    Returns
    -------
    PruningResult
        A frozen record: ``tree`` (the pruned copy; the input is unchanged), ``make_leaf`` and
        ``old_to_new`` (relating it to the input tree), ``path`` (``(n_leaves, objective)``
        visited), ``bound`` (final bound of "bound"/"srm", else None), ``time`` (seconds),
        ``info`` (method details) and, when an estimator was given, ``estimator``: a deep copy
        of it holding the pruned tree with ``pruning_objective_``, ``pruning_path_``, ``pruning_time_`` and
        ``pruning_info_`` set (its ``pruning``/``pruning_params`` are left as they were); a
        classifier's ``certificate_`` is the pruned tree's on ``X, y`` (taken to be the training
        rows), None when they are not given.

    Examples
    --------
    Cost-complexity pruning with 5-fold cross-validation (Breiman et al. 1984) of a tree grown
    to purity; the fold trees are regrown with the estimator's own settings:

    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> grown = DecisionTreeClassifier(random_state=0).fit(X, y)
    >>> result = prune(grown, X, y, method="ccp_cv", n_folds=5)
    >>> result.method, result.estimator.get_n_leaves() == result.tree.n_leaves
    ('ccp_cv', True)

    A bare tree with the bound of Leboeuf et al. (2020, Algorithm 3) at ``delta = 0.1``:

    >>> result = prune(grown.tree_, method="bound", delta=0.1)
    >>> result.estimator is None, result.tree.n_leaves, round(result.objective, 4)
    (True, 7, 1.7604)
    """
    if isinstance(model_or_tree, Tree | SklearnTree):
        model, tree = None, _one_output(as_flat(model_or_tree), method)
        X_enc = None if X is None else np.asarray(X, dtype=np.float64)
        y_enc = None if y is None else np.asarray(y)
        n_categories = tree.n_categories
    elif hasattr(model_or_tree, "tree_") and hasattr(model_or_tree, "encoder_"):
        model, tree = model_or_tree, _one_output(as_flat(model_or_tree.tree_), method)
        X_enc = None if X is None else model.encode(X)
        y_enc = None if y is None else _encode_target(model, y)
        n_categories = model.encoder_.n_categories
    else:
        raise TypeError("prune expects a fitted treebound estimator or a treebound Tree, got "
                        f"{type(model_or_tree).__name__}")
    if X_enc is not None and y_enc is not None and X_enc.shape[0] != y_enc.shape[0]:
        raise ValueError(f"X has {X_enc.shape[0]} samples but y has {y_enc.shape[0]}")
    weights = None
    if sample_weight is not None and X_enc is not None:
        weights = check_sample_weight(sample_weight, X_enc.shape[0])
    params = resolve_params(method, params, task=tree.task)
    needs = pruning_method(method).needs(params)
    grow_fn = None
    seed = 0 if random_state is None else int(random_state)
    if needs.regrow and X_enc is not None:
        if settings is None and model is not None:
            settings = growth_settings(model, X_enc.shape[0], X_enc.shape[1])
            seed = settings.seed if random_state is None else seed
        if settings is None:
            raise ValueError(f"method={method!r} on a bare Tree needs settings= (the "
                             "GrowthSettings the tree was grown with) to regrow fold trees")
        n_classes = None if tree.task == "regression" else tree.n_classes
        grow_fn = regrow_function(n_categories, settings, n_classes)

    if method == "certified" and cache is None:
        cache = CertifiedTrees()  # the candidates' tables, then the pruned tree's certificate
    result = run_pruning(tree, method, params, X=X_enc, y=y_enc, sample_weight=weights,
                         grow=grow_fn, seed=seed, cache=cache)
    # an objective read from the node statistics is void when weights differ between rows
    result = withhold_weighted_bound(result, weights_are_uniform(tree),
                                     node_statistics=needs.node_statistics)
    if model is not None:
        pruned = copy.deepcopy(model)
        set_pruning_state(pruned, result)
        if "_certificate" in pruned.__dict__:  # a classifier: the grown tree's no longer holds
            pruned.certificate_ = _pruned_certificate(
                pruned, X_enc, y_enc, weights, cache if method == "certified" else None)
        result = _with_estimator(result, pruned)
    return result


def _one_output(tree: Tree, method: str) -> Tree:
    """``tree``, or a one-line ``ValueError`` when it has several outputs."""
    if tree.n_outputs > 1:
        raise ValueError(f"prune(method={method!r}) is not supported with several outputs (the "
                         f"tree has {tree.n_outputs}): every method scores the risk of one "
                         "output; use ccp_alpha, or fit one tree per output")
    return tree


def _pruned_certificate(pruned, X_enc, y_enc, weights, cache=None):
    """The pruned classifier's certificate on the rows given to :func:`prune` (taken to be the
    training rows, as in ``fit``), or None without them (``cache``: the pruning's tables)."""
    if X_enc is None or y_enc is None:
        return None
    positive = slice(None) if weights is None else weights > 0
    return fit_certificate(pruned, X_enc[positive], y_enc[positive], cache=cache)


def _encode_target(model, y):
    classes = getattr(model, "classes_", None)
    if classes is None:
        return label_vector(y).astype(np.float64)
    indices = label_indices(classes, y)
    if np.any(indices < 0):
        raise ValueError(f"y has labels the model was not fitted on: "
                         f"{unknown_labels(y, indices)}")
    return indices.astype(np.int32)


def _with_estimator(result, estimator):
    return dataclasses.replace(result, estimator=estimator)
