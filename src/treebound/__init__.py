"""treebound: decision trees whose size is chosen by learning theory instead of cross-validation."""

__version__ = "0.1.0"

__all__: list[str] = ["__version__"]

# Theory (issue 3): tree structures and their VC-dimension / growth-function bounds. Loaded on
# first access (PEP 562) so that ``import treebound`` and ``treebound --help`` stay fast.
_THEORY_EXPORTS = (
    "PartitioningCache",
    "TreeStructure",
    "log_growth_function_upper_bound",
    "vcdim_lower_bound",
    "vcdim_upper_bound",
)
__all__ += list(_THEORY_EXPORTS)


def __getattr__(name):
    if name in _THEORY_EXPORTS:
        from treebound import theory

        return getattr(theory, name)
    raise AttributeError(f"module 'treebound' has no attribute {name!r}")
