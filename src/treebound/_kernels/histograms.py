"""Per-node histogram blocks: the statistics of every block feature at once.

Blocks live in one flat pool; the block of a node starts at ``boff``. For block feature ``j`` it
holds ``width`` statistics per code at ``blocks[boff + hist_offset[j] + code * width + k]`` and,
only when sample weights are not all 1, the sample count per code in a parallel count pool. A
block is built in one pass over the node's samples reading the sample-major code matrix
``codes_t`` (one cache line per sample instead of one per feature), and a split derives the
biggest child's block as parent minus the smaller children (LightGBM's subtraction trick), so
large children cost nothing to histogram.

Only the *active* block features of a node are kept up to date (``active[:n_active]``, block
slots): a feature found constant in a node is constant in all its descendants and never searched
again there, so its part of the block is neither zeroed, filled nor subtracted (LightGBM and
scikit-learn skip such features the same way).
"""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_INLINE_JIT_OPTIONS, NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.criteria import TASK_REGRESSION


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def _accumulate(samples, start, end, codes_t, y_cls, y_val, w, task, width, hist_offset,
                count_offset, active, n_active, blocks, boff, counts, coff, with_counts, sign):
    """Add (``sign = 1``) or remove (``sign = -1``) samples' statistics to/from a block."""
    regression = task == TASK_REGRESSION
    n_block = codes_t.shape[1]
    if not regression and 2 * n_active >= n_block:
        # At least half the block features are active (all of them at the root): every slot
        # is filled, ``a`` being column ``a`` of ``codes_t``. Without the indirection through
        # ``active`` the compiler computes a row's cell indices in vectors, which saves more
        # than the inactive features' cells cost (mushroom: the root block 1.35x faster, all
        # of growth 1.2x).
        # The inactive features' cells are neither zeroed nor read, here or in any
        # descendant (a feature constant in a node is constant in its children): what is
        # added there is never used. The active cells get the same additions in the same
        # order, so the same sums.
        for i in range(start, end):
            s = samples[0, i]
            ws = sign * w[s]
            k = boff + y_cls[s]
            for a in range(n_block):
                blocks[k + hist_offset[a] + np.intp(codes_t[s, a]) * width] += ws
            if with_counts:
                for a in range(n_block):
                    counts[coff + count_offset[a] + codes_t[s, a]] += np.int64(sign)
        return
    for i in range(start, end):
        s = samples[0, i]
        ws = sign * w[s]
        if regression:
            yv = y_val[s]
            wy = ws * yv
            wyy = wy * yv
            for a in range(n_active):
                j = active[a]
                base = boff + hist_offset[j] + np.intp(codes_t[s, j]) * 3
                blocks[base] += ws
                blocks[base + 1] += wy
                blocks[base + 2] += wyy
        else:
            k = boff + y_cls[s]
            for a in range(n_active):
                j = active[a]
                blocks[k + hist_offset[j] + np.intp(codes_t[s, j]) * width] += ws
        if with_counts:
            for a in range(n_active):
                j = active[a]
                counts[coff + count_offset[j] + codes_t[s, j]] += np.int64(sign)


@njit(**NO_NRT_JIT_OPTIONS)
def build_block(samples, start, end, codes_t, y_cls, y_val, w, task, width, hist_offset,
                count_offset, slot_codes, active, n_active, blocks, boff, counts, coff,
                with_counts):
    """Fill the active part of the block at ``boff`` (and its counts when ``with_counts``)."""
    for a in range(n_active):
        j = active[a]
        lo = boff + hist_offset[j]
        for i in range(lo, lo + slot_codes[j] * width):
            blocks[i] = 0.0
        if with_counts:
            lo = coff + count_offset[j]
            for i in range(lo, lo + slot_codes[j]):
                counts[i] = 0
    _accumulate(samples, start, end, codes_t, y_cls, y_val, w, task, width, hist_offset,
                count_offset, active, n_active, blocks, boff, counts, coff, with_counts, 1.0)


@njit(**NO_NRT_JIT_OPTIONS)
def remove_samples(samples, start, end, codes_t, y_cls, y_val, w, task, width, hist_offset,
                   count_offset, active, n_active, blocks, boff, counts, coff, with_counts):
    """Subtract samples ``samples[start:end]`` from the block at ``boff`` (and its counts)."""
    _accumulate(samples, start, end, codes_t, y_cls, y_val, w, task, width, hist_offset,
                count_offset, active, n_active, blocks, boff, counts, coff, with_counts, -1.0)


@njit(**NO_NRT_JIT_OPTIONS)
def subtract_block(width, hist_offset, count_offset, slot_codes, active, n_active, blocks, boff,
                   child_boff, counts, coff, child_coff, with_counts):
    """Active part of the block at ``boff`` -= the block at ``child_boff`` (and the counts)."""
    for a in range(n_active):
        j = active[a]
        lo = hist_offset[j]
        for i in range(lo, lo + slot_codes[j] * width):
            blocks[boff + i] -= blocks[child_boff + i]
        if with_counts:
            lo = count_offset[j]
            for i in range(lo, lo + slot_codes[j]):
                counts[coff + i] -= counts[child_coff + i]


@njit(**NO_NRT_INLINE_JIT_OPTIONS)
def counts_from_stats(hist, hoff, n_codes, width, task, out):
    """Sample counts per code from unit-weight statistics (class counts, or sum w)."""
    if task == TASK_REGRESSION:
        for b in range(n_codes):
            out[b] = np.int64(hist[hoff + b * 3] + 0.5)
    else:
        for b in range(n_codes):
            total = 0.0
            base = hoff + b * width
            for k in range(width):
                total += hist[base + k]
            out[b] = np.int64(total + 0.5)
