"""Certificates: valid, non-vacuous bounds on the true error of any fitted tree classifier.

:func:`certify` returns a :class:`Certificate`: "with probability at least ``1 - delta`` this
tree's error rate on new data is at most ...". The training-sample methods hold for every tree
of every shape at once, so the tree may have been chosen in any way (bound pruning,
cross-validation, another library); they are valid only on the i.i.d. sample the tree was fit
on — rows that were not part of that sample, or a sample that was filtered or reordered by
what it contains, void them. Methods (see :mod:`treebound.certificates._methods`):

``"auto"`` (default)
    the smaller of two bounds, each at ``delta / 2``: ``"hti"`` and ``"compression"`` for
    greedy trees (``"hti"`` alone at ``delta / 2`` when no compression set exists),
    ``"prefix_code"`` and ``"hti"`` for dyadic trees.
``"hti"``
    hypergeometric tail inversion (Leboeuf, LeBlanc & Marchand 2021, Theorem 5) uniformly over
    all trees with the structure prior of Leboeuf et al. (2020); with a lower bound (Theorem 7).
``"compression"``
    sample compression (Marchand & Sokolova 2005).
``"shawe_taylor"``
    Eq. (8) of Leboeuf et al. (2020), the objective of bound pruning (often above 1).
``"prefix_code"``
    dyadic trees only: Scott & Nowak's code as an Occam prior.
``"test_set"``
    ``X, y`` are rows never used to fit or select the tree: Langford's test-set bound (an
    exact binomial interval), the tightest certificate when such rows exist.

Examples
--------
>>> from sklearn.datasets import load_breast_cancer
>>> from treebound import DecisionTreeClassifier, certify
>>> X, y = load_breast_cancer(return_X_y=True)
>>> model = DecisionTreeClassifier(max_leaf_nodes=8, growth="top_down").fit(X, y)
>>> certificate = certify(model, X, y)
>>> 0.0 < certificate.risk_upper_bound < 0.3, certificate.method
(True, 'auto')
"""

from __future__ import annotations

import copy
import math
import warnings
from dataclasses import dataclass, replace

import numpy as np
from sklearn.base import BaseEstimator, is_regressor

from treebound._flat._feature_coding import CodedRows
from treebound._flat._labels import label_indices, label_vector, unknown_labels
from treebound._flat._sklearn_view import as_flat
from treebound._format import format_bound, format_count, promises_nothing
from treebound._resources import unlimited
from treebound._validation import check_integer
from treebound.certificates._adapters import _is_treebound_classifier, deployed_tree
from treebound.certificates._certificate import Certificate, unavailable_certificate
from treebound.certificates._counting import may_grow_multiway, undeclared_message
from treebound.certificates._deployed import DeployedTree, treebound_deployed
from treebound.certificates._memo import CertifiedTrees, reusable
from treebound.certificates._methods import (
    DEFAULT_TABLE_BUDGET,
    TRAINING_METHODS,
    NotApplicable,
    Sample,
    auto_pair,
    bound_compression,
    bound_hti,
    bound_prefix_code,
    bound_shawe_taylor,
    bound_test_set,
    gather_evidence,
)
from treebound.certificates._outputs import OutputView, n_model_outputs, output_delta
from treebound.certificates._rows import check_training_rows

__all__ = ["METHODS", "Certificate", "DeployedTree", "PendingCertificate", "certify",
           "certify_deployed", "deployed_tree", "fit_certificate", "format_bound",
           "format_count", "promises_nothing"]

#: Accepted values of ``method``.
METHODS = ("auto", "hti", "compression", "shawe_taylor", "prefix_code", "test_set")


