"""What certificates computed on one set of training rows, for the next certificate on them.

Certified selection certifies its candidates on the training rows (Theorem 9's tables, every
row's prediction, the compression set); the estimator's ``certificate_`` of the chosen tree is
then the same computation on the same rows. :class:`CertifiedTrees` carries both: it is the
:class:`~treebound.theory.PartitioningCache` of the tables, and it remembers the sample (with
its evidence) of a tree the selection chose, which :func:`~treebound.certificates.
fit_certificate` uses instead of reading the rows again when it counts the same hypothesis
class (the same categorical levels, missing values and multiway flag).
"""

from __future__ import annotations

import numpy as np

from treebound.theory import PartitioningCache

__all__ = ["CertifiedTrees", "reusable"]


class CertifiedTrees(PartitioningCache):
    """Theorem 9's tables of trees certified on one set of rows, and the evidence of the tree
    a selection chose (:meth:`remember`, :meth:`recall`).

    Examples
    --------
    >>> from treebound.certificates._methods import Sample
    >>> import numpy as np
    >>> memo = CertifiedTrees()
    >>> tree, sample = object(), Sample(None, np.zeros(2, dtype=np.int64), np.zeros(2, bool))
    >>> memo.remember(tree, sample)
    >>> memo.recall(tree) is sample, memo.recall(object())
    (True, None)
    """

    def __init__(self, max_bytes: int | None = 2**30):
        super().__init__(max_bytes)
        self._chosen = None

    def remember(self, tree, sample) -> None:
        """Keep ``sample`` (a :class:`~treebound.certificates._methods.Sample` with its
        evidence) as that of ``tree``, the flat tree a selection returned."""
        self._chosen = (tree, sample)

    def recall(self, tree):
        """The sample remembered for this very tree object, else ``None``."""
        if self._chosen is None or self._chosen[0] is not tree:
            return None
        return self._chosen[1]


def reusable(sample, deployed, y_idx, multiway: bool) -> bool:
    """Whether a remembered sample (with its evidence) is that of ``deployed`` on its rows
    ``y_idx``, counting the same hypothesis class (its certificate is then the same number):
    the same tree, rows and labels, categorical levels, missing values and multiway flag, and
    its evidence gathered (the compression set)."""
    known = sample.deployed
    features = deployed.features
    if not isinstance(features, np.ndarray) or "compression" not in sample.evidence:
        return False
    return (known.missing == deployed.missing and sample.multiway == multiway
            and known.n_classes == deployed.n_classes
            and np.array_equal(known.n_levels, deployed.n_levels)
            and _same_tree(known.tree, deployed.tree)
            and np.array_equal(sample.y, np.asarray(y_idx))
            and (known.features is features or np.array_equal(known.features, features,
                                                              equal_nan=True)))


def _same_tree(a, b) -> bool:
    if a is b:
        return True
    return all(np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True)
               for name in ("first_child", "n_children", "feature", "threshold",
                            "category_offset", "category_child", "missing_child",
                            "n_categories", "majority_class"))
