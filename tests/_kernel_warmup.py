"""Compile groups of kernels into numba's on-disk cache: ``python _kernel_warmup.py NAME ...``.

Started by ``conftest.py`` before the test processes of a parallel run, one process per lane of
:data:`LANES`, each compiling its groups in turn. On an empty cache each test process would
otherwise compile the kernels it meets itself, often the same ones as the other processes at the
same time (the growth loop: a minute each). Compiled once here, they are loaded from the cache in
every test process. The groups of a lane share compiled sub-kernels in memory (the categorical
growth loop reuses most of the numeric one's), and no two lanes compile the same sub-kernel.
The fits are those of the tests that first need the kernels.
"""

from __future__ import annotations

import sys

import numpy as np


def _numeric() -> None:
    from treebound import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    DecisionTreeClassifier(max_depth=3).fit(X, X[:, 0] > 0)


def _categorical() -> None:
    import pandas as pd

    from treebound import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.normal(size=80), "b": rng.choice(["x", "y", "z"], 80)})
    DecisionTreeClassifier(max_depth=3).fit(frame, (frame.a > 0) | (frame.b == "z"))


def _extended() -> None:
    # the growth loop with its extensions (monotonic constraints, extra criteria, ...): one
    # compiled variant whatever the extension (scikit-learn's monotonic-constraint tests)
    from treebound import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    DecisionTreeClassifier(max_depth=3, monotonic_cst=[1, 0, 0]).fit(X, X[:, 0] > 0)


def _sparse_fit(n_features: int) -> None:
    # a sparse matrix past DENSE_CELLS cells (a smaller one is densified)
    import scipy.sparse as sp

    from treebound import DecisionTreeClassifier

    rng = np.random.default_rng(0)
    X = sp.random(1100, 4, density=0.5, format="csc", random_state=0)
    X = sp.hstack([X, sp.csc_matrix((1100, n_features - 4))], format="csc")
    DecisionTreeClassifier(max_depth=3).fit(X, rng.random(1100) > 0.5)


def _sparse() -> None:
    _sparse_fit(32_000)  # the sparse growth with 16-bit entry indices


def _sparse_wide() -> None:
    _sparse_fit(33_000)  # and with 32-bit ones (past 32,767 features)


def _dyadic() -> None:
    # the dyadic searches (free and cyclic) and the extraction of their trees
    from treebound import DyadicTreeClassifier

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(60, 2))
    y = (X[:, 0] > 0.5).astype(int)
    for variant in ("free", "cyclic"):
        DyadicTreeClassifier(max_resolution=4, variant=variant, penalty_scale=0.05).fit(X, y)


#: group -> the fit that compiles it
GROUPS = {"numeric": _numeric, "categorical": _categorical, "extended": _extended,
          "sparse": _sparse, "sparse_wide": _sparse_wide, "dyadic": _dyadic}

#: groups compiled one after the other in one process, side by side with the other lane: about
#: equally long (two minutes of one core each, on a cold cache), and what the two lanes compile
#: at the same time shares few sub-kernels
LANES = [["numeric", "categorical", "sparse"], ["dyadic", "sparse_wide", "extended"]]

if __name__ == "__main__":
    for name in sys.argv[1:]:
        GROUPS[name]()