def certify(model, X, y, *, delta=0.05, method="auto", ghost_size=None) -> Certificate:
    """Certify a fitted tree classifier: a bound on its error rate on new data.

    Parameters
    ----------
    model : fitted classifier
        treebound's ``DecisionTreeClassifier`` (any growth order, any pruning, binary or
        multiway categorical tests) or ``DyadicTreeClassifier``, or scikit-learn's
        ``DecisionTreeClassifier`` (read from ``tree_``).
    X : array-like or DataFrame, shape (n_rows, n_features)
        For every method but ``"test_set"``: the training sample the model was fit on (every
        row with positive weight, each counted once whatever its weight). For ``"test_set"``:
        rows never used to fit or select the model.
    y : array-like, shape (n_rows,) or (n_rows, n_outputs)
        Their class labels (one column per output for a treebound classifier fitted on a
        2-D ``y``).
    delta : float in (0, 1), default=0.05
        The bound holds with probability at least ``1 - delta``.
    method : {"auto", "hti", "compression", "shawe_taylor", "prefix_code", "test_set"}
        See the module docstring.
    ghost_size : int, optional
        ``m'`` of the ``"hti"`` bound (default ``4 m``); fix it before seeing the data.

    Returns
    -------
    Certificate or list of Certificate
        One per output for a classifier of several outputs, each at ``delta / n_outputs``:
        by the union bound they hold together with probability at least ``1 - delta``.

    Raises
    ------
    TypeError
        For a model certify cannot read (a regressor, another library's estimator).
    ValueError
        For an unfitted model, ``X`` with other features, labels never seen in training,
        ``delta`` outside (0, 1), an unknown method, a method that does not apply (e.g.
        ``"compression"`` on thresholds that are not midpoints of training values), or a
        training-sample method given a different number of rows than the model was fit on.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.tree import DecisionTreeClassifier as SklearnTree
    >>> from treebound import certify
    >>> X, y = load_iris(return_X_y=True)
    >>> cart = SklearnTree(max_leaf_nodes=4, random_state=0).fit(X, y)
    >>> c = certify(cart, X, y, method="hti")
    >>> c.n_leaves, c.n_errors, round(c.risk_upper_bound, 3)
    (4, 4, 0.308)
    """
    delta = _check_delta(delta)
    if method not in METHODS:
        raise ValueError(f"unknown certificate method {method!r}: expected one of {METHODS}")
    ghost_size = _check_ghost_size(ghost_size)
    try:
        regressor = is_regressor(model)
    except (AttributeError, TypeError):  # not a scikit-learn estimator at all
        regressor = False
    if regressor:
        raise TypeError(f"certify bounds the 0-1 risk of classifiers; {type(model).__name__} "
                        "is a regressor")
    if n_model_outputs(model) > 1 and _is_treebound_classifier(model):
        return _certify_outputs(model, X, y, delta=delta, method=method, ghost_size=ghost_size)
    deployed = deployed_tree(model, X)
    y_idx = _class_indices(deployed, y, strict=method != "test_set")
    # the rows the fit certified (read without computing a pending certificate_'s bounds)
    fitted = getattr(model, "__dict__", {}).get("_certificate")
    n_fit = fitted.n_examples if fitted is not None else deployed.n_fit_rows
    if method != "test_set" and n_fit is not None and n_fit != y_idx.shape[0]:
        raise ValueError(
            f"the model was fit on {n_fit} rows (with positive weight) but X has "
            f"{y_idx.shape[0]}: method {method!r} needs exactly the training sample (use "
            "method='test_set' for rows never used to fit or select the model)")
    if method != "test_set":
        check_training_rows(deployed, y_idx)
    return certify_deployed(deployed, y_idx, delta=delta, method=method, ghost_size=ghost_size)


def _certify_outputs(model, X, y, **options) -> list[Certificate]:
    """:func:`certify` of a classifier of several outputs: one certificate per output, each at
    ``delta / n_outputs`` (all hold together with probability at least ``1 - delta``)."""
    n_outputs = n_model_outputs(model)
    Y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if Y.ndim != 2 or Y.shape[1] != n_outputs:
        raise ValueError(f"y must have one column per output ({n_outputs}), got shape "
                         f"{Y.shape}")
    delta = output_delta(options.pop("delta"), n_outputs)
    return [certify(OutputView(model, k), X, Y[:, k], delta=delta, **options)
            for k in range(n_outputs)]


