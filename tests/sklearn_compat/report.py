"""How many of scikit-learn's own tree tests pass with treebound's classes, per group.

Run from the checkout::

    .venv/bin/python tests/sklearn_compat/report.py            # treebound's classes
    .venv/bin/python tests/sklearn_compat/report.py --control  # scikit-learn's own classes

It runs the harness with ``--runxfail`` (the expected-failure table ignored, so every counted
test shows what it does today) and prints, per group, the tests that pass, the counted total,
the exclusions (``EXCLUDED``), and the expected failures left by owner.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
GROUP_ORDER = ("classifier", "regressor", "monotonic")


class Outcomes:
    """pytest plugin: the outcome of every counted test instance."""

    def __init__(self):
        self.groups: dict[str, list[str]] = {}
        self.expected: dict[str, str] = {}  # nodeid -> "[owner] what is missing"
        self.outcome: dict[str, str] = {}

    def pytest_collection_finish(self, session):
        for item in session.items:
            props = dict(item.user_properties)
            if "sklearn_groups" in props:
                self.groups[item.nodeid] = props["sklearn_groups"].split(",")
            if "sklearn_expected_failure" in props:
                self.expected[item.nodeid] = props["sklearn_expected_failure"]

    def pytest_runtest_logreport(self, report):
        if report.nodeid not in self.groups:
            return
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.outcome[report.nodeid] = "skipped" if report.skipped else report.outcome


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--control", action="store_true",
                        help="run scikit-learn's own classes in the same harness")
    parser.add_argument("-k", default=None, help="pytest -k expression (a subset)")
    args = parser.parse_args(argv)
    if args.control:
        os.environ["TREEBOUND_SKLEARN_SUITE"] = "sklearn"
    plugin = Outcomes()
    pytest_args = [str(HERE), "-q", "-p", "no:cacheprovider", "--runxfail", "-o",
                   "addopts=", "--tb=no", "-rN", "-W", "ignore"]
    if args.k:
        pytest_args += ["-k", args.k]
    pytest.main(pytest_args, plugins=[plugin])
    passed, total, skipped = Counter(), Counter(), Counter()
    for nodeid, groups in plugin.groups.items():
        outcome = plugin.outcome.get(nodeid, "not run")
        for group in groups:
            total[group] += 1
            passed[group] += outcome == "passed"
            skipped[group] += outcome == "skipped"
    who = "scikit-learn's own classes" if args.control else "treebound's classes"
    print(f"\nscikit-learn's tree tests with {who}:")
    for group in GROUP_ORDER:
        print(f"  {group:<10} {passed[group]:>4} of {total[group] - skipped[group]:>4} pass"
              f"  ({skipped[group]} excluded of {total[group]} counted)")
    if not args.control:
        print("expected failures left (test instances; owner, what is missing):")
        reasons = Counter(plugin.expected.values())
        for reason, n in sorted(reasons.items()):
            print(f"  {n:>4}  {reason}")
        owners = Counter(reason.split("]")[0].strip("[") for reason in plugin.expected.values())
        print("  by owner: " + (", ".join(f"{o} {n}" for o, n in sorted(owners.items()))
                                or "none"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
