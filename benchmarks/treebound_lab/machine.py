"""What machine an experiment ran on (one description everywhere; results files show it through
:func:`treebound_lab.provenance.results_header`)."""

from __future__ import annotations

import os
import platform
from pathlib import Path

__all__ = ["load_averages", "machine_description"]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine_description(*, load: bool = False) -> str:
    """CPU model, cores available, OS and the versions of the numeric stack; with ``load``,
    the 1-minute load average too (timings on a shared machine are only as good as that)."""
    import numba
    import numpy
    import scipy
    import sklearn

    import treebound

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    text = (f"{_cpu_model()}, {cores} logical cores, {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, numpy {numpy.__version__}, scipy "
            f"{scipy.__version__}, numba {numba.__version__}, scikit-learn {sklearn.__version__}, "
            f"treebound {treebound.__version__}")
    if load and hasattr(os, "getloadavg"):
        text += f"; load average {os.getloadavg()[0]:.2f}"
    return text



def load_averages() -> str:
    """The 1, 5 and 15-minute load averages as ``"a, b, c"`` (a run's page gives them before
    and after the run)."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())
