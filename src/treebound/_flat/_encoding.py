"""Turning user data (numpy arrays, pandas DataFrames with mixed columns) into a float matrix.

Numeric columns keep their values (float64). Categorical columns become category codes
``0 .. q-1`` in the order of the sorted training categories; a missing value (None, NaN, pd.NA)
in a categorical column is a category of its own, listed last as ``None``. The encoder remembers
the categories so that prediction data is encoded identically. A level never seen in training
(and a missing value when training had none) is, by ``handle_unknown``, an error naming the
feature and the values (``"error"``) or the reserved code ``q`` (``"heaviest_child"``), which a
:class:`~treebound.tree.Tree` routes to the child that received the most training weight.

The encoder also keeps, per categorical feature, the number of levels *declared* for it — the
levels it can take in the population, fixed before the data is seen: the categories of a pandas
``CategoricalDtype`` (levels absent from the training rows included), two for a boolean column,
or a number given by the user (``categorical_levels``). The codes stay those of the levels seen
in training; the certificates count the declared levels (``docs/certificates.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.utils import check_array

from treebound._config import read_only
from treebound._flat._sparse import is_sparse, sparse_features
from treebound._kernels.coding_passes import column_ranges
from treebound._kernels.value_checks import HAS_INFINITE, range_flags, value_flags

_JSON_SCALARS = (str, int, float, bool)

#: Accepted values of ``handle_unknown`` (the estimators' parameter).
HANDLE_UNKNOWN = ("heaviest_child", "error")


def _is_categorical_dtype(dtype) -> bool:
    return (
        isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_object_dtype(dtype)
        or pd.api.types.is_string_dtype(dtype)
        or pd.api.types.is_bool_dtype(dtype)
    )


def column_names(X) -> list[str] | None:
    """Column names of a DataFrame (as strings) or None."""
    if isinstance(X, pd.DataFrame):
        return [str(c) for c in X.columns]
    return None


def resolve_categorical(X, categorical_features, n_features: int) -> np.ndarray:
    """Boolean mask of the categorical columns from the ``categorical_features`` parameter."""
    mask = np.zeros(n_features, dtype=bool)
    if categorical_features is None:
        return mask
    if isinstance(categorical_features, str):
        if categorical_features != "auto":
            raise ValueError(
                "categorical_features must be 'auto', None, a boolean mask, or a list of column "
                f"indices or names; got {categorical_features!r}"
            )
        if isinstance(X, pd.DataFrame):
            for j, dtype in enumerate(X.dtypes):
                mask[j] = _is_categorical_dtype(dtype)
        return mask
    items = list(categorical_features)
    if items and all(isinstance(v, bool | np.bool_) for v in items):
        if len(items) != n_features:
            raise ValueError(
                f"categorical_features as a boolean mask needs {n_features} entries, "
                f"got {len(items)}"
            )
        return np.asarray(items, dtype=bool)
    names = column_names(X)
    for item in items:
        if isinstance(item, str):
            if names is None:
                raise ValueError(
                    f"categorical_features names column {item!r} but X has no column names "
                    "(pass a pandas DataFrame or use column indices)"
                )
            if item not in names:
                raise ValueError(f"categorical_features names unknown column {item!r}")
            mask[names.index(item)] = True
        elif isinstance(item, int | np.integer) and not isinstance(item, bool):
            if not 0 <= item < n_features:
                raise ValueError(
                    f"categorical_features index {item} is out of range for {n_features} features"
                )
            mask[int(item)] = True
        else:
            raise TypeError(
                f"categorical_features entries must be column indices or names, got {item!r}"
            )
    return mask


def _to_json_scalar(value, feature: str):
    if isinstance(value, np.generic):
        value = value.item()
    if not isinstance(value, _JSON_SCALARS):
        raise TypeError(
            f"categorical feature {feature} holds a value of type {type(value).__name__} "
            f"({value!r}); categories must be strings, numbers or booleans"
        )
    if isinstance(value, float) and not np.isfinite(value):
        raise ValueError(f"categorical feature {feature} holds the non-finite value {value!r}")
    return value


def _sorted_categories(values) -> list:
    try:
        return sorted(values)
    except TypeError:  # mixed types: order by type name, then text
        return sorted(values, key=lambda v: (type(v).__name__, str(v)))


def _column(X, j: int) -> np.ndarray:
    if isinstance(X, pd.DataFrame):
        return X.iloc[:, j]
    return X[:, j]


def _feature_label(names, j: int) -> str:
    return f"{names[j]!r} (column {j})" if names is not None else f"column {j}"


def _numeric_column(col, label: str) -> np.ndarray:
    try:
        if isinstance(col, pd.Series):
            if isinstance(col.dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(col.dtype):
                raise ValueError("it has a categorical dtype")
            values = col.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            values = np.asarray(col, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"feature {label} is not numeric ({exc}); declare it in categorical_features"
        ) from None
    # NaN is a missing value (the trees route it); infinity is refused
    if np.isinf(values).any():
        raise ValueError(f"Input X contains infinity in numeric feature {label}")
    return values


def _declared_count(col, label: str, given) -> int | None:
    """The number of levels declared for a categorical column: ``given`` (an int, or a list of
    the levels), else its pandas ``CategoricalDtype`` categories, two for a boolean column,
    else ``None`` (only the levels seen are known)."""
    dtype = getattr(col, "dtype", None)
    if given is not None:
        if isinstance(given, list | tuple):
            return len(set(given))
        return int(given)
    if isinstance(dtype, pd.CategoricalDtype):
        return int(len(dtype.categories))
    if dtype is not None and pd.api.types.is_bool_dtype(dtype):
        return 2
    return None


def resolve_levels(categorical_levels, names, categorical_mask) -> dict[int, object]:
    """``categorical_levels`` (column name or index -> a number of levels, or the list of the
    levels) as column index -> value, checked against the categorical columns."""
    if categorical_levels is None:
        return {}
    out: dict[int, object] = {}
    for key, value in categorical_levels.items():
        if isinstance(key, str):
            if names is None or key not in names:
                raise ValueError(f"categorical_levels names unknown column {key!r}")
            j = names.index(key)
        elif isinstance(key, int | np.integer) and not isinstance(key, bool):
            if not 0 <= key < categorical_mask.shape[0]:
                raise ValueError(f"categorical_levels index {key} is out of range for "
                                 f"{categorical_mask.shape[0]} features")
            j = int(key)
        else:
            raise TypeError(f"categorical_levels keys must be column names or indices, got "
                            f"{key!r}")
        if not categorical_mask[j]:
            raise ValueError(f"categorical_levels declares levels for {key!r}, which is not a "
                             "categorical feature (see categorical_features)")
        if isinstance(value, list | tuple):
            if not value:
                raise ValueError(f"categorical_levels of {key!r} lists no level")
        elif isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
            raise ValueError(f"categorical_levels of {key!r} must be a positive number of "
                             f"levels or the list of the levels, got {value!r}")
        out[j] = list(value) if isinstance(value, list | tuple) else int(value)
    return out


@dataclass
class FeatureEncoder:
    """Remembers which columns are categorical and their categories (``None`` = numeric), and
    how many levels were declared for each categorical column (``None``: undeclared)."""

    categories: list[list | None]
    feature_names: list[str] | None = None
    declared_levels: list[int | None] | None = None

    def __post_init__(self):
        if self.declared_levels is None:
            self.declared_levels = [None] * len(self.categories)

    @property
    def n_features(self) -> int:
        return len(self.categories)

    @property
    def is_categorical(self) -> np.ndarray:
        return np.array([c is not None for c in self.categories], dtype=bool)

    @property
    def n_categories(self) -> np.ndarray:
        return np.array([0 if c is None else len(c) for c in self.categories], dtype=np.int64)

    @property
    def undeclared(self) -> list[int]:
        """The categorical features whose levels were not declared (only the seen ones are
        known)."""
        return [j for j, (c, k) in enumerate(zip(self.categories, self.declared_levels,
                                                 strict=True)) if c is not None and k is None]

    @classmethod
    def fit(cls, X, categorical_mask: np.ndarray,
            categorical_levels=None) -> tuple[FeatureEncoder, np.ndarray]:
        """Learn the categories of ``X`` and return ``(encoder, encoded X)``.

        ``categorical_levels``: column name or index -> number of levels, or the list of the
        levels (the estimators' parameter); a column absent from it takes its declared levels
        from its dtype (:func:`_declared_count`)."""
        encoder, X_enc, _, _ = cls._fit(X, categorical_mask, categorical_levels, None)
        return encoder, X_enc

    @classmethod
    def fit_checked(cls, X, categorical_mask: np.ndarray, categorical_levels=None, *,
                    limit: float):
        """:meth:`fit`, and what one pass over the numeric columns of the encoded ``X`` found:
        ``(encoder, encoded X, flags, ranges)``.

        ``flags``: their :func:`~treebound._kernels.value_checks.value_flags` against ``limit``
        (NaN present, a value beyond ``limit``), None for a sparse ``X``. ``ranges``: for a
        plain float64 array, used as it is, the ``(lo, hi, integral)`` of its columns
        (:func:`~treebound._kernels.coding_passes.column_ranges`, which feature coding reads
        again), from the same pass that checked it for infinity and gave the flags; None
        otherwise."""
        return cls._fit(X, categorical_mask, categorical_levels, limit)

    @classmethod
    def _fit(cls, X, categorical_mask, categorical_levels, limit):
        names = column_names(X)
        levels = resolve_levels(categorical_levels, names, categorical_mask)
        if not categorical_mask.any() and not isinstance(X, pd.DataFrame):
            if limit is not None and _plain_float_matrix(X):
                d = X.shape[1]
                lo, hi = np.empty(d, dtype=np.float64), np.empty(d, dtype=np.float64)
                integral = np.empty(d, dtype=np.bool_)
                flags = range_flags(lo, hi, column_ranges(read_only(X), lo, hi, integral), limit)
                if not flags & HAS_INFINITE:  # else check_array words the error
                    return cls([None] * d, names), X, flags, (lo, hi, integral)
            X_enc = _numeric_matrix(X, "csc")
            flags = None
            if limit is not None and not is_sparse(X_enc):
                flags = value_flags(read_only(X_enc), _ALL_COLUMNS, limit)
            return cls([None] * X_enc.shape[1], names), X_enc, flags, None
        X = _as_table(X)
        n, d = X.shape
        _check_nonempty(n, d)
        X_enc = np.empty((n, d), dtype=np.float64)
        categories: list[list | None] = []
        declared: list[int | None] = []
        for j in range(d):
            label = _feature_label(names, j)
            col = _column(X, j)
            if not categorical_mask[j]:
                X_enc[:, j] = _numeric_column(col, label)
                categories.append(None)
                declared.append(None)
                continue
            values = np.asarray(col, dtype=object)
            missing = pd.isna(values)
            present = pd.unique(values[~missing])
            cats = _sorted_categories([_to_json_scalar(v, label) for v in present])
            count = _declared_count(col, label, levels.get(j))
            if isinstance(levels.get(j), list):
                outside = [v for v in cats if v not in set(levels[j])]
                if outside:
                    raise ValueError(f"categorical feature {label} holds levels that "
                                     f"categorical_levels does not list: {outside[:10]}")
            if count is not None and count < len(cats):
                raise ValueError(f"categorical feature {label} holds {len(cats)} levels, more "
                                 f"than the {count} declared for it")
            codes = _lookup(cats, values)
            if missing.any():
                codes[missing] = len(cats)
                cats = cats + [None]
            X_enc[:, j] = codes
            categories.append(cats)
            declared.append(count)
        flags = None
        if limit is not None:
            numeric = np.flatnonzero(~np.asarray(categorical_mask, dtype=bool))
            flags = value_flags(read_only(X_enc), numeric.astype(np.int64), limit) if numeric.size else 0
        return cls(categories, names, declared), X_enc, flags, None

    def transform(self, X, handle_unknown: str = "error") -> np.ndarray:
        """Encode new data with the categories learned in :meth:`fit`.

        ``handle_unknown="error"`` raises on a level never seen in training (or a missing
        value when training had none); ``"heaviest_child"`` gives it the reserved code ``q``
        (the number of known levels of the feature).
        """
        if handle_unknown not in HANDLE_UNKNOWN:
            raise ValueError(f"handle_unknown must be one of {HANDLE_UNKNOWN}, got "
                             f"{handle_unknown!r}")
        lenient = handle_unknown != "error"
        names = column_names(X)
        if not self.is_categorical.any() and not isinstance(X, pd.DataFrame):
            X_enc = _numeric_matrix(X)
        else:
            X = _as_table(X)
            n, d = X.shape
            _check_nonempty(n, d)
            if d != self.n_features:
                raise ValueError(f"X has {d} features, but the model expects {self.n_features}")
            X_enc = np.empty((n, d), dtype=np.float64)
            for j, cats in enumerate(self.categories):
                label = _feature_label(names or self.feature_names, j)
                col = _column(X, j)
                if cats is None:
                    X_enc[:, j] = _numeric_column(col, label)
                    continue
                values = np.asarray(col, dtype=object)
                missing = pd.isna(values)
                has_missing_category = len(cats) > 0 and cats[-1] is None
                known = cats[:-1] if has_missing_category else cats
                codes = _lookup(known, values)
                if missing.any():
                    if has_missing_category:
                        codes[missing] = len(known)
                    elif lenient:
                        codes[missing] = len(cats)
                    else:
                        raise ValueError(
                            f"categorical feature {label} has missing values, but had none "
                            "during fit (handle_unknown='heaviest_child' routes them)"
                        )
                unknown = (codes < 0) & ~missing
                if unknown.any() and lenient:
                    codes[unknown] = len(cats)
                elif unknown.any():
                    bad = _sorted_categories({_display(v) for v in values[unknown]})
                    raise ValueError(
                        f"categorical feature {label} has categories not seen during fit: "
                        f"{bad[:10]}{' ...' if len(bad) > 10 else ''} (handle_unknown="
                        "'heaviest_child' routes them)"
                    )
                X_enc[:, j] = codes
        if X_enc.shape[1] != self.n_features:
            raise ValueError(
                f"X has {X_enc.shape[1]} features, but the model expects {self.n_features}"
            )
        return X_enc

    def to_dict(self) -> dict:
        return {"categories": self.categories, "feature_names": self.feature_names,
                "declared_levels": self.declared_levels}

    @classmethod
    def from_dict(cls, data: dict) -> FeatureEncoder:
        if not isinstance(data, dict) or "categories" not in data:
            raise ValueError("encoder must be an object with a 'categories' list")
        cats = data["categories"]
        if not isinstance(cats, list):
            raise ValueError("encoder 'categories' must be a list")
        clean: list[list | None] = []
        for j, c in enumerate(cats):
            if c is None:
                clean.append(None)
                continue
            if not isinstance(c, list):
                raise ValueError(f"encoder categories of feature {j} must be a list or null")
            for i, v in enumerate(c):
                if v is None and i != len(c) - 1:
                    raise ValueError(
                        f"encoder categories of feature {j}: only the last may be null (missing)"
                    )
                if v is not None and not isinstance(v, _JSON_SCALARS):
                    raise ValueError(f"encoder categories of feature {j} hold {v!r}")
                if isinstance(v, float) and not np.isfinite(v):
                    raise ValueError(f"encoder categories of feature {j} hold {v!r}")
            if len({(type(v).__name__, v) for v in c}) != len(c) or len(set(c)) != len(c):
                raise ValueError(f"encoder categories of feature {j} are not distinct")
            clean.append(list(c))
        names = data.get("feature_names")
        if names is not None and (
            not isinstance(names, list) or len(names) != len(clean)
            or not all(isinstance(x, str) for x in names)
        ):
            raise ValueError("encoder 'feature_names' must be a list of strings, one per feature")
        return cls(clean, names, _declared_from(data.get("declared_levels"), clean))


def _declared_from(raw, categories) -> list[int | None]:
    """The ``declared_levels`` of a model file (absent in format 1: none declared)."""
    if raw is None:
        return [None] * len(categories)
    if not isinstance(raw, list) or len(raw) != len(categories):
        raise ValueError("encoder 'declared_levels' must list one entry per feature")
    for j, (count, cats) in enumerate(zip(raw, categories, strict=True)):
        if count is None:
            continue
        if cats is None:
            raise ValueError(f"encoder declared_levels of numeric feature {j} must be null")
        if isinstance(count, bool) or not isinstance(count, int):
            raise ValueError(f"encoder declared_levels of feature {j} must be an integer or "
                             "null")
        seen = len(cats) - (1 if cats and cats[-1] is None else 0)
        if count < max(seen, 1):
            raise ValueError(f"encoder declared_levels of feature {j} ({count}) is below the "
                             f"{seen} levels seen in training")
    return list(raw)


def _display(v):
    return v.item() if isinstance(v, np.generic) else v


def _lookup(categories: list, values: np.ndarray) -> np.ndarray:
    """Code of every value in ``categories`` (-1 when absent)."""
    if not categories:
        return np.full(values.shape[0], -1, dtype=np.int64)
    index = pd.Index(categories, dtype=object)
    return index.get_indexer(values).astype(np.int64)


def _check_nonempty(n: int, d: int) -> None:
    if n == 0:
        raise ValueError(f"Found array with 0 sample(s) (shape=(0, {d})); a minimum of 1 is required")
    if d == 0:
        raise ValueError(f"Found array with 0 feature(s) (shape=({n}, 0)); a minimum of 1 is required")


_ALL_COLUMNS = np.empty(0, dtype=np.int64)


def _plain_float_matrix(X) -> bool:
    """Whether ``X`` is a non-empty C-contiguous 2-D float64 ndarray: what ``check_array``
    returns unchanged when it holds no infinity."""
    return (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2
            and X.flags.c_contiguous and X.shape[0] > 0 and X.shape[1] > 0)


def _numeric_matrix(X, layout: str = "csr"):
    """A numeric matrix as float64 (NaN: missing); a sparse ``X`` in ``layout`` (or dense when
    small: :func:`~treebound._flat._sparse.sparse_features`)."""
    if is_sparse(X):
        return sparse_features(X, layout)
    # a C-contiguous float64 X is used as it is (no copy): predict reads it in place. Such an
    # X without infinity is what check_array would return unchanged; one compiled pass says so
    # (check_array's own checks cost more than coding a small X); any other X goes through it,
    # which also words its errors.
    if _plain_float_matrix(X) and not value_flags(read_only(X), _ALL_COLUMNS, np.inf) & HAS_INFINITE:
        return X
    return check_array(X, dtype=np.float64, order="C", ensure_all_finite="allow-nan",
                       ensure_2d=True, accept_sparse=False, input_name="X")


def _as_table(X):
    """A DataFrame stays one; anything else becomes a 2-D object array."""
    if isinstance(X, pd.DataFrame):
        return X
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError("a sparse X holds numeric features only: pass a dense array or "
                        "DataFrame to use categorical features")
    arr = np.asarray(X, dtype=object)
    if arr.ndim != 2:
        raise ValueError(
            f"Expected 2D array, got {arr.ndim}D array instead; reshape your data with "
            "array.reshape(-1, 1) for a single feature or array.reshape(1, -1) for a single sample"
        )
    return arr
