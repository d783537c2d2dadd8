"""What machine a benchmark ran on, for the results files."""

from __future__ import annotations

import os
import platform
from pathlib import Path


def machine_description() -> str:
    """CPU model, core count, OS and the versions of the numeric stack."""
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import numba
    import numpy
    import scipy
    import sklearn

    import treebound

    return (f"{cpu}, {os.cpu_count()} logical cores, {platform.system()} {platform.release()}; "
            f"Python {platform.python_version()}, numpy {numpy.__version__}, scipy "
            f"{scipy.__version__}, numba {numba.__version__}, scikit-learn {sklearn.__version__}, "
            f"treebound {treebound.__version__}")