def certify_deployed(deployed: DeployedTree, y_idx: np.ndarray, *, delta: float = 0.05,
                     method: str = "auto", ghost_size=None,
                     table_budget: int = DEFAULT_TABLE_BUDGET) -> Certificate:
    """:func:`certify` on a :class:`DeployedTree` and class indices.

    The functional core the estimators call at the end of ``fit``. The work is sized by the rows,
    already in memory, and capped by ``table_budget``: the resource limits of the theory functions
    (:func:`treebound.resource_limits`) do not apply.

    Parameters
    ----------
    deployed : DeployedTree
        The tree and the rows it is evaluated on (:func:`deployed_tree`).
    y_idx : ndarray of int, shape (n_rows,)
        True class of every row as an index into ``deployed.classes`` (``-1``: a label the model
        never saw, counted as an error).
    delta : float, default=0.05
        The bound holds with probability at least ``1 - delta``.
    method : {"auto", "hti", "compression", "shawe_taylor", "prefix_code", "test_set"}
        See the module docstring; default ``"auto"``.
    ghost_size : int, optional
        ``m'`` of the ``"hti"`` bound (default ``4 m``).
    table_budget : int, default=3_000_000
        Largest Theorem 9 table (shapes x parts x points) computed for the growth function;
        beyond it the closed-form bound
        (:func:`~treebound.theory.log_leaf_assignment_growth_bound`) is used: slightly looser,
        same guarantee.

    Returns
    -------
    Certificate

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)  # classes 0, 1, 2: the labels are their indices
    >>> model = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down").fit(X, y)
    >>> c = certify_deployed(deployed_tree(model, X), y, method="hti")
    >>> c.n_errors, round(c.risk_upper_bound, 3)
    (4, 0.308)
    """
    ghost_size = _check_ghost_size(ghost_size)
    with unlimited():
        return _certify_deployed(deployed, y_idx, delta, method, ghost_size, table_budget)


def _sample(deployed, y_idx) -> Sample:
    predicted = deployed.predict_index()
    sample = Sample(deployed, np.asarray(y_idx), predicted != y_idx)
    if sample.m == 0:
        raise ValueError("certify needs at least one row")
    return sample


def _certify_deployed(deployed, y_idx, delta, method, ghost_size, table_budget):
    return _certify_sample(_sample(deployed, y_idx), delta, method, ghost_size, table_budget)


def _certify_sample(sample, delta, method, ghost_size, table_budget, cache=None):
    deployed = sample.deployed
    if method != "test_set":
        refused = undeclared_message(deployed.n_levels, _feature_names(deployed))
        if refused is not None:
            raise ValueError(f"no certificate: {refused}")
    if method == "auto":
        first, second = auto_pair(deployed)
        half = delta / 2.0
        values = {}
        lower = None
        details: dict = {"combined": ()}
        for name in (first, second):
            try:
                value = _run(name, sample, half, ghost_size, table_budget, cache)
            except NotApplicable as exc:
                details[f"{name}_not_applicable"] = str(exc)
                continue
            values[name] = value.upper
            details["combined"] += (name,)
            details.update({key: v for key, v in value.details.items() if key != "combined"})
            if value.lower is not None:
                lower = value.lower if lower is None else max(lower, value.lower)
        upper = min(values.values())
        details["chosen"] = min(values, key=values.get)
        return _certificate(upper, lower, "auto", delta, sample, details)
    if method == "prefix_code" and deployed.family != "dyadic":
        raise ValueError("method 'prefix_code' certifies DyadicTreeClassifier only")
    try:
        value = _run(method, sample, delta, ghost_size, table_budget, cache)
    except NotApplicable as exc:
        raise ValueError(f"method {method!r} cannot certify this tree: {exc}") from None
    return _certificate(value.upper, value.lower, method, delta, sample, value.details)


