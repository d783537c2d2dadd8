"""The compiled feature coding (treebound._kernels.value_coding behind code_features) against a
naive oracle: np.unique per column, the reference rule ``_code_values`` and a binary search of
every value among its codes' largest values."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound._flat import _feature_coding
from treebound._flat._feature_coding import _code_values, code_features
from treebound._kernels.coding_passes import finish_layout, plan_value_tables
from treebound._kernels.growth_state import KIND_CATEGORICAL, KIND_HISTOGRAM, KIND_PRESORTED


def naive_coding(X, n_categories, splitter, max_bins, width):
    """Per column: codes, n_codes, kind, missing code and value ranges, the slow way."""
    n, d = X.shape
    out = []
    for j in range(d):
        col = X[:, j]
        missing = np.isnan(col)
        has_missing = bool(missing.any())
        if n_categories[j] > 0:
            q = int(n_categories[j])
            codes = np.where(missing, q, np.nan_to_num(col)).astype(np.int64)
            out.append((codes, q + has_missing, KIND_CATEGORICAL, q if has_missing else -1,
                        np.empty(0), np.empty(0)))
            continue
        values = col[~missing]
        if values.size == 0:
            q, lo, hi, kind = 0, np.empty(0), np.empty(0), KIND_HISTOGRAM
        else:
            uniq, counts = np.unique(values, return_counts=True)
            q, lo, hi, kind, _ = _code_values(uniq, counts, splitter, max_bins, width,
                                              extra_codes=int(has_missing))
        codes = np.where(missing, q, np.searchsorted(hi, np.where(missing, 0.0, col)))
        if has_missing:
            lo, hi = np.append(lo, np.nan), np.append(hi, np.nan)
        out.append((codes, q + has_missing, kind, q if has_missing else -1, lo, hi))
    return out


def check_against_oracle(X, n_categories, splitter, max_bins, width):
    coded = code_features(X, n_categories, splitter, max_bins, width)
    expected = naive_coding(X, n_categories, splitter, max_bins, width)
    hist_features = np.flatnonzero((coded.kind != KIND_PRESORTED) & (coded.n_codes <= 256))
    assert coded.codes_t.shape == (X.shape[0], hist_features.shape[0])
    for j, (codes, q, kind, missing, lo, hi) in enumerate(expected):
        assert coded.n_codes[j] == q, j
        assert coded.kind[j] == kind, j
        assert coded.missing_code[j] == missing, j
        start = coded.value_offset[j]
        np.testing.assert_array_equal(coded.lo_values[start : start + lo.shape[0]], lo)
        np.testing.assert_array_equal(coded.hi_values[start : start + hi.shape[0]], hi)
        position = np.flatnonzero(hist_features == j)
        # block features are read from codes_t only (their int32 rows may be unfilled)
        got = coded.codes_t[:, position[0]] if position.size else coded.codes[j]
        np.testing.assert_array_equal(got, codes, err_msg=f"feature {j}")
    lengths = [e[4].shape[0] for e in expected]
    assert coded.lo_values.shape[0] == sum(lengths)
    np.testing.assert_array_equal(coded.value_offset, np.cumsum([0] + lengths)[:-1])


@st.composite
def coding_inputs(draw):
    n = draw(st.integers(1, 70))
    d = draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    X = np.empty((n, d))
    n_categories = np.zeros(d, dtype=np.int64)
    for j in range(d):
        shape = draw(st.sampled_from(["small int", "wide int", "spread int", "few floats",
                                      "floats", "near constant", "negative zero",
                                      "categorical"]))
        if shape == "small int":
            col = rng.integers(-3, draw(st.integers(-2, 300)), n).astype(float)
        elif shape == "wide int":  # a value table wider than 256 entries
            col = rng.integers(0, 400 + 4 * n, n).astype(float)
        elif shape == "spread int":  # too wide for a value table: sorted
            col = rng.integers(-10**9, 10**9, n).astype(float)
        elif shape == "few floats":
            col = rng.choice(rng.normal(size=draw(st.integers(1, 8))), n)
        elif shape == "floats":
            col = rng.lognormal(sigma=3, size=n) * rng.choice([-1, 1], n)
        elif shape == "near constant":
            col = 5.0 + rng.integers(0, 3, n) * 3e-8
        elif shape == "negative zero":
            col = rng.choice([-0.0, 0.0, 1.5], n)
        else:
            n_categories[j] = draw(st.integers(1, 5))
            col = rng.integers(0, n_categories[j], n).astype(float)
        if shape != "small int" and draw(st.booleans()):
            col[rng.random(n) < draw(st.sampled_from([0.1, 0.5, 1.0]))] = np.nan
        X[:, j] = col
    splitter = draw(st.sampled_from(["hist", "best"]))
    max_bins = draw(st.sampled_from([2, 3, 16, 255]))
    width = draw(st.sampled_from([2, 3, 200]))
    return X, n_categories, splitter, max_bins, width


@settings(max_examples=150, deadline=None)
@given(coding_inputs())
def test_code_features_matches_the_naive_coding(inputs):
    check_against_oracle(*inputs)


@settings(max_examples=40, deadline=None)
@given(coding_inputs())
def test_code_features_in_chunks_of_one_column(inputs):
    # the sorted copies are made a few columns at a time on large inputs
    with mock.patch.object(_feature_coding, "_SORT_ENTRIES", 1):
        check_against_oracle(*inputs)


def test_code_features_matches_the_naive_coding_on_iris_and_large_ranges():
    from sklearn.datasets import load_iris

    X = load_iris().data
    for splitter in ("hist", "best"):
        for max_bins in (4, 255):
            check_against_oracle(X, np.zeros(4, dtype=np.int64), splitter, max_bins, 3)
    rng = np.random.default_rng(0)
    # huge spans (the bucket scale underflows / the offsets overflow to inf)
    X = np.column_stack([rng.choice([-1e308, 0.0, 1e308], 50), rng.normal(size=50) * 1e300])
    with np.errstate(over="ignore"):
        check_against_oracle(X, np.zeros(2, dtype=np.int64), "best", 255, 2)
        check_against_oracle(X, np.zeros(2, dtype=np.int64), "hist", 3, 2)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.0, -3.0, 1e300, np.inf, -np.inf, np.nan]),
                          st.integers(-2, 600), st.booleans(), st.sampled_from([0, 0, 0, 3])),
                min_size=1, max_size=12),
       st.integers(1, 50), st.integers(2, 300), st.booleans(), st.integers(0, 2000))
def test_plan_value_tables_matches_numpy(columns, n, max_bins, hist, budget):
    """The one-pass table plan equals the numpy formulas it replaced (cumulative span budget,
    NaN and infinite ranges, categorical and non-integer columns)."""
    d = len(columns)
    lo = np.array([c[0] for c in columns])
    hi = lo + np.array([c[1] for c in columns], dtype=np.float64)
    integral = np.array([c[2] for c in columns])
    n_categories = np.array([c[3] for c in columns], dtype=np.int64)
    limit = 4 * n + 1024
    with np.errstate(invalid="ignore"):
        size = np.where(integral & (n_categories == 0) & (hi - lo <= limit), hi - lo + 1,
                        0).astype(np.int64)
    tabled = (size > 0) & (np.cumsum(size) <= budget)
    table_cols = np.flatnonzero(tabled)
    table_size = size[table_cols]
    counted = (table_size > max_bins) & hist
    plan = np.full((4, d + 1), -7, dtype=np.int64)
    flags = np.zeros((2, d), dtype=np.bool_)
    k = plan_value_tables(lo, hi, integral, n_categories, limit, budget, max_bins, hist,
                          plan[0], plan[1], plan[2], flags[0], flags[1], plan[3])
    assert k == table_cols.shape[0]
    np.testing.assert_array_equal(plan[0, :k], table_cols)
    np.testing.assert_array_equal(plan[1, :k], table_size)
    np.testing.assert_array_equal(plan[2, : k + 1], np.concatenate([[0], np.cumsum(table_size)]))
    np.testing.assert_array_equal(flags[0, :k], counted)
    np.testing.assert_array_equal(flags[1, :k], (table_size <= 256) & ~counted)
    np.testing.assert_array_equal(plan[3, : d - k], np.flatnonzero(~tabled))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 300), st.integers(0, 40), st.integers(0, 2),
                          st.booleans()), min_size=1, max_size=12),
       st.booleans())
def test_finish_layout_matches_numpy(columns, shuffle_starts):
    """The one-pass offsets and block features equal the numpy formulas they replaced."""
    d = len(columns)
    n_codes = np.array([c[0] for c in columns], dtype=np.int64)
    length = np.array([c[1] for c in columns], dtype=np.int64)
    kind = np.array([c[2] for c in columns], dtype=np.int64)
    value_offset_ref = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64)
    start = value_offset_ref[::-1].copy() if shuffle_starts else value_offset_ref.copy()
    hist_ref = np.flatnonzero((kind != KIND_PRESORTED) & (n_codes <= 256))
    narrow_cols = np.flatnonzero([c[3] for c in columns]).astype(np.int64)
    value_offset = np.full(d, -7, dtype=np.int64)
    hist_features = np.full(d, -7, dtype=np.int64)
    total, n_hist, starts_equal, same = finish_layout(length, start, kind, n_codes,
                                                      KIND_PRESORTED, narrow_cols, value_offset,
                                                      hist_features)
    assert total == int(length.sum())
    np.testing.assert_array_equal(value_offset, value_offset_ref)
    np.testing.assert_array_equal(hist_features[:n_hist], hist_ref)
    assert starts_equal == np.array_equal(start, value_offset_ref)
    assert same == np.array_equal(hist_ref, narrow_cols)
