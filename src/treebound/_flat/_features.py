"""What a coded feature offers a binary test: the number of distinct stump tests.

Theorem 9 of Leboeuf et al. (2020) depends on the features only through the number of stump
tests, so bound pruning (:mod:`treebound.pruning.bound`, ``srm``) and the certificates
(:mod:`treebound.certificates`) both read it from here, from the features' level counts
(``n_categories``, 0 for a numeric feature).
"""

from __future__ import annotations

import numpy as np

__all__ = ["effective_n_features"]


def effective_n_features(n_categories) -> int:
    """``ell`` to use in Theorem 9 for a binary tree over these features.

    Theorem 9 depends on the features only through the number of distinct ways a stump can send
    ``k`` of ``m`` points to its left child: at most ``2`` per real-valued feature (threshold and
    side), hence ``min(2 ell, C(m, k))``. A binary categorical test sending a subset of the ``K``
    categories left realizes at most ``2^K - 2`` nontrivial left sets (the subsets of categories
    other than none and all; ``1 <= k <= m - 1`` in the sum), i.e. counts as ``2^(K-1) - 1``
    real features (Yıldız's Theorem 5 counts the same bipartitions); a two-category feature
    counts as exactly one. This is the extension treebound uses for "bound" on categorical
    features (binary splits only).

    Parameters
    ----------
    n_categories : array-like of int, shape (n_features,)
        Levels of every feature, 0 for a numeric one (``Tree.n_categories``).

    Returns
    -------
    int
        The number of real features with as many stump tests, at least 1.

    Examples
    --------
    >>> effective_n_features([0, 0, 0])  # three numeric features
    3
    >>> effective_n_features([0, 2, 4])  # 1 + 1 + (2**3 - 1)
    9
    """
    n_categories = np.asarray(n_categories, dtype=np.int64)
    total = int(np.count_nonzero(n_categories == 0))
    for K in n_categories[n_categories > 0].tolist():
        total += 2 ** (int(K) - 1) - 1
    return max(total, 1)
