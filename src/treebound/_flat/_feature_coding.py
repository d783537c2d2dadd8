"""Integer codes for every feature, shared by the exact and the histogram split search.

* exact mode: a numeric feature's code is the rank of its value among the distinct training
  values, so every threshold scikit-learn would consider is still available;
* histogram mode: distinct values are grouped into at most ``max_bins`` bins of about equal
  sample count (a value never straddles two bins);
* categorical features keep their category codes.

Missing values (NaN) get a code of their own, after every value's: ``missing_code[f]`` is that
code (``n_codes[f] - 1``) for a feature with a missing value in training, ``-1`` otherwise. Its
``lo``/``hi`` entries are NaN. The split kernels try the missing rows on each side of every
numeric cut; for a categorical feature the missing code is one more level of the subset search
(it joins the better side) and of a multiway test (its own child).

For numeric features ``lo[c]``/``hi[c]`` are the smallest/largest training value with code ``c``;
a split between codes is placed midway between the largest value sent left and the smallest sent
right, exactly like scikit-learn's exact splitter.

Search kinds: a numeric feature whose histogram is small (codes x classes <= HISTOGRAM_CELLS) is
searched by histogram even in exact mode (same result, less work); the others are presorted once
and kept sorted through stable partitions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from treebound._kernels.coding_passes import (
    column_ranges,
    gather_codes_t,
    map_codes,
    map_small_codes,
    narrow_codes,
    offset_codes,
    small_integer_ranks,
    transpose_columns,
    widen_codes,
)
from treebound._kernels.growth_state import KIND_CATEGORICAL, KIND_HISTOGRAM, KIND_PRESORTED

#: In exact mode a numeric feature is histogram-searched when codes x statistics <= this.
HISTOGRAM_CELLS = 4096
#: A numeric feature whose training values all lie within this distance is constant: one code,
#: never tested (scikit-learn's FEATURE_THRESHOLD, which it also applies between consecutive
#: values inside a node; treebound does not, so that predictions stay invariant to increasing
#: transforms that do not squeeze a whole feature into this width).
FEATURE_THRESHOLD = 1e-7
#: Value-table entries (int32) pooled for coding integer columns, on top of 16 per sample.
_TABLE_ENTRIES = 2**20


@dataclass
class CodedFeatures:
    codes: np.ndarray  # (n_features, n_samples) int32; rows of codes_t features may be unfilled
    codes_t: np.ndarray  # (n_samples, n_hist) uint8: non-presorted features with <= 256 codes
    n_codes: np.ndarray  # (n_features,) int64
    kind: np.ndarray  # (n_features,) int64
    lo_values: np.ndarray  # pooled float64
    hi_values: np.ndarray
    value_offset: np.ndarray  # (n_features,) int64
    #: (n_features,) int64: the code of a missing value (the last one), -1 without missing values
    missing_code: np.ndarray | None = None


def _bin_unique_values(counts: np.ndarray, max_bins: int) -> np.ndarray:
    """Bin index of each distinct value so bins hold about n / max_bins samples each."""
    n = counts.sum()
    before = np.cumsum(counts) - counts
    raw = np.minimum((before * max_bins) // n, max_bins - 1)
    # dense renumbering (raw is non-decreasing, possibly with gaps)
    return np.concatenate([[0], np.cumsum(raw[1:] != raw[:-1])]).astype(np.int64)


def _mostly_distinct(col: np.ndarray) -> bool:
    """Whether most values of a column are distinct, judged on about 1,024 evenly spaced rows."""
    sample = col[:: max(1, col.shape[0] // 1024)]
    return 2 * np.unique(sample).shape[0] > sample.shape[0]


def code_features(X_enc: np.ndarray, n_categories: np.ndarray, splitter: str, max_bins: int,
                  width: int) -> CodedFeatures:
    """Codes, search kinds and value ranges of every column of the encoded matrix.

    ``width`` is the number of statistics per code (classes, or 3 for regression).
    """
    X = np.ascontiguousarray(X_enc, dtype=np.float64)
    n, d = X.shape
    lo_x, hi_x = np.empty(d, dtype=np.float64), np.empty(d, dtype=np.float64)
    integral = np.empty(d, dtype=np.bool_)
    column_ranges(X, lo_x, hi_x, integral)
    # Small-range integer columns (the common case) are coded by value tables in row-major
    # passes over X: no transposed copy, no sort. Tables are pooled up to a memory budget.
    size = np.where(integral & (n_categories == 0) & (hi_x - lo_x <= 4 * n + 1024),
                    hi_x - lo_x + 1, 0).astype(np.int64)
    tabled = (size > 0) & (np.cumsum(size) <= _TABLE_ENTRIES + 16 * n)
    table_cols = np.flatnonzero(tabled).astype(np.int64)
    table_offset = np.concatenate([[0], np.cumsum(size[table_cols])]).astype(np.int64)
    table = np.zeros(table_offset[-1], dtype=np.int32)
    # counts are only needed when the values may have to be binned
    counted = (size[table_cols] > max_bins) & (splitter == "hist")
    codes = np.empty((d, n), dtype=np.int32)
    # Columns spanning <= 256 values go through a sample-major uint8 matrix (which is also
    # the codes_t the histogram blocks want), the others straight to codes.
    narrow = (size[table_cols] <= 256) & ~counted
    narrow_cols = table_cols[narrow]
    small = np.empty((n, d), dtype=np.uint8)
    seen = np.zeros(4 * d, dtype=np.uint64)
    if narrow_cols.shape[0]:
        narrow_codes(X, lo_x, small, seen)
    present_small = np.unpackbits(seen.view(np.uint8), bitorder="little").reshape(d, 256)
    offset_codes(X, table_cols[~narrow], lo_x, counted[~narrow], table_offset[:-1][~narrow],
                 table, codes)
    rest = np.flatnonzero(~tabled)
    columns = np.empty((rest.shape[0], n), dtype=np.float64)
    if rest.shape[0]:
        transpose_columns(X, rest.astype(np.int64), columns)
    n_codes = np.empty(d, dtype=np.int64)
    missing_code = np.full(d, -1, dtype=np.int64)
    kind = np.empty(d, dtype=np.int64)
    lo_parts, hi_parts = [], []
    value_offset = np.zeros(d, dtype=np.int64)
    pos = 0
    for j in range(d):
        value_offset[j] = pos
        if tabled[j]:
            h = int(np.searchsorted(table_cols, j))
            seg = (present_small[j, : size[j]] if narrow[h]
                   else table[table_offset[h] : table_offset[h + 1]])
            present = np.flatnonzero(seg)
            uniq = lo_x[j] + present.astype(np.float64)
            q, lo, hi, kind[j], code_of_unique = _code_values(uniq, seg[present], splitter,
                                                              max_bins, width)
            if q < seg.shape[0]:  # codes hold value - lo: map them to ranks / bins
                if narrow[h]:
                    mapping = np.zeros(256, dtype=np.uint8)
                    mapping[present] = code_of_unique
                    map_small_codes(small, j, mapping)
                else:
                    seg[present] = code_of_unique
                    map_codes(codes, j, table, table_offset[h])
        else:
            col = columns[int(np.searchsorted(rest, j))]
            missing = np.isnan(col)
            if missing.any():
                # a NaN column is never tabled (NaN is not an integer): code its values, then
                # give the missing rows the code after them
                q, lo, hi, kind[j], present = _code_column(col[~missing], n_categories[j],
                                                           splitter, max_bins, width, True)
                codes[j] = np.where(missing, q, 0)
                codes[j][~missing] = present
                missing_code[j] = q
                n_codes[j] = q + 1
                if n_categories[j] == 0:  # categorical features have no value ranges
                    lo_parts.append(np.append(lo, np.nan))
                    hi_parts.append(np.append(hi, np.nan))
                    pos += q + 1
                continue
            if n_categories[j] > 0:
                codes[j] = col.astype(np.int32)
                n_codes[j] = n_categories[j]
                kind[j] = KIND_CATEGORICAL
                continue
            ranks = np.empty(n, dtype=np.int64)
            uniq = small_integer_ranks(col, ranks)  # O(n) for small-range integer columns
            small_ints = uniq.shape[0] > 0
            by_rank = small_ints or _mostly_distinct(col)
            if small_ints:
                counts = np.bincount(ranks, minlength=uniq.shape[0])
            elif by_rank:
                # mostly distinct values: the rank of every row from an argsort beats a binary
                # search of every row among many codes (4x on magic's columns)
                uniq, ranks, counts = np.unique(col, return_inverse=True, return_counts=True)
            else:
                # few distinct values: a sort and a search among them beat an argsort (3x on
                # kddcup's columns)
                uniq, counts = np.unique(col, return_counts=True)
            q, lo, hi, kind[j], code_of_unique = _code_values(uniq, counts, splitter, max_bins,
                                                              width)
            # a value's code is the first whose largest value is >= it
            codes[j] = code_of_unique[ranks] if by_rank else np.searchsorted(hi, col)
        n_codes[j] = q
        lo_parts.append(lo)
        hi_parts.append(hi)
        pos += q
    empty = np.empty(0, dtype=np.float64)
    hist_features = np.flatnonzero((kind != KIND_PRESORTED) & (n_codes <= 256))
    if narrow_cols.shape[0] < d:
        small = np.ascontiguousarray(small[:, narrow_cols])
    if np.array_equal(hist_features, narrow_cols):
        # the growth kernels read block features from codes_t only: their int32 rows stay
        # unfilled (writing them cost as much as coding)
        codes_t = small
    else:
        widen_codes(small, narrow_cols, codes)
        codes_t = np.empty((n, hist_features.shape[0]), dtype=np.uint8)
        gather_codes_t(codes, hist_features.astype(np.int64), codes_t)
    return CodedFeatures(
        codes=codes,
        codes_t=codes_t,
        n_codes=n_codes,
        kind=kind,
        lo_values=np.concatenate(lo_parts).astype(np.float64) if lo_parts else empty,
        hi_values=np.concatenate(hi_parts).astype(np.float64) if hi_parts else empty,
        value_offset=value_offset,
        missing_code=missing_code,
    )


def _code_column(col: np.ndarray, n_levels: int, splitter: str, max_bins: int, width: int,
                 with_missing: bool):
    """Codes of the values of one column (no NaN): ``(n_codes, lo, hi, kind, codes)``, the
    categorical levels kept as codes (``n_levels`` > 0). ``with_missing``: a missing code will
    follow the values' (it counts towards the histogram cells of the exact splitter's choice).
    """
    if n_levels > 0:
        empty = np.empty(0, dtype=np.float64)
        return int(n_levels), empty, empty, KIND_CATEGORICAL, col.astype(np.int32)
    if col.shape[0] == 0:  # every value missing: only the missing code
        empty = np.empty(0, dtype=np.float64)
        return 0, empty, empty, KIND_HISTOGRAM, np.empty(0, dtype=np.int32)
    uniq, ranks, counts = np.unique(col, return_inverse=True, return_counts=True)
    q, lo, hi, kind, code_of_unique = _code_values(uniq, counts, splitter, max_bins, width,
                                                   extra_codes=int(with_missing))
    return q, lo, hi, kind, code_of_unique[ranks].astype(np.int32)


def _code_values(uniq: np.ndarray, counts: np.ndarray, splitter: str, max_bins: int,
                 width: int, extra_codes: int = 0):
    """Code of each distinct value of a numeric column, its search kind and each code's value
    range: ``(n_codes, lo, hi, kind, code_of_unique)``. ``extra_codes`` (the missing code)
    count towards the histogram size that decides the exact splitter's search kind. A column
    spanning at most ``FEATURE_THRESHOLD`` has one code."""
    if uniq.shape[0] > 1 and uniq[-1] - uniq[0] <= FEATURE_THRESHOLD:
        total = 1 + extra_codes
        use_hist = splitter == "hist" or (total <= 256 and total * width <= HISTOGRAM_CELLS)
        return (1, uniq[:1], uniq[-1:], KIND_HISTOGRAM if use_hist else KIND_PRESORTED,
                np.zeros(uniq.shape[0], dtype=np.int64))
    if splitter == "hist" and uniq.shape[0] > max_bins:
        code_of_unique = _bin_unique_values(counts, max_bins)
        q = int(code_of_unique[-1]) + 1
        first = np.searchsorted(code_of_unique, np.arange(q), side="left")
        last = np.searchsorted(code_of_unique, np.arange(q), side="right") - 1
        return q, uniq[first], uniq[last], KIND_HISTOGRAM, code_of_unique
    q = uniq.shape[0]
    total = q + extra_codes
    use_hist = splitter == "hist" or (total <= 256 and total * width <= HISTOGRAM_CELLS)
    return (q, uniq, uniq, KIND_HISTOGRAM if use_hist else KIND_PRESORTED,
            np.arange(q, dtype=np.int64))
