"""treebound.dyadic."""
