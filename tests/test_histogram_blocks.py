"""Histogram blocks (_kernels/histograms.py) against a naive oracle: a block built, or samples
removed from it, holds for every active feature the weighted class counts (and sample counts)
of the node's rows per code, whether every block feature is active (the loop without the slot
indirection) or only some are (the loop through ``active``)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound._kernels.criteria import TASK_CLASSIFICATION
from treebound._kernels.histograms import build_block, remove_samples


def _oracle(rows, codes_t, y, w, width, slot_codes, slots, sign=1.0):
    """Per slot: ``(n_codes, width)`` sums of ``sign * w`` and ``(n_codes,)`` row counts."""
    stats, counts = {}, {}
    for h in slots:
        s = np.zeros((slot_codes[h], width))
        c = np.zeros(slot_codes[h], dtype=np.int64)
        for r in rows:
            s[codes_t[r, h], y[r]] += sign * w[r]
            c[codes_t[r, h]] += int(sign)
        stats[h], counts[h] = s, c
    return stats, counts


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 40), n_block=st.integers(1, 6),
       width=st.integers(1, 4), unit=st.booleans())
def test_blocks_match_the_naive_counts(data, n, n_block, width, unit):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    slot_codes = rng.integers(1, 6, size=n_block).astype(np.int64)
    codes_t = np.stack([rng.integers(0, k, size=n) for k in slot_codes], axis=1).astype(np.uint8)
    y = rng.integers(0, width, size=n).astype(np.int32)
    w = np.ones(n) if unit else rng.integers(1, 5, size=n).astype(np.float64)
    cells = slot_codes * width
    hist_offset = (np.cumsum(cells) - cells).astype(np.int64)
    count_offset = (np.cumsum(slot_codes) - slot_codes).astype(np.int64)
    samples = rng.permutation(n).astype(np.int32).reshape(1, n)
    start = data.draw(st.integers(0, n - 1))
    end = data.draw(st.integers(start, n))
    every = data.draw(st.booleans())
    slots = np.arange(n_block) if every else np.sort(rng.choice(
        n_block, size=data.draw(st.integers(1, n_block)), replace=False))
    active = np.zeros(n_block, dtype=np.int64)
    active[: slots.shape[0]] = slots
    block_size, count_size = int(cells.sum()), int(slot_codes.sum())
    boff, coff = block_size, count_size  # the second row of a pool of three
    blocks = np.full(3 * block_size, np.nan)
    counts = np.full(3 * count_size, -7, dtype=np.int64)
    build_block(samples, start, end, codes_t, y, np.zeros(1), w, TASK_CLASSIFICATION, width,
                hist_offset, count_offset, slot_codes, active, slots.shape[0], blocks, boff,
                counts, coff, True)
    rows = samples[0, start:end]
    stats, count = _oracle(rows, codes_t, y, w, width, slot_codes, slots)
    for h in slots:
        got = blocks[boff + hist_offset[h]: boff + hist_offset[h] + cells[h]]
        np.testing.assert_array_equal(got.reshape(slot_codes[h], width), stats[h])
        got_counts = counts[coff + count_offset[h]: coff + count_offset[h] + slot_codes[h]]
        np.testing.assert_array_equal(got_counts, count[h])
    # the rows of the other pool entries are untouched
    assert np.isnan(blocks[:boff]).all() and np.isnan(blocks[2 * block_size:]).all()
    assert (counts[:coff] == -7).all() and (counts[2 * count_size:] == -7).all()
    # removing the first rows of the node leaves the counts of the others
    cut = data.draw(st.integers(start, end))
    remove_samples(samples, start, cut, codes_t, y, np.zeros(1), w, TASK_CLASSIFICATION, width,
                   hist_offset, count_offset, active, slots.shape[0], blocks, boff, counts, coff,
                   True)
    stats, count = _oracle(samples[0, cut:end], codes_t, y, w, width, slot_codes, slots)
    for h in slots:
        got = blocks[boff + hist_offset[h]: boff + hist_offset[h] + cells[h]]
        np.testing.assert_array_equal(got.reshape(slot_codes[h], width), stats[h])
        got_counts = counts[coff + count_offset[h]: coff + count_offset[h] + slot_codes[h]]
        np.testing.assert_array_equal(got_counts, count[h])
