"""The ``treebound`` command line (typer). It calls the public API only."""
