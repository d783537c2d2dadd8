"""Turning user data (numpy arrays, pandas DataFrames with mixed columns) into a float matrix.

Numeric columns keep their values (float64). Categorical columns become category codes
``0 .. q-1`` in the order of the sorted training categories; a missing value (None, NaN, pd.NA)
in a categorical column is a category of its own, listed last as ``None``. The encoder remembers
the categories so that prediction data is encoded identically. A level never seen in training
(and a missing value when training had none) is, by ``handle_unknown``, an error naming the
feature and the values (``"error"``) or the reserved code ``q`` (``"heaviest_child"``), which a
:class:`~treebound.tree.Tree` routes to the child that received the most training weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.utils import check_array

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
    if np.isnan(values).any():
        raise ValueError(
            f"Input X contains NaN in numeric feature {label}; treebound does not route missing "
            "numeric values: impute them, or declare the feature categorical"
        )
    if np.isinf(values).any():
        raise ValueError(f"Input X contains infinity in numeric feature {label}")
    return values


@dataclass
class FeatureEncoder:
    """Remembers which columns are categorical and their categories (``None`` = numeric)."""

    categories: list[list | None]
    feature_names: list[str] | None = None

    @property
    def n_features(self) -> int:
        return len(self.categories)

    @property
    def is_categorical(self) -> np.ndarray:
        return np.array([c is not None for c in self.categories], dtype=bool)

    @property
    def n_categories(self) -> np.ndarray:
        return np.array([0 if c is None else len(c) for c in self.categories], dtype=np.int64)

    @classmethod
    def fit(cls, X, categorical_mask: np.ndarray) -> tuple[FeatureEncoder, np.ndarray]:
        """Learn the categories of ``X`` and return ``(encoder, encoded X)``."""
        names = column_names(X)
        if not categorical_mask.any() and not isinstance(X, pd.DataFrame):
            X_enc = _numeric_matrix(X)
            return cls([None] * X_enc.shape[1], names), X_enc
        X = _as_table(X)
        n, d = X.shape
        _check_nonempty(n, d)
        X_enc = np.empty((n, d), dtype=np.float64)
        categories: list[list | None] = []
        for j in range(d):
            label = _feature_label(names, j)
            col = _column(X, j)
            if not categorical_mask[j]:
                X_enc[:, j] = _numeric_column(col, label)
                categories.append(None)
                continue
            values = np.asarray(col, dtype=object)
            missing = pd.isna(values)
            present = pd.unique(values[~missing])
            cats = _sorted_categories([_to_json_scalar(v, label) for v in present])
            codes = _lookup(cats, values)
            if missing.any():
                codes[missing] = len(cats)
                cats = cats + [None]
            X_enc[:, j] = codes
            categories.append(cats)
        return cls(categories, names), X_enc

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
        return {"categories": self.categories, "feature_names": self.feature_names}

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
        return cls(clean, names)


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


def _numeric_matrix(X) -> np.ndarray:
    return np.ascontiguousarray(
        check_array(X, dtype=np.float64, ensure_all_finite=True, ensure_2d=True,
                    accept_sparse=False, input_name="X")
    )


def _as_table(X):
    """A DataFrame stays one; anything else becomes a 2-D object array."""
    if isinstance(X, pd.DataFrame):
        return X
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError("sparse input is not supported: pass a dense array or DataFrame")
    arr = np.asarray(X, dtype=object)
    if arr.ndim != 2:
        raise ValueError(
            f"Expected 2D array, got {arr.ndim}D array instead; reshape your data with "
            "array.reshape(-1, 1) for a single feature or array.reshape(1, -1) for a single sample"
        )
    return arr
