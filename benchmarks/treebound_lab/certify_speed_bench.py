"""Speed of ``treebound.certify`` (``benchmarks/bench_certify_speed.py`` writes
``benchmarks/results/certify_speed.md``).

Trees grown by treebound on synthetic data (``make_classification``), certified *warm*: the
numba kernels are compiled and the first call is not timed; every timed call starts from
nothing else (the growth-function tables are not shared between calls). Each method is timed
separately, best of ``repeats``; the certificate ``fit`` computes at its end is timed as a
share of the fit. Targets (issue 11): a 40-leaf tree on 6,000 rows with 6 classes in at most
0.1 s; a 2,000-leaf tree at m = 30,000 in at most 2 s.
"""

from __future__ import annotations

import time
from pathlib import Path

from treebound.certificates import format_bound
from treebound_lab.provenance import results_header

__all__ = ["CASES", "METHODS", "TITLE", "run_certify_speed_benchmark"]

TITLE = "Speed of treebound.certify"
#: (rows, classes, features, leaf budget or None for purity, label noise)
CASES = [
    (6_000, 6, 10, 40, 0.05),
    (6_000, 2, 20, 40, 0.05),
    (30_000, 2, 10, 2_000, 0.05),
    (30_000, 2, 10, None, 0.05),
    (20_000, 10, 10, None, 0.05),
]
METHODS = ("auto", "hti", "compression", "shawe_taylor")


def _best(function, repeats):
    times = []
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = function()
        times.append(time.perf_counter() - start)
    return min(times), out


def _measure(X, y, leaves, repeats, features) -> str:
    import treebound.certificates as certificates
    from treebound import DecisionTreeClassifier, certify

    def fit():
        return DecisionTreeClassifier(growth="top_down", max_leaf_nodes=leaves).fit(X, y)

    original = certificates.fit_certificate
    certificates.fit_certificate = lambda *a, **k: None  # a fit without its certificate
    try:
        fit_seconds, _ = _best(fit, repeats)
    finally:
        certificates.fit_certificate = original
    def fit_and_read():
        model = fit()
        model.certificate_  # noqa: B018 - the first read computes the bounds
        return model

    in_fit, _ = _best(fit, repeats)
    with_certificate, model = _best(fit_and_read, repeats)
    share = max(0.0, with_certificate - fit_seconds) / with_certificate
    share_in_fit = max(0.0, in_fit - fit_seconds) / in_fit
    timings, result = [], None
    for method in METHODS:
        seconds, c = _best(lambda m=method: certify(model, X, y, method=m), repeats)
        timings.append(seconds)
        if method == "auto":
            result = c
    return (f"| {len(y):,} | {len(model.classes_)} | {features} | {model.get_n_leaves()} | "
            f"{fit_seconds:.3f} | {100 * share:.0f} % | {100 * share_in_fit:.0f} % | "
            + " | ".join(f"{t:.4f}" for t in timings)
            + f" | {format_bound(result.risk_upper_bound)} | {result.details['growth_bound']} |")


def run_certify_speed_benchmark(out, *, repeats=3, cases=CASES, command=None,
                                echo=print) -> str:
    """Time every case, write the page to ``out`` and return its text."""
    from sklearn.datasets import make_classification

    from treebound import DecisionTreeClassifier, certify

    header = results_header(TITLE, command)  # before the run: the load it starts under
    lines = header + [
        "Warm timings (kernels compiled, first call untimed), best of "
        f"{repeats}; trees grown by `DecisionTreeClassifier(growth=\"top_down\", "
        "max_leaf_nodes=...)` on `make_classification` data; certified on their training "
        "rows at delta = 0.05. `fit` = the fit without its certificate; `certificate_ share` "
        "= the share of `certificate_` (method auto: the evidence `fit` gathers and the bounds "
        "its first read computes) in fit + first read; `share in fit()` = the share of the "
        "evidence alone in `fit()`.", "",
        "| rows | classes | features | leaves | fit s | certificate_ share | share in fit() | "
        + " | ".join(f"{m} s" for m in METHODS) + " | auto | growth bound |",
        "|---|---|---|---|---|---|---|" + "---|" * len(METHODS) + "---|---|"]
    warm = make_classification(n_samples=300, n_features=5, n_informative=3, random_state=0)
    for method in METHODS:  # compile everything once
        certify(DecisionTreeClassifier(max_leaf_nodes=8).fit(*warm), *warm, method=method)
    for rows, classes, features, leaves, noise in cases:
        X, y = make_classification(n_samples=rows, n_features=features, n_informative=6,
                                   n_classes=classes, flip_y=noise, random_state=0)
        lines.append(_measure(X, y, leaves, repeats, features))
        echo(lines[-1])
    lines += ["", "Targets: 40 leaves, 6,000 rows, 6 classes: auto <= 0.1 s; 2,000 leaves at "
              "m = 30,000: auto <= 2 s."]
    text = "\n".join(lines) + "\n"
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text)
    return text
