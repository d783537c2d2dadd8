"""The JSON model format: a versioned, validated description of a fitted estimator.

A model file is plain JSON (no pickle, nothing executable)::

    {"format": "treebound-model", "format_version": 3, "estimator": "DecisionTreeClassifier",
     "treebound_version": "...", "params": {...}, "n_features_in": 4,
     "feature_names_in": [...] | null, "classes": [...], "classes_dtype": "<i8",
     "encoder": {"categories": [...], "feature_names": [...]}, "tree": {...flat arrays...},
     "extra": {...estimator-specific fitted state...},
     "training_rows": {...how ``treebound fit`` chose its rows...} (optional)}

Loading checks every field (types, lengths, index ranges, the tree shape) and raises a
``ValueError`` naming what is wrong. A stored certificate is a claim: it is checked against the
tree and recomputed (:func:`treebound.certificates._stored.stored_certificate`).
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.base import is_classifier

from treebound._flat._encoding import FeatureEncoder
from treebound._flat._sklearn_view import as_flat
from treebound._flat._storage import Tree
from treebound._version import __version__
from treebound.certificates._stored import stored_certificate

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "TRAINING_ROWS_FIELDS", "check_training_rows_record",
           "model_from_dict", "model_to_dict"]

FORMAT_NAME = "treebound-model"
#: 2: the encoder's ``declared_levels``, the optional ``training_rows`` record, and a stored
#: certificate that is checked and recomputed on load (format-1 files still load). 4: several
#: outputs (a 3-D tree ``value``, ``classes`` and ``classes_dtype`` listed per output, a
#: certificate per output); written only for such a model, whose file an older reader then
#: refuses by its version: a one-output model is still written as version 3.
FORMAT_VERSION = 4
#: The version a one-output model is written with (all it needs).
_ONE_OUTPUT_VERSION = 3
#: Tree arrays a file of each version must hold beyond those of version 1: version 3 adds
#: ``missing_child`` (where a missing value goes at every node) and the threshold ``"+inf"``
#: (the test "value present"). Older files load with the default routing of missing values
#: (:func:`~treebound._flat._missing.default_missing_child`): the same predictions as before
#: on every input without NaN.
_ARRAYS_SINCE = {3: ("missing_child",)}
_CLASS_DTYPE_KINDS = {"U", "i", "u", "f", "b", "O"}


def _json_param(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return [_json_param(v) for v in value.tolist()]
    if isinstance(value, list | tuple):
        return [_json_param(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_param(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return None  # e.g. a RandomState: not reproducible from JSON, stored as null


def model_to_dict(model) -> dict:
    tree = as_flat(model.tree_)
    out = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION if tree.n_outputs > 1 else _ONE_OUTPUT_VERSION,
        "estimator": type(model).__name__,
        "treebound_version": __version__,
        "params": {k: _json_param(v) for k, v in model.get_params(deep=False).items()},
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": (
            [str(n) for n in model.feature_names_in_]
            if hasattr(model, "feature_names_in_") else None
        ),
        "encoder": model.encoder_.to_dict(),
        "tree": tree.to_dict(),
        "extra": _json_param(model._extra_state()) if hasattr(model, "_extra_state") else {},
    }
    certificate = getattr(model, "certificate_", None)
    if isinstance(certificate, list):  # one per output
        out["extra"]["certificate"] = [c.to_dict() for c in certificate]
    elif certificate is not None:
        out["extra"]["certificate"] = certificate.to_dict()
    if isinstance(getattr(model, "classes_", None), list):  # one array per output
        out["classes"] = [c.tolist() for c in model.classes_]
        out["classes_dtype"] = [c.dtype.str for c in model.classes_]
    elif hasattr(model, "classes_"):
        out["classes"] = model.classes_.tolist()
        out["classes_dtype"] = model.classes_.dtype.str
    record = getattr(model, "training_rows_", None)
    if record is not None:
        out["training_rows"] = check_training_rows_record(record)
    return out


#: Fields of the ``training_rows`` record (how ``treebound fit`` chose its training rows).
TRAINING_ROWS_FIELDS = {"seed": int, "test_size": float, "n_rows": int, "n_train_rows": int,
                        "sha256": str}


def check_training_rows_record(record) -> dict:
    """The ``training_rows`` record, validated: ``seed``, ``test_size``, ``n_rows`` (rows of the
    data file), ``n_train_rows`` and ``sha256`` (of the training rows, in order)."""
    if not isinstance(record, dict) or set(record) != set(TRAINING_ROWS_FIELDS):
        raise ValueError(f"model field 'training_rows' must be an object with the fields "
                         f"{sorted(TRAINING_ROWS_FIELDS)}")
    out = {}
    for key, kind in TRAINING_ROWS_FIELDS.items():
        value = record[key]
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else
                                                     kind):
            raise ValueError(f"model field training_rows.{key} must be a "
                             f"{'number' if kind is float else kind.__name__}")
        out[key] = float(value) if kind is float else value
    if not 0.0 <= out["test_size"] < 1.0 or out["seed"] < 0 or \
            not 1 <= out["n_train_rows"] <= out["n_rows"]:
        raise ValueError("model field 'training_rows' holds an impossible split")
    if len(out["sha256"]) != 64 or any(c not in "0123456789abcdef" for c in out["sha256"]):
        raise ValueError("model field training_rows.sha256 must be 64 hex digits")
    return out


def _require(data: dict, key: str, kinds, what: str):
    if key not in data:
        raise ValueError(f"model file is missing {key!r} ({what})")
    value = data[key]
    if not isinstance(value, kinds) or (isinstance(value, bool) and kinds is int):
        raise ValueError(f"model field {key!r} must be {what}, got {type(value).__name__}")
    return value


def model_from_dict(cls, data: dict):
    """Rebuild a fitted ``cls`` from :func:`model_to_dict` output, validating everything."""
    if not isinstance(data, dict):
        raise ValueError(f"a model must be a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT_NAME:
        raise ValueError(f"not a treebound model: 'format' is {data.get('format')!r}")
    version = data.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ValueError("model field 'format_version' must be an integer")
    if version > FORMAT_VERSION or version < 1:
        raise ValueError(
            f"model format version {version} is not supported (this treebound reads 1 to "
            f"{FORMAT_VERSION})"
        )
    name = _require(data, "estimator", str, "the estimator class name")
    if name != cls.__name__:
        raise ValueError(f"this file holds a {name}, not a {cls.__name__}")
    params = _require(data, "params", dict, "an object of constructor parameters")
    if hasattr(cls, "_upgrade_params"):  # renamed option values of older files
        params = cls._upgrade_params(params)
    known = cls().get_params(deep=False)
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise ValueError(f"model params has unknown parameters {unknown}")
    model = cls(**params)
    # constructors only store; validate the stored parameters now (any problem is a ValueError
    # here: it is the file that is wrong, whatever the type of the bad value)
    try:
        model._validate_stored_params()
    except TypeError as exc:
        raise ValueError(f"model params: {exc}") from None
    n_features = _require(data, "n_features_in", int, "an integer")
    if n_features < 1:
        raise ValueError("model field 'n_features_in' must be at least 1")
    encoder = FeatureEncoder.from_dict(_require(data, "encoder", dict, "an object"))
    if encoder.n_features != n_features:
        raise ValueError(
            f"encoder describes {encoder.n_features} features but n_features_in is {n_features}"
        )
    raw_tree = _require(data, "tree", dict, "an object")
    for since, names in _ARRAYS_SINCE.items():
        absent = [name for name in names if name not in raw_tree]
        if version >= since and absent:
            raise ValueError(f"model format version {version} needs the tree arrays {absent}")
        if version < since and len(absent) < len(names):
            raise ValueError(f"model format version {version} has no tree arrays "
                             f"{sorted(set(names) - set(absent))} (written from version {since})")
    tree = Tree.from_dict(raw_tree)
    if tree.n_outputs > 1 and version < 4:
        raise ValueError(f"model format version {version} has one output, but its tree has "
                         f"{tree.n_outputs} (several outputs are written from version 4)")
    if tree.n_features != n_features:
        raise ValueError(f"tree has {tree.n_features} features but n_features_in is {n_features}")
    if not np.array_equal(tree.n_categories, encoder.n_categories):
        raise ValueError("tree n_categories disagree with the encoder's categories")
    names = data.get("feature_names_in")
    if names is not None:
        if not isinstance(names, list) or len(names) != n_features or not all(
                isinstance(x, str) for x in names):
            raise ValueError("model field 'feature_names_in' must list one string per feature")
        model.feature_names_in_ = np.asarray(names, dtype=object)
    # scikit-learn >= 1.6 answers through tags (the old ``_estimator_type`` attribute is gone)
    if is_classifier(model):
        if tree.task != "classification":
            raise ValueError("a classifier file holds a regression tree")
        model.classes_ = (_output_classes_from(data, tree) if tree.n_outputs > 1
                          else _classes_from(data, tree.n_classes))
    elif tree.task != "regression":
        raise ValueError("a regressor file holds a classification tree")
    model.n_features_in_ = n_features
    model.encoder_ = encoder
    model.tree_ = tree
    extra = data.get("extra", {})
    if not isinstance(extra, dict):
        raise ValueError("model field 'extra' must be an object")
    if data.get("training_rows") is not None:
        model.training_rows_ = check_training_rows_record(data["training_rows"])
    if hasattr(model, "_restore_extra_state"):
        model._restore_extra_state(extra)
    if is_classifier(model):
        model.certificate_ = stored_certificate(extra.get("certificate"), model, version)
    return model


def _output_classes_from(data: dict, tree: Tree) -> list[np.ndarray]:
    """The classes of every output of a multi-output classifier (``classes`` and
    ``classes_dtype`` are lists, one entry per output); an output's classes fill the first
    columns of its rows of ``value``, the rest is zero padding."""
    values = _require(data, "classes", list, "a list of class lists, one per output")
    dtypes = _require(data, "classes_dtype", list, "a list of dtype strings, one per output")
    if len(values) != tree.n_outputs or len(dtypes) != tree.n_outputs:
        raise ValueError(f"model lists classes for {len(values)} outputs and dtypes for "
                         f"{len(dtypes)}, but the tree has {tree.n_outputs}")
    out = []
    for k, (labels, dtype) in enumerate(zip(values, dtypes, strict=True)):
        classes = _classes_from({"classes": labels, "classes_dtype": dtype}, len(labels)
                                if isinstance(labels, list) else -1)
        if not 1 <= classes.shape[0] <= tree.n_classes or np.any(
                tree.value[:, k, classes.shape[0]:] != 0):
            raise ValueError(f"model lists {classes.shape[0]} classes for output {k}, but its "
                             "tree counts hold another number")
        out.append(classes)
    return out


def _classes_from(data: dict, n_classes: int) -> np.ndarray:
    values = _require(data, "classes", list, "a list of class labels")
    dtype_str = _require(data, "classes_dtype", str, "a numpy dtype string")
    try:
        dtype = np.dtype(dtype_str)
    except TypeError:
        raise ValueError(f"model field 'classes_dtype' is not a dtype: {dtype_str!r}") from None
    if dtype.kind not in _CLASS_DTYPE_KINDS:
        raise ValueError(f"model field 'classes_dtype' has unsupported kind {dtype.kind!r}")
    for v in values:
        if v is None or not isinstance(v, str | int | float | bool):
            raise ValueError(f"class label {v!r} is not a string, number or boolean")
    try:
        classes = np.asarray(values, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"class labels do not fit dtype {dtype_str}: {exc}") from None
    if classes.ndim != 1 or classes.shape[0] != n_classes:
        raise ValueError(f"model lists {len(values)} classes but the tree has {n_classes}")
    if classes.shape[0] < 1:
        raise ValueError("a classifier needs at least 1 class")
    return classes