@dataclass(frozen=True, eq=False)
class PendingCertificate:
    """What ``fit`` keeps for ``certificate_``: the training rows or their evidence, the bounds
    not yet computed.

    The evidence is what the bounds read from the rows' feature values (every row's prediction,
    the compression set); the bounds themselves (growth-function tables, tail inversions: none
    of it on the rows) are computed on the first read of ``certificate_`` (:meth:`resolve`),
    like scikit-learn's ``feature_importances_``. When the rows are small (at most
    :data:`DEFER_BYTES`), ``fit`` keeps a private copy of them and the evidence is gathered on
    that first read too (:meth:`gather`), so that ``fit`` is growth alone; larger rows are not
    kept, their evidence is gathered in ``fit``. Pickling gathers the evidence first, so a
    pickle never holds the rows. The certificate is the same either way.

    Parameters
    ----------
    sample : Sample or None
        The training sample with its evidence (:func:`~treebound.certificates._methods.
        gather_evidence`); ``None`` when the fit cannot be certified or its evidence waits.
    table_budget : int
        Theorem 9 table budget of the ``"hti"`` bound.
    refused : Certificate, optional
        The certificate of a fit that cannot be certified (a categorical feature without
        declared levels): the trivial bound 1 and the reason.
    delta : float, default=0.05
        The confidence parameter (``0.05 / n_outputs`` for each output of a tree of several
        outputs).
    deferred : tuple, optional
        ``(model, features, y_idx)`` whose evidence :meth:`gather` has not yet gathered: a
        shallow copy of the fitted model (its parameters as in ``fit``) and private copies of
        the rows (the features possibly as their codes, a
        :class:`~treebound._flat._feature_coding.CodedRows`).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down").fit(X, y)
    >>> pending = fit_certificate(model, model.encode(X), y)
    >>> pending.resolve() == model.certificate_ == certify(model, X, y)
    True
    """

    sample: Sample | None
    table_budget: int
    refused: Certificate | None = None
    delta: float = 0.05
    deferred: tuple | None = None

    @property
    def n_examples(self) -> int:
        """Rows of the training sample (``m``).

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> model = DecisionTreeClassifier(max_leaf_nodes=3).fit(X, y)
        >>> fit_certificate(model, model.encode(X), y).n_examples
        150
        """
        if self.deferred is not None:
            return int(self.deferred[2].shape[0])
        return self.sample.m if self.sample is not None else self.refused.n_examples

    def gather(self) -> None:
        """Gather the evidence of rows kept by ``fit`` (then drop the rows); nothing when it
        is gathered already.

        Returns
        -------
        None
            :attr:`sample` holds the evidence afterwards, :attr:`deferred` is ``None``.

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> model = DecisionTreeClassifier(max_leaf_nodes=3).fit(X, y)
        >>> pending = fit_certificate(model, model.encode(X), y)
        >>> pending.sample is None, pending.deferred is not None  # the rows wait
        (True, True)
        >>> pending.gather()
        >>> pending.sample.m, pending.deferred
        (150, None)
        """
        if self.deferred is None:
            return
        model, features, y_idx = self.deferred
        if isinstance(features, CodedRows):  # the rows fit kept as their codes
            features = features.toarray()
        sample, refused = _evidence(model, features, y_idx, self.delta)
        object.__setattr__(self, "sample", sample)
        object.__setattr__(self, "refused", refused)
        object.__setattr__(self, "deferred", None)

    def __getstate__(self):
        self.gather()  # a pickle holds the evidence, never the rows
        return dict(self.__dict__)

    def __setstate__(self, state) -> None:
        for key, value in state.items():
            object.__setattr__(self, key, value)

    def resolve(self, cache=None) -> Certificate:
        """The certificate (method ``"auto"``, ``delta = 0.05``).

        Parameters
        ----------
        cache : treebound.theory.PartitioningCache, optional
            Theorem 9 tables already computed on these rows (the same values, less work).

        Returns
        -------
        Certificate

        Examples
        --------
        >>> from sklearn.datasets import load_iris
        >>> from treebound import DecisionTreeClassifier
        >>> X, y = load_iris(return_X_y=True)
        >>> model = DecisionTreeClassifier(max_leaf_nodes=3).fit(X, y)
        >>> fit_certificate(model, model.encode(X), y).resolve().n_leaves
        3
        """
        self.gather()
        if self.refused is not None:
            return self.refused
        with unlimited():
            return _certify_sample(self.sample, self.delta, "auto", None, self.table_budget,
                                   cache)


