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
    value_offset = np.concatenate([[0], np.cumsum(n_codes)[:-1]]).astype(np.int64)
    seg_start = np.concatenate([[0], np.cumsum(n_stored)]).astype(np.int64)
    lo_values = np.zeros(int(n_codes.sum()), dtype=np.float64)  # the zeros stay 0
    n_entries = int(seg_start[-1])
    seg_feat = np.empty(n_entries, dtype=np.int32)
    seg_code = np.empty(n_entries, dtype=np.int32)
    seg_sample = np.empty(n_entries, dtype=np.int32)
    fill_sparse_codes(X.indptr, X.indices, X.data, zero_code, value_offset, seg_start,
                      lo_values, seg_feat, seg_code, seg_sample)
    hi_values = lo_values  # one value per code (read-only: binning below makes new arrays)
    binned = np.flatnonzero(n_codes > max_bins) if splitter == "hist" else np.empty(0, int)
    if binned.size:  # columns with more distinct values than bins: the dense coding's bins
        lo_parts = np.split(lo_values, value_offset[1:])
        hi_parts = list(lo_parts)
        for j in binned.tolist():
            a, b = int(seg_start[j]), int(seg_start[j + 1])
            counts = np.bincount(seg_code[a:b], minlength=int(n_codes[j]))
            if zero_code[j] >= 0:
                counts[zero_code[j]] = n - (b - a)
            q, lo, hi, _, code_of_unique = _code_values(lo_parts[j], counts, splitter,
                                                        max_bins, width)
            if zero_code[j] >= 0:
                zero_code[j] = code_of_unique[zero_code[j]]
            # the bins merge values: the entries again by (code, row)
            codes = code_of_unique[seg_code[a:b]]
            order = np.lexsort((seg_sample[a:b], codes))
            seg_code[a:b] = codes[order]
            seg_sample[a:b] = seg_sample[a:b][order]
            n_codes[j] = q
            lo_parts[j], hi_parts[j] = lo, hi
        value_offset = np.concatenate([[0], np.cumsum(n_codes)[:-1]]).astype(np.int64)
        lo_values, hi_values = np.concatenate(lo_parts), np.concatenate(hi_parts)
    return SparseCodedFeatures(
        seg_feat=seg_feat,
        seg_code=seg_code,
        seg_sample=seg_sample,
        zero_code=zero_code,
        n_codes=n_codes,
        lo_values=lo_values,
        hi_values=hi_values,
        value_offset=value_offset,
    )
