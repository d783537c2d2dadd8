"""Sparse input: scipy.sparse matrices (and arrays) of numeric features.

``fit`` reads a sparse ``X`` as compressed columns, prediction as compressed rows (scikit-learn's
conversions: any scipy.sparse format is accepted and converted). The values are float64; a NaN
is refused ("Input X contains NaN", as scikit-learn refuses it in a sparse matrix), and so is
infinity. A matrix whose dense form is small (at most :data:`DENSE_CELLS` cells, 256 MiB of
float64) is densified: the dense kernels grow the same tree on it, and faster. A larger one stays
sparse: growth (:mod:`treebound._kernels.sparse_growth`), routing and the certificates read its
stored entries only, every other cell being the value 0.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["BLOCK_CELLS", "DENSE_CELLS", "canonical_csr", "is_sparse", "row_blocks",
           "sparse_features"]

#: A sparse X with at most this many cells (rows x columns) is densified.
DENSE_CELLS = 2**25
#: Routing reads a large sparse X by blocks of rows of about this many cells (32 MiB dense).
BLOCK_CELLS = 2**22


def is_sparse(X) -> bool:
    """Whether ``X`` is a scipy.sparse matrix or array."""
    return sp.issparse(X)


def sparse_features(X, layout: str):
    """``X`` (sparse) as float64: dense when small, else compressed ``layout`` ("csc" or "csr")
    with sorted indices and no duplicates."""
    # scipy alone (importing the flat tree must not load the estimator stack): the checks
    # scikit-learn's check_array makes on a sparse X, with its messages
    X = sp.csr_matrix(X, dtype=np.float64) if layout == "csr" else sp.csc_matrix(
        X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(f"Found array with shape {X.shape}: a 2-D X with at least one row and "
                         "one feature is required")
    if not np.isfinite(X.data).all():
        what = "NaN" if np.isnan(X.data).any() else "infinity or a value too large for " \
            "dtype('float64')"
        raise ValueError(f"Input X contains {what}.")
    if X.shape[0] * X.shape[1] <= DENSE_CELLS:
        return np.ascontiguousarray(X.toarray())
    X = sp.csc_matrix(X) if layout == "csc" else sp.csr_matrix(X)
    X.sum_duplicates()  # also sorts the indices
    return X


def canonical_csr(X):
    """``X`` (sparse) in compressed rows of float64 with sorted, unique column indices in every
    row (the layout the compressed-row kernels read); ``X`` itself is never modified, and not
    copied when it already has that form."""
    X = sp.csr_matrix(X, dtype=np.float64)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()  # also sorts the indices
    return X


def row_blocks(X):
    """``(start, dense rows)`` of a sparse matrix, by blocks of about :data:`BLOCK_CELLS`
    cells: the dense kernels route every block, and the whole matrix is never dense."""
    X = sp.csr_matrix(X)
    step = max(1, BLOCK_CELLS // max(X.shape[1], 1))
    for start in range(0, X.shape[0], step):
        yield start, np.asarray(X[start : start + step].toarray(), dtype=np.float64)
