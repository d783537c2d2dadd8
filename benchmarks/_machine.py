"""Left only for bench_fit.py and bench_bound_speed.py, until they write their headers with
treebound.experiments.provenance.results_header like every other benchmark; then delete it."""

from treebound.experiments.machine import machine_description

__all__ = ["machine_description"]
