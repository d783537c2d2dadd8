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

from treebound._config import read_only
from treebound._kernels.coding_passes import (
    column_ranges,
    finish_layout,
    gather_codes_t,
    narrow_codes,
    offset_codes,
    plan_value_tables,
    widen_codes,
)
from treebound._kernels.growth_state import KIND_CATEGORICAL, KIND_HISTOGRAM, KIND_PRESORTED
from treebound._kernels.value_coding import (
    code_sorted_columns,
    code_table_columns,
    map_narrow_codes,
    map_table_codes,
)

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
    #: whether ``codes_t`` holds every feature in column order and each code is one value:
    #: then ``X[i, j] == lo_values[value_offset[j] + codes_t[i, j]]`` (:meth:`coded_rows`)
    exact: bool = False

    def coded_rows(self) -> CodedRows | None:
        """The coded rows as a :class:`CodedRows` (an eighth of the float64 matrix), when
        :attr:`exact`; else None."""
        if not self.exact:
            return None
        return CodedRows(self.codes_t, self.lo_values, self.value_offset)


@dataclass(frozen=True)
class CodedRows:
    """A float64 matrix kept as ``uint8`` codes and the value of each code:
    ``X[i, j] == values[offset[j] + codes[i, j]]``. Feature coding gives it for a matrix of
    small-range integers (:meth:`CodedFeatures.coded_rows`); nothing writes its arrays.

    Equal as numbers, and bit for bit except that a ``-0.0`` comes back as ``+0.0`` (the code's
    value is the column's smallest value plus an offset): what reads the rows (routing, the
    compression set's neighbour values, their midpoints, rows of equal value) only compares and
    adds values, where the two zeros are one number (tested on certificates)."""

    codes: np.ndarray  # (n_rows, n_features) uint8
    values: np.ndarray  # float64
    offset: np.ndarray  # (n_features,) int64

    @property
    def shape(self) -> tuple[int, int]:
        return self.codes.shape

    def toarray(self) -> np.ndarray:
        """The float64 matrix (C order)."""
        return self.values[self.offset[None, :] + self.codes]


