"""Integer codes of a sparse matrix's features, without densifying it.

The codes are those :func:`~treebound._flat._feature_coding.code_features` gives the dense
matrix (a value's rank among the column's distinct values, zero included when the column holds
one; in histogram mode the same bins, from the same counts), so the thresholds and the trees
are the dense ones. Only the stored entries with a nonzero value get a code here (explicit zeros
are zeros like the implicit ones); the rows' entries are laid out for the growth
kernel (:mod:`treebound._kernels.sparse_growth`), every other cell having its column's
``zero_code``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from treebound._flat._feature_coding import _code_values

__all__ = ["SparseCodedFeatures", "code_sparse_features"]


@dataclass
class SparseCodedFeatures:
    # the entries sorted by (feature, code, row): the growth kernel's root segment
    seg_feat: np.ndarray  # (n_entries,) int32
    seg_code: np.ndarray  # (n_entries,) int32
    seg_sample: np.ndarray  # (n_entries,) int32
    zero_code: np.ndarray  # (n_features,) int64: the code of 0 (-1: no zero in the column)
    n_codes: np.ndarray  # (n_features,) int64
    lo_values: np.ndarray  # pooled float64, as CodedFeatures
    hi_values: np.ndarray
    value_offset: np.ndarray  # (n_features,) int64


def code_sparse_features(X: sp.spmatrix | sp.sparray, splitter: str, max_bins: int,
                         width: int) -> SparseCodedFeatures:
    """Codes and value ranges of every column of a sparse matrix (no NaN, no infinity)."""
    X = sp.csc_matrix(X)
    X.sum_duplicates()
    n, d = X.shape
    # 32-bit indices and no copy that is not needed: the temporaries here set the fit's peak
    # memory (each is dropped once used)
    column = np.repeat(np.arange(d, dtype=np.int32), np.diff(X.indptr))
    values = np.asarray(X.data, dtype=np.float64)
    rows = np.asarray(X.indices, dtype=np.int32)
    stored = values != 0.0  # explicit zeros are zeros
    if not stored.all():
        column, values, rows = column[stored], values[stored], rows[stored]
    del stored
    n_zero = n - np.bincount(column, minlength=d)
    # distinct (column, value) pairs in order: one sort of the entries by the complex number
    # column + i value (numpy orders complex numbers by real part, then imaginary part; the
    # columns are exact in float64), twice as fast as a lexsort; ties need no order
    key = np.empty(column.shape[0], dtype=np.complex128)
    key.real, key.imag = column, values
    order = np.argsort(key)
    del key
    column_s, values_s = column[order], values[order]
    new = np.ones(column_s.shape[0], dtype=bool)
    new[1:] = (column_s[1:] != column_s[:-1]) | (values_s[1:] != values_s[:-1])
    group = np.cumsum(new, dtype=np.int32) - 1  # distinct pair of every sorted entry
    pair_column = column_s[new].astype(np.int64)
    pair_value = values_s[new]
    del column_s, values_s, new
    pair_count = np.bincount(group, minlength=pair_column.shape[0])
    pairs_before = np.searchsorted(pair_column, np.arange(d + 1))  # per column: its pairs
    negative_pairs = np.searchsorted(pair_column * 2 + (pair_value > 0), 2 * np.arange(d) + 1)
    if splitter != "hist":
        del pair_count  # the counts bin the histogram's values only
    # Ranks (the exact splitter's codes, and the histogram's when a column has at most
    # max_bins distinct values): a pair's rank in its column, after the zero for positive values.
    n_pairs = np.diff(pairs_before)
    neg = negative_pairs - pairs_before[:-1]  # distinct negative values per column
    has_zero = n_zero > 0
    n_codes = n_pairs + has_zero
    zero_code = np.where(has_zero, neg, -1).astype(np.int64)
    pair_rank = np.arange(pair_column.shape[0]) - pairs_before[pair_column]
    code_of_pair = pair_rank + (has_zero[pair_column] & (pair_value > 0))
    value_offset = np.concatenate([[0], np.cumsum(n_codes)[:-1]]).astype(np.int64)
    lo_values = np.zeros(int(n_codes.sum()), dtype=np.float64)  # the zeros stay 0
    lo_values[value_offset[pair_column] + code_of_pair] = pair_value
    del pair_column, pair_value, pair_rank
    hi_values = lo_values  # one value per code (read-only: binning below makes new arrays)
    binned = np.flatnonzero(n_codes > max_bins) if splitter == "hist" else np.empty(0, int)
    if binned.size:  # columns with more distinct values than bins: the dense coding's bins
        lo_parts = np.split(lo_values, value_offset[1:])
        hi_parts = list(lo_parts)
        for j in binned.tolist():
            a, b = int(pairs_before[j]), int(pairs_before[j + 1])
            counts = pair_count[a:b]
            if has_zero[j]:
                counts = np.insert(counts, neg[j], n_zero[j])
            q, lo, hi, _, code_of_unique = _code_values(lo_parts[j], counts, splitter,
                                                        max_bins, width)
            if has_zero[j]:
                zero_code[j] = code_of_unique[neg[j]]
                code_of_unique = np.delete(code_of_unique, neg[j])
            code_of_pair[a:b] = code_of_unique
            n_codes[j] = q
            lo_parts[j], hi_parts[j] = lo, hi
        value_offset = np.concatenate([[0], np.cumsum(n_codes)[:-1]]).astype(np.int64)
        lo_values, hi_values = np.concatenate(lo_parts), np.concatenate(hi_parts)
    entry_code = np.empty(order.shape[0], dtype=np.int32)
    entry_code[order] = code_of_pair[group]
    del order, group
    # the entries by (column, code, row): a stable sort by column and code of the compressed
    # columns (rows increasing within a column)
    by_code = np.argsort(column.astype(np.int64) * (int(n_codes.max()) + 1 if d else 1)
                         + entry_code, kind="stable")
    return SparseCodedFeatures(
        seg_feat=column[by_code],
        seg_code=entry_code[by_code],
        seg_sample=rows[by_code],
        zero_code=zero_code,
        n_codes=n_codes.astype(np.int64),
        lo_values=lo_values,
        hi_values=hi_values,
        value_offset=value_offset,
    )
