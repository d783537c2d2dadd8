"""Collection of scikit-learn's tree tests run against treebound (``_sklearn_suite.py``): the
``global_random_seed`` fixture as scikit-learn's conftest gives it (seed 42 unless
``SKLEARN_TESTS_GLOBAL_RANDOM_SEED`` says otherwise), the deselection of the tests that are not
about treebound's classes, and the marks of the exclusion and expected-failure tables."""

from __future__ import annotations

import os
from pathlib import Path

from _sklearn_suite import groups_of, marks_for

HERE = Path(__file__).resolve().parent
#: harness file -> key of the scikit-learn module it runs
HARNESS = {"test_sklearn_tree.py": "test_tree",
           "test_sklearn_monotonic_tree.py": "test_monotonic_tree"}


def pytest_generate_tests(metafunc):
    if "global_random_seed" in metafunc.fixturenames:
        seeds = os.environ.get("SKLEARN_TESTS_GLOBAL_RANDOM_SEED", "42")
        if "-" in seeds:
            start, stop = seeds.split("-")
            values = list(range(int(start), int(stop) + 1))
        else:
            values = list(range(100)) if seeds == "all" else [int(seeds)]
        metafunc.parametrize("global_random_seed", values)


def harness_key(item) -> str | None:
    path = Path(str(item.fspath)) if hasattr(item, "fspath") else None
    if path is None or path.parent != HERE:
        return None
    return HARNESS.get(path.name)


def _short_tracebacks(item) -> None:
    """An expected failure's traceback in one line: pytest re-parses the 3,000-line source of
    scikit-learn's module for every frame of a long traceback (~0.2 s per test), and an xfail
    shows no traceback anyway."""
    item.repr_failure = lambda excinfo: excinfo.exconly()


def pytest_collection_modifyitems(config, items):
    kept, dropped = [], []
    for item in items:
        key = harness_key(item)
        if key is None:
            kept.append(item)
            continue
        callspec = getattr(item, "callspec", None)
        params = callspec.params if callspec else {}
        groups = groups_of(key, item.obj, params)
        if not groups:
            dropped.append(item)
            continue
        item.user_properties.append(("sklearn_groups", ",".join(groups)))
        for mark in marks_for(key, item.originalname, params, callspec.id if callspec else None):
            item.add_marker(mark)
            if mark.name == "xfail":
                _short_tracebacks(item)
                item.user_properties.append(("sklearn_expected_failure", mark.kwargs["reason"]))
        kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
