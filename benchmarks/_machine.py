"""What machine a benchmark ran on, for the results files (see treebound.experiments.machine)."""

from treebound.experiments.machine import machine_description

__all__ = ["machine_description"]
