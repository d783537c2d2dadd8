"""Compile one group of growth kernels into numba's on-disk cache: ``python _kernel_warmup.py NAME``.

Started by ``conftest.py`` before the test processes of a parallel run, one process per group:
on an empty cache each test process would otherwise compile the same kernels itself, at the same
time as the others (two minutes each, a third of a clean checkout's ``make test``). Compiling them
once, the groups side by side, and loading them from the cache in every test process is what a
single process would do, on every core. The fits are those of ``test_model_fuzz.py``.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd


def _numeric() -> None:
    from treebound import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    DecisionTreeClassifier(max_depth=3).fit(X, X[:, 0] > 0)


def _categorical() -> None:
    from treebound import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=80), "b": rng.choice(["x", "y", "z"], 80)})
    DecisionTreeClassifier(max_depth=3).fit(frame, (frame.a > 0) | (frame.b == "z"))


#: group -> the fit that compiles it: the growth loop without and with categorical features (two
#: compiled variants of ``_split_loop``, about equally long to compile)
GROUPS = {"numeric": _numeric, "categorical": _categorical}

if __name__ == "__main__":
    GROUPS[sys.argv[1]]()
