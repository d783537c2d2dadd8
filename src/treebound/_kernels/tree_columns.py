"""The columns of the flat tree read off the growth node arrays in one pass
(:func:`treebound.tree._builder._to_tree`), instead of a dozen strided numpy selections."""

from __future__ import annotations

import numpy as np

from treebound._config import NO_NRT_JIT_OPTIONS, njit
from treebound._kernels.growth_state import (
    F_THRESHOLD,
    F_WEIGHT,
    I_CATEGORY_OFFSET,
    I_FEATURE,
    I_FIRST_CHILD,
    I_MISSING,
    I_N_CHILDREN,
    I_N_SAMPLES,
)


@njit(**NO_NRT_JIT_OPTIONS)
def node_columns(ni, nf, first_child, n_children, feature, missing_child, n_node_samples,
                 threshold, weighted_n_node_samples):
    """Per node of the growth arrays ``ni`` (int columns) / ``nf`` (float columns): its first
    child (-1: a leaf), number of children, feature, missing-value child (leaves: 0 children,
    feature and missing child -1), sample count, threshold (NaN at leaves and categorical
    tests, the nodes with a category map) and weighted sample count. Returns whether a node
    has a categorical test."""
    categorical = False
    for i in range(ni.shape[0]):
        child = ni[i, I_FIRST_CHILD]
        first_child[i] = child
        n_node_samples[i] = ni[i, I_N_SAMPLES]
        weighted_n_node_samples[i] = nf[i, F_WEIGHT]
        if child >= 0:
            n_children[i] = ni[i, I_N_CHILDREN]
            feature[i] = ni[i, I_FEATURE]
            missing_child[i] = ni[i, I_MISSING]
            if ni[i, I_CATEGORY_OFFSET] >= 0:
                categorical = True
                threshold[i] = np.nan
            else:
                threshold[i] = nf[i, F_THRESHOLD]
        else:
            n_children[i] = 0
            feature[i] = -1
            missing_child[i] = -1
            threshold[i] = np.nan
    return categorical