def _bin_unique_values(counts: np.ndarray, max_bins: int) -> np.ndarray:
    """Bin index of each distinct value so bins hold about n / max_bins samples each."""
    n = counts.sum()
    before = np.cumsum(counts) - counts
    raw = np.minimum((before * max_bins) // n, max_bins - 1)
    # dense renumbering (raw is non-decreasing, possibly with gaps)
    return np.concatenate([[0], np.cumsum(raw[1:] != raw[:-1])]).astype(np.int64)


#: ``mapping[j, c] = c``: the map of a column whose codes are its values' offsets.
_IDENTITY_MAP = np.arange(256, dtype=np.uint8)

#: Entries of the sorted copies of columns made at once (float64; about 32 MiB).
_SORT_ENTRIES = 2**22


def code_features(X_enc: np.ndarray, n_categories: np.ndarray, splitter: str, max_bins: int,
                  width: int, ranges: tuple | None = None) -> CodedFeatures:
    """Codes, search kinds and value ranges of every column of the encoded matrix.

    ``width`` is the number of statistics per code (classes, or 3 for regression). Every
    numeric column is coded by compiled passes over all columns at once
    (:mod:`treebound._kernels.value_coding`); only categorical columns take a step of Python.
    ``ranges``: the ``(lo, hi, integral)`` of the columns that
    :func:`~treebound._kernels.coding_passes.column_ranges` gives, when the caller has them.
    """
    X = np.ascontiguousarray(X_enc, dtype=np.float64)
    n, d = X.shape
    hist = splitter == "hist"
    if ranges is None:
        lo_x, hi_x = np.empty(d, dtype=np.float64), np.empty(d, dtype=np.float64)
        integral = np.empty(d, dtype=np.bool_)
        column_ranges(read_only(X), lo_x, hi_x, integral)
    else:
        lo_x, hi_x, integral = ranges
    # Small-range integer columns (the common case) are coded by value tables in row-major
    # passes over X: no transposed copy, no sort. Tables are pooled up to a memory budget.
    # Counts are only needed when the values may have to be binned ("counted"). Columns
    # spanning <= 256 values ("narrow") go through a sample-major uint8 matrix (which is also
    # the codes_t the histogram blocks want), the others straight to codes.
    plan = np.empty((4, d + 1), dtype=np.int64)
    flags = np.empty((2, d), dtype=np.bool_)
    k = plan_value_tables(lo_x, hi_x, integral, n_categories, 4 * n + 1024,
                          _TABLE_ENTRIES + 16 * n, max_bins, hist, plan[0], plan[1], plan[2],
                          flags[0], flags[1], plan[3])
    table_cols, table_size, table_offset = plan[0, :k], plan[1, :k], plan[2, : k + 1]
    counted, narrow = flags[0, :k], flags[1, :k]
    table = np.zeros(table_offset[-1], dtype=np.int32)
    codes = np.empty((d, n), dtype=np.int32)
    narrow_cols = table_cols[narrow]
    small = np.empty((n, d), dtype=np.uint8)
    seen = np.zeros(4 * d, dtype=np.uint64)
    if narrow_cols.shape[0]:
        narrow_codes(X, lo_x, small, seen)
    present_small = np.unpackbits(seen.view(np.uint8), bitorder="little").reshape(d, 256)
    all_narrow = narrow_cols.shape[0] == k
    if not all_narrow:
        offset_codes(X, table_cols[~narrow], lo_x, counted[~narrow],
                     table_offset[:-1][~narrow], table, codes)
    n_codes = np.empty(d, dtype=np.int64)
    missing_code = np.full(d, -1, dtype=np.int64)
    kind = np.empty(d, dtype=np.int64)
    # value ranges: each group of columns writes a pool; start[j] is column j's entry in the
    # concatenated pools and length[j] its number of codes with a value range
    pools_lo, pools_hi = [], []
    start = np.zeros(d, dtype=np.int64)
    length = np.zeros(d, dtype=np.int64)
    used = 0
    if table_cols.shape[0]:
        mapping = np.empty((d, 256), dtype=np.uint8)
        mapping[:] = _IDENTITY_MAP
        remap = np.zeros(table_cols.shape[0], dtype=np.bool_)
        table_starts = np.empty(table_cols.shape[0], dtype=np.int64)
        lo_pool = np.empty(table_offset[-1], dtype=np.float64)
        hi_pool = np.empty(table_offset[-1], dtype=np.float64)
        code_table_columns(table_cols, table_size, lo_x, narrow, present_small, table,
                           table_offset, hist, max_bins, width, HISTOGRAM_CELLS,
                           FEATURE_THRESHOLD, n_codes, kind, lo_pool, hi_pool, table_starts,
                           mapping, remap)
        if remap[narrow].any():
            map_narrow_codes(small, mapping)
        if not all_narrow:
            map_table_codes(codes, table_cols, remap & ~narrow, table, table_offset)
        start[table_cols] = table_starts
        length[table_cols] = n_codes[table_cols]
        pools_lo.append(lo_pool)
        pools_hi.append(hi_pool)
        used = lo_pool.shape[0]
    rest = plan[3, : d - k]
    # feature rows of the other columns: numpy's transposing copy (faster than a tiled kernel)
    if rest.shape[0]:
        columns = np.ascontiguousarray(X.T if rest.shape[0] == d else X[:, rest].T)
        numeric = n_categories[rest] == 0
        numeric_pos = np.flatnonzero(numeric)
        categorical_pos = np.flatnonzero(~numeric)
    else:  # every column went through the tables (small-range integers)
        numeric_pos = categorical_pos = rest
    # numeric columns: sorted copies (NaN last) in chunks, coded by one kernel call each
    step = max(1, _SORT_ENTRIES // max(n, 1))
    for begin in range(0, numeric_pos.shape[0], step):
        pos = numeric_pos[begin : begin + step]
        # the transposed columns themselves when they are all of this chunk (no copy)
        chunk = columns if pos.shape[0] == columns.shape[0] else columns[pos]
        sorted_chunk = np.sort(chunk, axis=1)
        lo_pool = np.empty(chunk.shape[0] * (n + 1), dtype=np.float64)
        hi_pool = np.empty_like(lo_pool)
        chunk_starts = np.empty(chunk.shape[0], dtype=np.int64)
        cols = rest[pos].astype(np.int64)
        filled = code_sorted_columns(chunk, sorted_chunk, cols, hist, max_bins, width,
                                     HISTOGRAM_CELLS, FEATURE_THRESHOLD, codes, n_codes, kind,
                                     missing_code, lo_pool, hi_pool, chunk_starts)
        start[cols] = chunk_starts + used
        length[cols] = n_codes[cols]
        pools_lo.append(lo_pool[:filled])
        pools_hi.append(hi_pool[:filled])
        used += filled
    for h in categorical_pos:  # categorical columns keep their level codes
        j = rest[h]
        col = columns[h]
        missing = np.isnan(col)
        codes[j] = np.where(missing, n_categories[j], col).astype(np.int32)
        kind[j] = KIND_CATEGORICAL
        n_codes[j] = n_categories[j]
        if missing.any():
            missing_code[j] = n_categories[j]
            n_codes[j] += 1
    value_offset = np.empty(d, dtype=np.int64)
    hist_features = np.empty(d, dtype=np.int64)
    total, n_hist, starts_in_order, hist_narrow = finish_layout(
        length, start, kind, n_codes, KIND_PRESORTED, narrow_cols, value_offset, hist_features)
    hist_features = hist_features[:n_hist]
    if len(pools_lo) == 1 and starts_in_order:
        # the value tables alone, one column after the other: nothing to reorder
        lo_values, hi_values = pools_lo[0][:total], pools_hi[0][:total]
    elif total:
        take = np.repeat(start - value_offset, length) + np.arange(total, dtype=np.int64)
        lo_values = np.concatenate(pools_lo)[take]
        hi_values = np.concatenate(pools_hi)[take]
    else:
        lo_values = hi_values = np.empty(0, dtype=np.float64)
    if narrow_cols.shape[0] < d:
        small = np.ascontiguousarray(small[:, narrow_cols])
    exact = False
    if hist_narrow:
        # the growth kernels read block features from codes_t only: their int32 rows stay
        # unfilled (writing them cost as much as coding)
        codes_t = small
        # every column a small-range integer one, none binned: the codes are the values
        exact = (narrow_cols.shape[0] == d and lo_values.shape[0] == int(n_codes.sum())
                 and np.array_equal(lo_values, hi_values))
    else:
        widen_codes(small, narrow_cols, codes)
        codes_t = np.empty((n, hist_features.shape[0]), dtype=np.uint8)
        gather_codes_t(codes, hist_features.astype(np.int64), codes_t)
    return CodedFeatures(
        codes=codes,
        codes_t=codes_t,
        n_codes=n_codes,
        kind=kind,
        lo_values=lo_values,
        hi_values=hi_values,
        value_offset=value_offset,
        missing_code=missing_code,
        exact=bool(exact),
    )


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
