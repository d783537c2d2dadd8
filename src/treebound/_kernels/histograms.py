"""Per-node histogram blocks: the statistics of every histogram-searched feature at once.

A block holds, for every histogram feature ``j``, ``width`` statistics per code at
``block[hist_offset[j] + code * width + k]`` and the sample count per code at
``counts[count_offset[j] + code]``. It is built in one pass over the node's samples reading the
sample-major code matrix ``codes_t`` (one cache line per sample instead of one per feature), and
a split derives the biggest child's block as parent minus the smaller children (LightGBM's
subtraction trick), so large children cost nothing to histogram.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from treebound._config import JIT_OPTIONS
from treebound._kernels.criteria import TASK_REGRESSION


@njit(**JIT_OPTIONS)
def build_block(samples, start, end, codes_t, y_cls, y_val, w, task, width, hist_offset,
                count_offset, block, counts, with_counts):
    """Fill ``block`` (and ``counts`` when ``with_counts``) from samples ``samples[start:end]``.

    With unit sample weights the counts equal the summed statistics, so they are not stored
    (half the memory traffic); see :func:`counts_from_stats`.
    """
    block[:] = 0.0
    n_hist = hist_offset.shape[0]
    if not with_counts:
        if task == TASK_REGRESSION:
            for i in range(start, end):
                s = samples[i]
                yv = y_val[s]
                row = codes_t[s]
                for j in range(n_hist):
                    base = hist_offset[j] + row[j] * 3
                    block[base] += 1.0
                    block[base + 1] += yv
                    block[base + 2] += yv * yv
        else:
            for i in range(start, end):
                s = samples[i]
                k = y_cls[s]
                row = codes_t[s]
                for j in range(n_hist):
                    block[hist_offset[j] + row[j] * width + k] += 1.0
        return
    counts[:] = 0
    if task == TASK_REGRESSION:
        for i in range(start, end):
            s = samples[i]
            ws = w[s]
            yv = y_val[s]
            wy = ws * yv
            wyy = wy * yv
            row = codes_t[s]
            for j in range(n_hist):
                c = row[j]
                base = hist_offset[j] + c * 3
                block[base] += ws
                block[base + 1] += wy
                block[base + 2] += wyy
                counts[count_offset[j] + c] += 1
    else:
        for i in range(start, end):
            s = samples[i]
            ws = w[s]
            k = y_cls[s]
            row = codes_t[s]
            for j in range(n_hist):
                c = row[j]
                block[hist_offset[j] + c * width + k] += ws
                counts[count_offset[j] + c] += 1


@njit(**JIT_OPTIONS)
def subtract_block(block, counts, child_block, child_counts, with_counts):
    """``block -= child_block`` (and the counts when they are stored)."""
    for i in range(block.shape[0]):
        block[i] -= child_block[i]
    if with_counts:
        for i in range(counts.shape[0]):
            counts[i] -= child_counts[i]


@njit(**JIT_OPTIONS)
def counts_from_stats(f_hist, n_codes, width, task, out):
    """Sample counts per code from unit-weight statistics (class counts, or sum w)."""
    if task == TASK_REGRESSION:
        for b in range(n_codes):
            out[b] = np.int64(f_hist[b * 3] + 0.5)
    else:
        for b in range(n_codes):
            total = 0.0
            base = b * width
            for k in range(width):
                total += f_hist[base + k]
            out[b] = np.int64(total + 0.5)
