"""treebound.tree."""
