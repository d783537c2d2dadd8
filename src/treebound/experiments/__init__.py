"""treebound.experiments."""
