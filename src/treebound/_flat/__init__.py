"""The flat tree and the coding of features and labels: the bottom layer every other package
reads (``docs/architecture.md``).

* :class:`~treebound._flat._storage.Tree` — a fitted tree as flat arrays (public as
  :class:`treebound.tree.Tree`), checked by :mod:`._storage_checks`;
* :mod:`._encoding` — :class:`FeatureEncoder`: a table (DataFrame or array) to the float64
  matrix the tests read, categorical columns as level codes;
* :mod:`._feature_coding` — the per-feature codes growth searches (sorted values, histogram
  bins, category levels);
* :mod:`._labels` — class labels to class indices, the one label encoding of the package.

Nothing here imports from a layer above (theory, certificates, pruning, the estimators).
"""
