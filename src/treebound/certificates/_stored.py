"""A certificate read from a model file is a claim: check it against the tree, recompute it.

Every bound of a certificate is a function of a few integers and of the tree: the rows ``m``,
the errors ``k``, the ghost sample size, and for the compression bounds the size of the
compression set and the errors outside it. The file stores them; the tree stores how many rows
reached every node and their (weighted) class counts. :func:`stored_certificate`

1. checks the integers against the tree — ``m`` is the rows at the root (for
   ``pruning="reduced_error"``: the rows the tree was grown on are ``m`` minus the held-out
   part), ``k`` is the training errors the leaves' class counts imply (exactly for an unweighted
   fit, within the bounds the counts allow for a weighted one), a compression set holds at most
   two rows per numeric test and at most ``d`` of the errors — and refuses a contradiction;
2. recomputes every bound from those integers and the tree, with the rules of this version
   (the levels declared in the file, the same table budget as ``fit``);
3. refuses a stored bound below the recomputed one (the file claims more than its tree and
   counts support: edited, or written by a version that counted less), and returns the
   recomputed certificate otherwise.

A format-1 file (written before the declared levels of issue 27) with a categorical feature has
no declared levels: its certificate counted the levels seen in training, which the theorems do
not cover; it is dropped with a warning, and the model loads with the trivial bound and the
reason.
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from treebound._flat._sklearn_view import as_flat
from treebound._validation import external_stacklevel
from treebound.certificates._certificate import Certificate, unavailable_certificate
from treebound.certificates._counting import may_grow_multiway, undeclared_message
from treebound.certificates._deployed import treebound_deployed
from treebound.certificates._methods import (
    DEFAULT_TABLE_BUDGET,
    BoundValue,
    NotApplicable,
    auto_pair,
    compression_from_counts,
    hti_from_counts,
    prefix_code_from_counts,
    shawe_taylor_from_counts,
    split_features,
)
from treebound.certificates._outputs import OutputView, n_model_outputs
from treebound.theory.tail_inversion import binomial_tail_inversion, binomial_tail_lower_inversion

__all__ = ["stored_certificate"]

#: Relative tolerance between a stored bound and its recomputation (float rounding across
#: machines; the certificate is otherwise a deterministic function of the stored counts).
_REL_TOLERANCE = 1e-9


def stored_certificate(raw: dict, model, format_version: int) -> Certificate | None:
    """The certificate stored in a model file, checked and recomputed (module docstring).

    Parameters
    ----------
    raw : dict or None
        ``extra.certificate`` of the file.
    model : fitted treebound classifier
        The model rebuilt from the file (``tree_``, ``classes_``, ``encoder_``, parameters).
    format_version : int
        The file's format version.

    Returns
    -------
    Certificate, list of Certificate or None
        ``None`` when the file has no certificate; one per output (a list in the file too)
        for a model of several outputs.

    Raises
    ------
    ValueError
        Naming what contradicts the tree, or the stored and the recomputed bound.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from treebound import DecisionTreeClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = DecisionTreeClassifier(max_leaf_nodes=4, growth="top_down").fit(X, y)
    >>> raw = model.certificate_.to_dict()
    >>> stored_certificate(raw, model, 2) == model.certificate_
    True
    >>> stored_certificate({**raw, "risk_upper_bound": 0.0001}, model, 2)
    Traceback (most recent call last):
    ...
    ValueError: model field extra.certificate claims an error rate of at most 0.0001, but ...
    """
    if raw is None:
        return None
    n_outputs = n_model_outputs(model)
    if n_outputs > 1 or isinstance(raw, list):
        # several outputs: one certificate each, checked against the tree of its output
        if not isinstance(raw, list) or len(raw) != n_outputs:
            raise ValueError(f"model field extra.certificate must list one certificate per "
                             f"output ({n_outputs})")
        if n_outputs == 1:
            raise ValueError("model field extra.certificate lists certificates of several "
                             "outputs, but the model has one")
        return [stored_certificate(one, OutputView(model, k), format_version)
                for k, one in enumerate(raw)]
    try:
        claimed = Certificate.from_dict(raw)
    except ValueError as exc:
        raise ValueError(f"model field extra.certificate: {exc}") from None
    tree = as_flat(model.tree_)
    if claimed.n_leaves != tree.n_leaves:
        raise ValueError(f"model field extra.certificate is for a tree of {claimed.n_leaves} "
                         f"leaves, the tree has {tree.n_leaves}")
    m, k = claimed.n_examples, claimed.n_errors
    _check_rows(m, model)
    deployed = treebound_deployed(model, None, n_fit_rows=m)
    if claimed.details.get("missing_values", False) is True:
        # rows with missing values: their routing is counted (certificates._counting)
        deployed = replace(deployed, missing=True)
    refused = undeclared_message(deployed.n_levels, getattr(model, "feature_names_in_", None))
    if "unavailable" in claimed.details or refused is not None:
        if refused is not None and "unavailable" not in claimed.details:
            warnings.warn(f"the certificate of this format-{format_version} model file counted "
                          "only the categorical levels seen in training, which the bounds do not "
                          f"cover; it is dropped: {refused}", UserWarning,
                          stacklevel=external_stacklevel())
        return unavailable_certificate(refused or claimed.details["unavailable"], claimed.delta,
                                       m, tree.n_leaves)
    if claimed.details.get("sample", "training") == "training":
        _check_errors(k, m, model)
    recomputed = _recompute(claimed, deployed, model)
    tolerance = _REL_TOLERANCE * max(1.0, abs(recomputed.risk_upper_bound))
    if claimed.risk_upper_bound < recomputed.risk_upper_bound - tolerance:
        raise ValueError(
            f"model field extra.certificate claims an error rate of at most "
            f"{claimed.risk_upper_bound!r}, but its tree and counts ({m} rows, {k} errors) give "
            f"{recomputed.risk_upper_bound!r}: the file was edited, or written by a version that "
            "counted differently; refit, or certify the model again with treebound.certify")
    return recomputed


def _check_rows(m: int, model) -> None:
    root = int(as_flat(model.tree_).n_node_samples[0])
    if getattr(model, "pruning", None) == "reduced_error":
        holdout = (getattr(model, "pruning_params", None) or {}).get("holdout", 0.2)
        grown_on = m - int(round(float(holdout) * m))
        if grown_on != root:
            raise ValueError(f"model field extra.certificate counts {m} rows, so the tree would "
                             f"have been grown on {grown_on} of them (holdout {holdout}), but its "
                             f"root holds {root}")
    elif m != root:
        raise ValueError(f"model field extra.certificate counts {m} rows but the tree was fit on "
                         f"{root} (the rows at its root)")


def _check_errors(k: int, m: int, model) -> None:
    """``k`` against the errors the leaves' class counts imply."""
    tree = as_flat(model.tree_)
    leaves = np.flatnonzero(tree.first_child < 0)
    value = np.asarray(tree.value, dtype=np.float64)[leaves]
    rows = np.asarray(tree.n_node_samples)[leaves]
    predicted = np.asarray(tree.majority_class)[leaves]
    majority = value[np.arange(leaves.shape[0]), predicted]
    unweighted = np.allclose(tree.weighted_n_node_samples, tree.n_node_samples, rtol=1e-9,
                             atol=0) and np.allclose(value, np.rint(value), rtol=0, atol=1e-9)
    grown_on_part = getattr(model, "pruning", None) == "reduced_error"
    if unweighted:
        on_tree = int(np.rint(rows - majority).sum())
        low, high = (on_tree, on_tree + m - int(rows.sum())) if grown_on_part else \
            (on_tree, on_tree)
    else:
        # every other class with weight in a leaf is at least one misclassified row; the rows of
        # the predicted class (at least one when it has weight) are not errors. A leaf without
        # rows (a dyadic tree's empty cell holds frequencies) has no errors.
        held = rows > 0
        others = np.where(held, (value > 0).sum(axis=1) - (majority > 0), 0)
        low = int(others.sum())
        high = int(np.where(held, rows - (majority > 0), 0).sum()) + (m - int(rows.sum()))
    if not low <= k <= high:
        what = f"exactly {low}" if low == high else f"between {low} and {high}"
        raise ValueError(f"model field extra.certificate counts {k} training errors, but the "
                         f"tree's leaf counts imply {what}")


