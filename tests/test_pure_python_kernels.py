"""``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python (for coverage and debuggers):
the fits must be the very ones the compiled kernels give, NaN, sparse rows and certificates
included. Plain Python differs from numba in two ways that matter here: an intrinsic has no
Python form, and numpy scalars keep their narrow type (a uint8 code times a width wraps)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import _pure_python_fits
from treebound._kernels import histograms
from treebound._kernels.criteria import TASK_CLASSIFICATION, TASK_REGRESSION

JIT_DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
pytestmark = pytest.mark.skipif(JIT_DISABLED, reason="compares against the compiled kernels")


def test_pure_python_kernels_fit_the_same_trees():
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    script = Path(_pure_python_fits.__file__)
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    pure_python = json.loads(done.stdout)
    compiled = json.loads(json.dumps(_pure_python_fits.results(), sort_keys=True))
    assert pure_python.keys() == compiled.keys()
    for key in compiled:
        assert pure_python[key] == compiled[key], key


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_histogram_accumulation_in_plain_python_does_not_wrap_uint8_codes(task):
    # numpy 2 keeps a uint8 code times a Python int in uint8: code 200 times 3 classes wraps to
    # 88 and lands in the wrong bin. Compiled, numba widens it; the plain-Python kernel must too.
    rng = np.random.default_rng(0)
    n_rows, n_codes, width = 60, 250, 3
    codes_t = rng.integers(0, n_codes, size=(n_rows, 1)).astype(np.uint8)
    codes_t[:5, 0] = 249
    y_cls = rng.integers(0, width, n_rows)
    y_val = rng.normal(size=n_rows)
    w = rng.random(n_rows)
    samples = np.arange(n_rows).reshape(1, -1)
    regression = task == "regression"
    stats = 3 if regression else width
    args_head = (samples, 0, n_rows, codes_t, y_cls, y_val, w,
                 TASK_REGRESSION if regression else TASK_CLASSIFICATION, width,
                 np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64), 1)

    def accumulate(kernel):
        blocks = np.zeros(n_codes * stats)
        counts = np.zeros(n_codes, np.int64)
        kernel(*args_head, blocks, 0, counts, 0, True, 1.0)
        return blocks, counts

    compiled = accumulate(histograms._accumulate)
    plain = accumulate(histograms._accumulate.py_func)
    np.testing.assert_array_equal(plain[0], compiled[0])
    np.testing.assert_array_equal(plain[1], compiled[1])
    expected = np.zeros((n_codes, stats))
    for s in range(n_rows):
        if regression:
            expected[codes_t[s, 0]] += w[s] * np.array([1.0, y_val[s], y_val[s] ** 2])
        else:
            expected[codes_t[s, 0], y_cls[s]] += w[s]
    np.testing.assert_allclose(compiled[0], expected.ravel())
    np.testing.assert_array_equal(compiled[1], np.bincount(codes_t[:, 0], minlength=n_codes))
