"""treebound.pruning."""
