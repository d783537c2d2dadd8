import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings


@pytest.fixture(autouse=True)
def _seed_numpy():
    """Every test starts from the same global numpy seed (tests should still pass their own rng)."""
    np.random.seed(0)  # noqa: NPY002 - legacy global seed on purpose: code under test may use it


# The suite's property tests draw the same examples on every run, so main's CI result depends on
# the code alone. Explore new examples with HYPOTHESIS_PROFILE=explore (a failure found there
# becomes a plain regression test).
settings.register_profile("deterministic", derandomize=True, print_blob=True)
settings.register_profile("explore", derandomize=False, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))

_WARMUP = Path(__file__).resolve().parent / "_kernel_warmup.py"
_warmup_note: list[str] = []


def _compiles_into_a_cache() -> bool:
    from treebound import _config

    return _config.NUMBA_CACHE and os.environ.get("NUMBA_DISABLE_JIT", "0") in ("", "0")


def pytest_configure(config):
    """Before the test processes of a parallel run of the whole suite start (``make test``),
    compile the kernels they need into the on-disk cache, one process per lane of groups
    (``_kernel_warmup.py`` says why). Nothing to do for one process, for a chosen set of tests or
    when the cache is already warm (the processes then load the kernels in a few seconds)."""
    if (hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None)
            or config.args_source is not pytest.Config.ArgsSource.TESTPATHS
            or not _compiles_into_a_cache()):
        return
    from _kernel_warmup import LANES

    # as many processes as test processes (the lanes of a smaller count run one after another)
    n_processes = max(1, min(int(config.option.numprocesses), len(LANES)))
    lanes = [sum(LANES[i::n_processes], []) for i in range(n_processes)]
    start = time.perf_counter()
    processes = [subprocess.Popen([sys.executable, str(_WARMUP), *lane],
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for lane in lanes]
    # a lane that fails is compiled (and its error shown) by the tests that need it
    failed = [" ".join(lane) for lane, process in zip(lanes, processes, strict=True)
              if process.wait()]
    _warmup_note.append(f"kernel warm-up: {len(lanes)} processes side by side in "
                        f"{time.perf_counter() - start:.0f} s"
                        + (f" ({'; '.join(failed)} failed)" if failed else ""))


def pytest_report_header(config):
    return _warmup_note
