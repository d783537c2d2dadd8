"""Compile kernels in a background process while the command compiles others (first run only).

``treebound demo`` (and ``treebound fit --pruning bound``) need the growth kernels and then the
bound-pruning kernels. On a first run both are compiled, one after the other, by numba's
single-threaded compiler. Started at the beginning, ``python -m treebound.cli._warmup "bound pruning"``
compiles the bound-pruning kernels into the on-disk cache on another core while the command
compiles the growth kernels; when the command reaches pruning, it loads them. If it gets there
first, it compiles them itself (same result, as before). Nothing runs once the cache is warm.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np


def start_background(groups) -> subprocess.Popen | None:
    """Start compiling the kernel ``groups`` (keys of :data:`WARMUPS`) in a new process."""
    groups = [g for g in groups if g in WARMUPS]
    if not groups or (os.cpu_count() or 1) < 2:
        return None
    try:
        return subprocess.Popen([sys.executable, "-m", "treebound.cli._warmup", *groups],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:  # no process to spare: the command compiles everything itself
        return None


def _binary_tree(depth: int, n_samples: int, n_features: int, seed: int):
    """A complete binary tree with impure leaves (random class counts), as growth leaves it."""
    # the background process loads what it warms; the parent only starts it
    from treebound._flat._storage import Tree

    rng = np.random.default_rng(seed)
    n_nodes = 2 ** (depth + 1) - 1
    first_leaf = 2**depth - 1
    value = np.zeros((n_nodes, 2))
    value[first_leaf:] = rng.multinomial(n_samples, np.full(2 * (n_nodes - first_leaf),
                                                            0.5 / (n_nodes - first_leaf)),
                                         ).reshape(-1, 2) + 1
    for node in range(first_leaf - 1, -1, -1):  # children of node i are 2i + 1 and 2i + 2
        value[node] = value[2 * node + 1] + value[2 * node + 2]
    internal = np.arange(n_nodes) < first_leaf
    weight = value.sum(axis=1)
    return Tree(
        first_child=np.where(internal, 2 * np.arange(n_nodes) + 1, -1),
        n_children=np.where(internal, 2, 0),
        feature=np.where(internal, rng.integers(0, n_features, n_nodes), -1),
        threshold=np.where(internal, rng.random(n_nodes), np.nan),
        category_offset=np.full(n_nodes, -1),
        category_child=np.empty(0, dtype=np.int64),
        value=value,
        impurity=1.0 - ((value / weight[:, None]) ** 2).sum(axis=1),
        n_node_samples=weight.astype(np.int64),
        weighted_n_node_samples=weight,
        n_categories=np.zeros(n_features, dtype=np.int64),
    )


def _bound_pruning() -> None:
    # the background process loads what it warms; the parent only starts it
    from treebound import prune

    # the sizes of the demo: its warm-up fit (60 rows) and its trees (455 rows, ~20 leaves)
    for depth, n_samples in ((3, 60), (5, 455)):
        prune(_binary_tree(depth, n_samples, 30, seed=depth), method="bound")


def _certificates() -> None:
    # the background process loads what it warms; the parent only starts it
    from treebound.certificates import DeployedTree, certify_deployed
    from treebound.certificates._deployed import treebound_midpoint

    # integer-valued columns and half-integer thresholds: every threshold is a midpoint of two
    # training values, so the whole compression path runs (neighbours, pair search, row choice)
    rng = np.random.default_rng(0)
    tree = _binary_tree(3, 60, 30, seed=3)
    internal = tree.first_child >= 0
    tree.threshold[internal] = rng.integers(0, 8, int(internal.sum())) + 0.5
    features = rng.integers(0, 10, (60, 30)).astype(np.float64)
    y = rng.integers(0, 2, 60)
    deployed = DeployedTree(tree=tree, features=features, classes=np.arange(2),
                            leaf_class=tree.majority_class, n_categories=tree.n_categories,
                            midpoint=treebound_midpoint, family="treebound", n_fit_rows=60)
    certify_deployed(deployed, y)


#: Kernel group (as in ``treebound.cli._notes.KERNEL_GROUPS``) -> what compiles it.
WARMUPS = {"bound pruning": _bound_pruning, "certificates": _certificates}


def main(groups) -> None:
    for group in groups:
        WARMUPS[group]()


if __name__ == "__main__":
    main(sys.argv[1:])
