"""treebound: decision trees whose size is chosen by learning theory instead of cross-validation."""

__version__ = "0.1.0"

__all__: list[str] = ["__version__"]
