"""Penalties of dyadic decision trees (Scott & Nowak 2006, sections II-III).

Plain functions of counts, depths and sizes, written straight from the formulas; the kernels use
the same quantities in the per-depth form returned by :func:`depth_constants`.

Examples
--------
>>> round(cell_code_length(2, 4), 6)  # [A] = 2j + 1 + j log2 d with j = 2, d = 4
9.0
>>> round(tree_code_length(3, 4), 6)  # [T] = 3k - 1 + (k - 1) log2 d with k = 3, d = 4
12.0
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "cell_code_length",
    "default_delta",
    "depth_constants",
    "spatially_adaptive_penalty",
    "square_root_penalty",
    "tree_code_length",
]


def default_delta(n_samples: int) -> float:
    """The confidence parameter ``delta = 1/n`` of Scott & Nowak (2006), Remark 3 (section III-C).

    Parameters
    ----------
    n_samples : int
        ``n >= 1``, the number of training examples.

    Returns
    -------
    float
        ``1 / n``.

    Examples
    --------
    >>> default_delta(200)
    0.005
    """
    return 1.0 / n_samples


def cell_code_length(depth, n_features: int):
    """Bits of the prefix code of a dyadic cell at ``depth``: ``[A] = 2j + 1 + j log2 d``.

    Scott & Nowak (2006), section III-B: the code of the cell reached after ``j`` splits in
    ``d`` dimensions, the complexity of a leaf in the spatially adaptive penalty (Eq. 9).

    Parameters
    ----------
    depth : int or array-like of int
        ``j >= 0``, the number of splits above the cell.
    n_features : int
        ``d >= 1``, the dimension.

    Returns
    -------
    float or ndarray of float64
        ``[A]`` in bits (an array when ``depth`` is one).

    Examples
    --------
    >>> cell_code_length(2, 4)  # 2 * 2 + 1 + 2 log2 4
    9.0
    >>> cell_code_length([0, 1, 2], 4).tolist()
    [1.0, 5.0, 9.0]
    """
    depth = np.asarray(depth, dtype=np.float64)
    bits = 2.0 * depth + 1.0 + depth * math.log2(n_features)
    return float(bits) if bits.ndim == 0 else bits


def tree_code_length(n_leaves: int, n_features: int) -> float:
    """Bits of the prefix code of a tree with ``k`` leaves: ``[T] = 3k - 1 + (k - 1) log2 d``.

    Scott & Nowak (2006), section III-A: the complexity term of the square-root penalty
    (Proposition 1).

    Parameters
    ----------
    n_leaves : int
        ``k >= 1``.
    n_features : int
        ``d >= 1``, the dimension.

    Returns
    -------
    float
        ``[T]`` in bits.

    Examples
    --------
    >>> tree_code_length(3, 4)  # 3 * 3 - 1 + 2 log2 4
    12.0
    """
    return 3.0 * n_leaves - 1.0 + (n_leaves - 1.0) * math.log2(n_features)


def spatially_adaptive_penalty(leaf_sizes, leaf_depths, n_samples: int, n_features: int,
                               delta: float, scale: float = 1.0) -> float:
    """The spatially adaptive penalty ``Phi_n(T)`` of Scott & Nowak (2006), Eq. (9).

    ``Phi_n(T) = sum_A sqrt(2 p'_A ([A] ln 2 + ln(2/delta)) / n)`` over the leaves ``A``, with
    ``p'_A = 4 max(p_A, ([A] ln 2 + ln(1/delta)) / n)``, ``p_A`` the fraction of the ``n``
    training examples in leaf ``A`` and ``[A]`` its code length (:func:`cell_code_length`).
    Additive over leaves: small, sparsely populated leaves cost little.

    Parameters
    ----------
    leaf_sizes : array-like of int
        Training examples in each leaf.
    leaf_depths : array-like of int
        Depth of each leaf (splits above it).
    n_samples : int
        ``n``, the number of training examples.
    n_features : int
        ``d``, the dimension.
    delta : float
        Confidence parameter in ``(0, 1]`` (:func:`default_delta` is ``1/n``).
    scale : float, default=1.0
        Multiplies the penalty; 1 is the theory's constant (Theorem 2).

    Returns
    -------
    float
        ``scale * Phi_n(T)``.

    Examples
    --------
    Two leaves of 50 examples at depth 1, ``d = 2``, ``n = 100``, ``delta = 0.01``:

    >>> round(spatially_adaptive_penalty([50, 50], [1, 1], 100, 2, 0.01), 6)
    1.136374
    """
    sizes = np.asarray(leaf_sizes, dtype=np.float64)
    bits = cell_code_length(np.asarray(leaf_depths), n_features) * math.log(2.0)
    p_hat = sizes / n_samples
    p_prime = 4.0 * np.maximum(p_hat, (bits + math.log(1.0 / delta)) / n_samples)
    terms = np.sqrt(2.0 * p_prime * (bits + math.log(2.0 / delta)) / n_samples)
    return float(scale * terms.sum())


def square_root_penalty(n_leaves, n_samples: int, n_features: int, delta: float,
                        scale: float = 1.0):
    """The square-root penalty of Scott & Nowak (2006), Proposition 1 (Eq. 2).

    ``scale * sqrt(([T] ln 2 + ln(1/delta)) / (2n))`` for a tree with ``k`` leaves, ``[T]`` its
    code length (:func:`tree_code_length`): a function of the number of leaves only.

    Parameters
    ----------
    n_leaves : int or array-like of int
        ``k >= 1`` (an array gives one value per entry).
    n_samples : int
        ``n``, the number of training examples.
    n_features : int
        ``d``, the dimension.
    delta : float
        Confidence parameter in ``(0, 1]``.
    scale : float, default=1.0
        Multiplies the penalty; 1 is the theory's constant.

    Returns
    -------
    float or ndarray of float64

    Examples
    --------
    >>> round(square_root_penalty(5, 200, 8, 0.05), 6)  # [T] = 14 + 4 * 3 = 26 bits
    0.229225
    """
    k = np.asarray(n_leaves, dtype=np.float64)
    bits = 3.0 * k - 1.0 + (k - 1.0) * math.log2(n_features)
    value = scale * np.sqrt((bits * math.log(2.0) + math.log(1.0 / delta)) / (2.0 * n_samples))
    return float(value) if value.ndim == 0 else value


def depth_constants(max_depth: int, n_samples: int, n_features: int, delta: float,
                    scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-depth constants of Eq. (9) for the kernels, for depths ``0 .. max_depth + 1``.

    A leaf of ``m`` examples at depth ``j`` has penalty ``pen_a[j] * sqrt(max(m, pen_b[j]))``:
    ``pen_b[j] = [A] ln 2 + ln(1/δ)`` and ``pen_a[j] = scale * sqrt(8 ([A] ln 2 + ln(2/δ))) / n``
    (since ``2 p'_A = 8 max(m, pen_b) / n``).
    """
    depths = np.arange(max_depth + 2, dtype=np.float64)
    bits = cell_code_length(depths, n_features) * math.log(2.0)
    pen_b = bits + math.log(1.0 / delta)
    pen_a = scale * np.sqrt(8.0 * (bits + math.log(2.0 / delta))) / n_samples
    return np.ascontiguousarray(pen_a), np.ascontiguousarray(pen_b)
