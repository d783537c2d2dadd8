"""treebound's lab: the benchmark runners, report writers and paper reproductions.

Not part of the installed package: it lives beside ``src/`` in a checkout and imports treebound
like any user. The scripts ``benchmarks/*.py`` and ``treebound bench ...`` (run from a checkout)
drive it; every page under ``benchmarks/results/`` names the command that regenerates it.
"""