def _recompute(claimed: Certificate, deployed, model) -> Certificate:
    m, k, delta = claimed.n_examples, claimed.n_errors, claimed.delta
    details = claimed.details
    multiway = may_grow_multiway(model, deployed.n_levels)
    if claimed.method == "auto":
        values: dict[str, BoundValue] = {}
        combined = details.get("combined", ())
        combined = tuple(combined) if isinstance(combined, (list, tuple)) else (None,)
        if (not combined or not all(isinstance(name, str) for name in combined)
                or not set(combined) <= set(auto_pair(deployed))):
            raise ValueError(f"model field extra.certificate combines {list(combined)}, not the "
                             f"methods of this tree, {list(auto_pair(deployed))}")
        for name in combined:
            values[name] = _one(name, claimed, deployed, multiway, delta / 2.0)
        upper = min(v.upper for v in values.values())
        lowers = [v.lower for v in values.values() if v.lower is not None]
        # as read back from JSON: lists, not tuples
        out = {"combined": list(combined), "chosen": min(values, key=lambda n: values[n].upper)}
        for value in values.values():
            out.update({key: v for key, v in value.details.items() if key != "combined"})
        out.update({key: v for key, v in details.items() if key.endswith("_not_applicable")})
        out["sample"] = "training"
        return Certificate(upper, max(lowers) if lowers else None, "auto", delta, m, k,
                           deployed.tree.n_leaves, out)
    value = _one(claimed.method, claimed, deployed, multiway, delta)
    out = dict(value.details, sample=details.get("sample", "training"))
    return Certificate(value.upper, value.lower, claimed.method, delta, m, k,
                       deployed.tree.n_leaves, out)


