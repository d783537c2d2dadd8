"""What every treebound estimator shares, below the estimator packages :mod:`treebound.tree` and
:mod:`treebound.dyadic` (``docs/architecture.md``).

* :mod:`._base` — :class:`BaseTreeEstimator` (encoding, routing, persistence) and
  :class:`TreeClassifierMixin` (class outputs, ``certificate_``);
* :mod:`._model_format` — the JSON model format: an estimator to a dict and back, validated.
"""
