"""Every numba kernel of treebound lives here.

Kernels take plain numpy arrays and scalars and import nothing from the API layer, so they can be
tested against naive oracles in isolation and reused by every estimator.
"""
