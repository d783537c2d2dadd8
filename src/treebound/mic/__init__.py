"""treebound.mic."""
