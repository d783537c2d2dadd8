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
from treebound._kernels.sparse_coding import count_sparse_codes, fill_sparse_codes

__all__ = ["SparseCodedFeatures", "code_sparse_features"]


@dataclass
class SparseCodedFeatures:
    """The stored entries of a sparse matrix, coded, as the growth kernel reads them.

    The entries come sorted by (feature, code, row): the root's segment. The indices are the
    narrowest that hold them from 16 bits up (``seg_feat`` and ``seg_code`` both int16 below
    32,768 features and codes a column, else both int32), so the coding costs 8 bytes an entry
    on a typical sparse matrix. A rank code's value is not stored: it is read from the input matrix
    (``x_indptr``, ``x_indices``, ``x_data``, compressed columns with sorted rows; the value of
    an entry having that code), and only the histogram's binned columns, whose bins merge
    values, keep tables of their bins' smallest and largest values.
    """

    seg_feat: np.ndarray  # (n_entries,) int16 or int32
    seg_code: np.ndarray  # (n_entries,) int16 or int32
    seg_sample: np.ndarray  # (n_entries,) int32
    zero_code: np.ndarray  # (n_features,) int64: the code of 0 (-1: no zero in the column)
    n_codes: np.ndarray  # (n_features,) int64
    lo_values: np.ndarray  # pooled float64 bin ranges of the binned columns
    hi_values: np.ndarray
    value_offset: np.ndarray  # (n_features,) int64: a binned column's offset there, else -1
    x_indptr: np.ndarray  # the input matrix, compressed columns (not a copy)
    x_indices: np.ndarray
    x_data: np.ndarray

    def code_values(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """The smallest and largest value of each code of column ``j`` (equal for a rank
        code)."""
        off = int(self.value_offset[j])
        q = int(self.n_codes[j])
        if off >= 0:
            return self.lo_values[off : off + q], self.hi_values[off : off + q]
        values = self.x_data[self.x_indptr[j] : self.x_indptr[j + 1]]
        values = np.unique(np.concatenate([values[values != 0.0], np.zeros(
            1 if self.zero_code[j] >= 0 else 0)]))
        return values, values


def narrowest_signed(largest: int) -> type:
    """The narrowest signed integer dtype of at least 16 bits holding ``0 .. largest`` (int8
    would save a byte an entry, but give the growth kernel one more compiled variant to
    build, chosen by the data)."""
    for dtype in (np.int16, np.int32):
        if largest <= np.iinfo(dtype).max:
            return dtype
    return np.int64


def code_sparse_features(X: sp.spmatrix | sp.sparray, splitter: str, max_bins: int,
                         width: int) -> SparseCodedFeatures:
    """Codes of every column of a sparse matrix (no NaN, no infinity), and the tables of its
    binned columns."""
    X = sp.csc_matrix(X)
    if not X.has_canonical_format:  # the kernels read sorted rows within a column
        X = X.copy()
        X.sum_duplicates()
    n, d = X.shape
    # Column by column (compiled): the memory is the outputs and one column's scratch. The
    # entries, sorted by value within a column, are sorted by (code, row) already.
    n_codes = np.empty(d, dtype=np.int64)
    zero_code = np.empty(d, dtype=np.int64)
    n_stored = np.empty(d, dtype=np.int64)
    count_sparse_codes(X.indptr, X.indices, X.data, n, n_codes, zero_code, n_stored)
    seg_start = np.concatenate([[0], np.cumsum(n_stored)]).astype(np.int64)
    n_entries = int(seg_start[-1])
    # one type for both: two compiled variants of the growth kernel (16 and 32 bits), not four
    index_dtype = narrowest_signed(max(d - 1, int(n_codes.max(initial=1)), 1))
    seg_feat = np.empty(n_entries, dtype=index_dtype)
    seg_code = np.empty(n_entries, dtype=index_dtype)
    seg_sample = np.empty(n_entries, dtype=np.int32)
    fill_sparse_codes(X.indptr, X.indices, X.data, zero_code, seg_start, seg_feat, seg_code,
                      seg_sample)
    value_offset = np.full(d, -1, dtype=np.int64)
    lo_parts, hi_parts = [], []
    binned = np.flatnonzero(n_codes > max_bins) if splitter == "hist" else np.empty(0, int)
    at = 0
    for j in binned.tolist():  # more distinct values than bins: the dense coding's bins
        a, b = int(seg_start[j]), int(seg_start[j + 1])
        column = X.data[X.indptr[j] : X.indptr[j + 1]]
        values, counts = np.unique(column[column != 0.0], return_counts=True)
        if zero_code[j] >= 0:
            values = np.insert(values, zero_code[j], 0.0)
            counts = np.insert(counts, zero_code[j], n - (b - a))
        q, lo, hi, _, code_of_unique = _code_values(values, counts, splitter, max_bins, width)
        if zero_code[j] >= 0:
            zero_code[j] = code_of_unique[zero_code[j]]
        # the bins merge values: the entries again by (code, row)
        codes = code_of_unique[seg_code[a:b]]
        order = np.lexsort((seg_sample[a:b], codes))
        seg_code[a:b] = codes[order]
        seg_sample[a:b] = seg_sample[a:b][order]
        n_codes[j] = q
        value_offset[j] = at
        at += q
        lo_parts.append(lo)
        hi_parts.append(hi)
    lo_values = np.concatenate(lo_parts) if lo_parts else np.zeros(1)
    hi_values = np.concatenate(hi_parts) if hi_parts else np.zeros(1)
    return SparseCodedFeatures(
        seg_feat=seg_feat,
        seg_code=seg_code,
        seg_sample=seg_sample,
        zero_code=zero_code,
        n_codes=n_codes,
        lo_values=np.ascontiguousarray(lo_values, dtype=np.float64),
        hi_values=np.ascontiguousarray(hi_values, dtype=np.float64),
        value_offset=value_offset,
        x_indptr=X.indptr,
        x_indices=X.indices,
        x_data=np.asarray(X.data, dtype=np.float64),
    )