#: ``fit`` keeps rows of at most this many bytes for the evidence pass on the first read of
#: ``certificate_`` (a copy: 64 MiB is 8 million float64 values); larger rows are gathered in
#: ``fit`` and not kept.
DEFER_BYTES = 64 * 2**20


def fit_certificate(model, features: np.ndarray, y_idx: np.ndarray, *, cache=None,
                    defer: bool = True, rows: CodedRows | None = None
                    ) -> PendingCertificate | Certificate | list[PendingCertificate]:
    """The ``certificate_`` of a treebound classifier at the end of ``fit``, to be computed on
    first read.

    Method ``"auto"`` at ``delta = 0.05`` on the encoded training rows with positive weight
    (each counted once), with the same Theorem 9 table budget as :func:`certify`. Rows of at
    most :data:`DEFER_BYTES` are copied and read, as the bounds are computed, when
    :meth:`PendingCertificate.resolve` is called; larger rows are read now.
    With ``cache`` (the Theorem 9 tables a pruning already computed on these rows, e.g.
    certified selection's), the certificate is computed now from them and returned: the same
    value, at a fraction of the cost, without keeping the tables on the model.

    Parameters
    ----------
    model : DecisionTreeClassifier or DyadicTreeClassifier
        A treebound classifier whose ``tree_`` and ``classes_`` are set.
    features : ndarray of float64, shape (n_rows, n_features)
        The encoded training rows with positive weight (``model.encode(X)``).
    y_idx : ndarray of int, shape (n_rows,) or (n_rows, n_outputs)
        Their classes as indices into ``model.classes_`` (of each output, for a 2-D ``y``).
    cache : treebound.theory.PartitioningCache, optional
        Tables to compute the certificate from now (one output).
    defer : bool, default=True
        Whether rows of at most :data:`DEFER_BYTES` are copied and their evidence waits for
        :meth:`PendingCertificate.resolve` (the first read of ``certificate_``), as the bounds
        do; larger rows (or ``defer=False``) have their evidence gathered now.
    rows : CodedRows, optional
        ``features`` as codes (:class:`~treebound._flat._feature_coding.CodedRows`, equal to
        them bit for bit, never written), kept instead of the copy when the evidence waits.

    Returns
    -------
    PendingCertificate, Certificate or list of PendingCertificate
        One per output for a 2-D ``y_idx``, each at ``delta = 0.05 / n_outputs``
        (:mod:`treebound.certificates._outputs`); the certificate itself when ``cache`` is
        given.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down").fit(X, y)
    >>> fit_certificate(model, model.encode(X), y).resolve() == model.certificate_
    True
    """
    y_idx = np.asarray(y_idx)
    defer = (defer and cache is None and isinstance(features, np.ndarray)
             and features.nbytes <= DEFER_BYTES)
    if defer:  # one private copy (the caller's X may change), shared by the outputs
        features = np.array(features, copy=True) if rows is None else rows
        y_idx = np.array(y_idx, copy=True)
    if y_idx.ndim == 2:  # several outputs: one certificate each, at delta / n_outputs
        delta = output_delta(0.05, y_idx.shape[1])
        return [_pending(OutputView(model, k), features, y_idx[:, k], delta, defer)
                for k in range(y_idx.shape[1])]
    known = cache.recall(as_flat(model.tree_)) if isinstance(cache, CertifiedTrees) else None
    pending = _pending(model, features, y_idx, 0.05, defer, known)
    return pending if cache is None else pending.resolve(cache)


def _pending(model, features, y_idx, delta: float, defer: bool,
             known=None) -> PendingCertificate:
    if defer:
        # the model as fitted: a shallow copy keeps its parameters (set_params before the
        # first read changes nothing); an earlier fit's certificate is not kept alive
        fitted = _shallow_copy(model)
        fitted.__dict__.pop("_certificate", None)
        return PendingCertificate(None, DEFAULT_TABLE_BUDGET, delta=delta,
                                  deferred=(fitted, features, y_idx))
    sample, refused = _evidence(model, features, y_idx, delta, known)
    return PendingCertificate(sample, DEFAULT_TABLE_BUDGET, refused, delta)


