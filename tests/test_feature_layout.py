"""The one-pass feature layout of the growth kernels against the numpy formulas it replaced."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound._kernels.growth_state import (
    BLOCK_MAX_CODES,
    KIND_CATEGORICAL,
    KIND_HISTOGRAM,
    KIND_PRESORTED,
    all_unit_weights,
    feature_layout,
)


def naive_layout(kind, n_codes, width, unit_weights, max_block_rows):
    presorted_f = kind == KIND_PRESORTED
    in_block = ~presorted_f & (n_codes <= BLOCK_MAX_CODES)
    n_block = int(in_block.sum())
    slot_codes = n_codes[in_block]
    cells = slot_codes * width
    return dict(
        presort_row=np.where(presorted_f, np.cumsum(presorted_f) - 1, -1),
        block_slot=np.where(in_block, np.cumsum(in_block) - 1, -1),
        hist_offset=np.cumsum(cells) - cells,
        count_offset=np.cumsum(slot_codes) - slot_codes,
        slot_codes=slot_codes,
        n_presorted=int(presorted_f.sum()),
        n_block=n_block,
        block_size=int(cells.sum()),
        count_size=0 if unit_weights else int(slot_codes.sum()),
        min_cells=int(np.where(kind[in_block] == KIND_HISTOGRAM, cells, 0).min()) if n_block
        else int(np.iinfo(np.int64).max),
        cat_codes=int(n_codes[kind == KIND_CATEGORICAL].sum()),
        max_block_rows=max_block_rows if n_block > 0 and max_block_rows >= 2 else 0,
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([KIND_PRESORTED, KIND_HISTOGRAM, KIND_CATEGORICAL]),
                          st.sampled_from([0, 1, 2, 7, 255, 256, 257, 4000])), max_size=12),
       st.integers(1, 9), st.booleans(), st.integers(0, 5))
def test_feature_layout_matches_numpy(features, width, unit_weights, max_block_rows):
    kind = np.array([f[0] for f in features], dtype=np.int64)
    n_codes = np.array([f[1] for f in features], dtype=np.int64)
    layout = feature_layout(kind, n_codes, width, unit_weights, max_block_rows)
    expected = naive_layout(kind, n_codes, width, unit_weights, max_block_rows)
    for name, value in expected.items():
        got = getattr(layout, name)
        if isinstance(value, np.ndarray):
            assert got.dtype == np.int64, name
            np.testing.assert_array_equal(got, value, err_msg=name)
        else:
            assert got == value and isinstance(got, int), name


@given(st.lists(st.sampled_from([1.0, 1.0, 0.0, 2.0, np.nan, np.inf, 1.0 + 1e-16, 1.0 - 1e-16]),
                max_size=8))
def test_all_unit_weights_matches_numpy(weights):
    w = np.array(weights, dtype=np.float64)
    assert all_unit_weights(w) == bool(np.all(w == 1.0))