def _one(name: str, claimed: Certificate, deployed, multiway: bool, delta: float) -> BoundValue:
    m, k = claimed.n_examples, claimed.n_errors
    details = claimed.details
    try:
        if name == "hti":
            ghost = _integer(details, "ghost_size", 1)
            return hti_from_counts(deployed, m, k, multiway, delta, ghost, DEFAULT_TABLE_BUDGET)
        if name == "shawe_taylor":
            return shawe_taylor_from_counts(deployed, m, k, multiway, delta, DEFAULT_TABLE_BUDGET)
        if name in ("compression", "prefix_code"):
            size = _integer(details, "compression_size", 0)
            k_out = _integer(details, "errors_outside", 0)
            if name == "compression":
                tree = deployed.tree
                most = 2 * int(np.count_nonzero((tree.first_child >= 0)
                                                & (tree.category_offset < 0)))
            else:
                most = 2 * int(split_features(deployed.tree).shape[0])
            if size > most:
                raise ValueError(f"model field extra.certificate has a compression set of {size} "
                                 f"rows, but this tree's needs at most {most}")
            if not max(0, k - size) <= k_out <= k:
                raise ValueError(f"model field extra.certificate counts {k_out} errors outside "
                                 f"a compression set of {size} rows, with {k} errors in all")
            if name == "compression":
                return compression_from_counts(deployed, m, size, k_out, multiway, delta)
            return prefix_code_from_counts(deployed, m, size, k_out, delta)
        if name == "test_set":
            return BoundValue(binomial_tail_inversion(k, n_examples=m, delta=delta),
                              binomial_tail_lower_inversion(k, n_examples=m, delta=delta),
                              {"test_set": binomial_tail_inversion(k, n_examples=m,
                                                                   delta=delta)})
    except NotApplicable as exc:
        raise ValueError(f"model field extra.certificate: {exc}") from None
    raise ValueError(f"model field extra.certificate: unknown method {name!r}")


def _integer(details, key: str, minimum: int) -> int:
    value = details.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"model field extra.certificate details.{key} must be an integer >= "
                         f"{minimum}, got {value!r}")
    return int(value)