def _shallow_copy(model):
    """``copy.copy(model)``; a scikit-learn estimator's state is its ``__dict__`` (its
    ``__getstate__`` copies it, its ``__setstate__`` updates the new one's from it, outside
    scikit-learn's own modules), copied here without the round trip through the pickle
    protocol."""
    if isinstance(model, BaseEstimator) and not type(model).__module__.startswith("sklearn."):
        fitted = object.__new__(type(model))
        fitted.__dict__.update(model.__dict__)
        return fitted
    return copy.copy(model)


def _evidence(model, features, y_idx, delta: float, known=None):
    """The evidence pass: the sample with its evidence, or the refusal of a fit that cannot
    be certified (its certificate). ``known``: a sample of the same tree on the same rows
    whose evidence a selection gathered (:class:`~treebound.certificates._memo.
    CertifiedTrees`), used when it counts the same class."""
    deployed = treebound_deployed(model, features, n_fit_rows=features.shape[0])
    refused = undeclared_message(deployed.n_levels, _feature_names(deployed))
    if refused is not None:
        return None, unavailable_certificate(refused, delta, int(features.shape[0]),
                                             int(deployed.tree.n_leaves))
    if known is not None and deployed.family == "treebound" and reusable(
            known, deployed, y_idx, may_grow_multiway(model, deployed.n_levels)):
        return replace(known, deployed=replace(deployed, features=None, model=None)), None
    with unlimited():
        return gather_evidence(_sample(deployed, y_idx), auto_pair(deployed)), None


def _run(name, sample, delta, ghost_size, table_budget, cache=None):
    if name == "hti":
        return bound_hti(sample, delta, ghost_size, table_budget, cache)
    if name == "compression":
        return bound_compression(sample, delta)
    if name == "shawe_taylor":
        return bound_shawe_taylor(sample, delta, table_budget)
    if name == "prefix_code":
        return bound_prefix_code(sample, delta)
    return bound_test_set(sample, delta)


def _certificate(upper, lower, method, delta, sample, details) -> Certificate:
    if method in TRAINING_METHODS or method == "auto":
        details.setdefault("sample", "training")
        if sample.deployed.missing:
            # the rows hold missing values: every routing of them was counted (a stored
            # certificate is recomputed with the same count)
            details["missing_values"] = True
    else:
        details.setdefault("sample", "held-out")
    return Certificate(float(upper), None if lower is None else float(lower), method,
                       float(delta), sample.m, sample.k, sample.deployed.tree.n_leaves, details)


def _check_delta(delta) -> float:
    if isinstance(delta, bool) or not isinstance(delta, int | float | np.floating):
        raise TypeError(f"delta must be a number in (0, 1), got {type(delta).__name__}")
    delta = float(delta)
    if not 0.0 < delta < 1.0 or math.isnan(delta):
        raise ValueError(f"delta must be in (0, 1), got {delta}")
    return delta


def _feature_names(deployed):
    names = getattr(deployed.model, "feature_names_in_", None)
    if names is None:
        encoder = getattr(deployed.model, "encoder_", None)
        names = getattr(encoder, "feature_names", None)
    return None if names is None else list(names)


def _check_ghost_size(ghost_size):
    """``None`` or a positive integer (2.5 is refused, not truncated to 2)."""
    if ghost_size is None:
        return None
    return check_integer(ghost_size, "ghost_size", 1)


def _class_indices(deployed: DeployedTree, y, *, strict: bool) -> np.ndarray:
    y = label_vector(y)
    n_rows = deployed.features.shape[0]
    if y.shape[0] != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {y.shape[0]}")
    indices = label_indices(deployed.classes, y)
    if np.any(indices < 0):
        unknown = unknown_labels(y, indices)
        if strict:
            raise ValueError(f"y has labels the model never saw in training: {unknown}; "
                             "certify needs the training sample (use method='test_set' for "
                             "held-out rows)")
        warnings.warn(f"y has labels the model never saw ({unknown}): counted as errors",
                      stacklevel=3)
    return indices
