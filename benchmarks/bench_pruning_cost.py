"""Bound pruning's cost estimate against its measured time, on trees with many-level categorical
features (and, for reference, on numeric trees).

A binary split on a categorical feature of ``K`` levels counts as ``2^(K-1) - 1`` real features
in Theorem 9, so with hundreds of levels the weight ``min(2 ell, C(m, k))`` is a binomial over
the whole range the bound reads and every table is a direct sum, quadratic in ``m``: seconds per
table where numeric trees take milliseconds. ``tight_table_cost`` (the cost model of
``treebound.theory._costs``) prices every range of every table by the route it takes; this
script compares its estimate with the thread CPU seconds of ``prune(grown, method="bound",
variant="tight")`` (resource limits lifted, a fresh cache per call, one untimed warm-up first).

Trees: generated rows, one categorical column whose ``K`` levels all occur plus two Gaussian
columns, labels ``x0 + [level % 3 == 0] + noise > 0.5``; grown with ``max_leaf_nodes`` in
``--leaves`` (default settings otherwise). Also the case of issue 27: ``K = 600``, 2,000 rows, a
tree grown to purity, pruned with the defaults (``variant="auto"``: the loose bound by the
fixed rule) and with ``variant="tight"`` (refused under the default limits), against treebound's
``ccp_cv`` on the same grown tree; its labels are coin flips, so that the tree is large (as in
the issue: hundreds of leaves). Writes ``benchmarks/results/pruning_cost.md``.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_pruning_cost.py
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np

RESULTS = Path(__file__).resolve().parent / "results" / "pruning_cost.md"


def many_level_data(levels: int, rows: int, seed: int = 0):
    """Rows with one categorical column of ``levels`` levels (each one seen) and two numeric."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    codes = rng.permutation(np.arange(rows) % levels)
    X = pd.DataFrame({"c": pd.Categorical(codes.astype(str)),
                      "x0": rng.normal(size=rows), "x1": rng.normal(size=rows)})
    y = (X["x0"] + (codes % 3 == 0) + rng.normal(size=rows) > 0.5).astype(int)
    return X, y.to_numpy()


def timed_tight(grown):
    """Thread CPU seconds and result of tight bound pruning, limits lifted."""
    from treebound import prune, resource_limits

    with resource_limits(max_memory=None, max_seconds=None):
        start = time.thread_time()
        result = prune(grown, method="bound", variant="tight")
        return time.thread_time() - start, result


def main() -> None:
    from sklearn.datasets import load_breast_cancer, load_digits

    from treebound import DecisionTreeClassifier
    from treebound.pruning.bound import AUTO_TIGHT_SECONDS, tight_table_cost
    from treebound_lab.provenance import results_header

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", default="150,300,600,1000")
    parser.add_argument("--rows", default="1000,2000,3000",
                        help="row counts (those below twice K are skipped: a stump)")
    parser.add_argument("--leaves", default="8,16,32")
    parser.add_argument("--max-seconds", type=float, default=60.0,
                        help="trees estimated above this are not pruned (the estimate is shown)")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()

    lines = [*results_header("Bound pruning: cost estimate against measured time"),
             "`estimate` is `tight_table_cost(tree)` (seconds of the reference machine, the "
             "constants of `treebound.theory._costs`); `measured` the thread CPU seconds of "
             "`prune(grown, method='bound', variant='tight')` with the resource limits lifted "
             "(a fresh partitioning cache per call, after one untimed warm-up call); "
             "`ratio` = measured / estimate. `auto` is the variant `variant='auto'` takes by "
             f"its fixed rule (tight when the estimate is at most {AUTO_TIGHT_SECONDS:g} s). "
             "Generated rows: one categorical column whose K levels all occur, two Gaussian "
             "columns, labels `x0 + [level % 3 == 0] + noise > 0.5`; trees grown with "
             "`max_leaf_nodes` as listed.", ""]
    warm = DecisionTreeClassifier(max_leaf_nodes=8, random_state=0).fit(*many_level_data(150, 300))
    timed_tight(warm)
    from treebound import prune

    prune(warm, method="bound", variant="loose")  # its kernels compiled before any timing
    X, y = load_breast_cancer(return_X_y=True)
    timed_tight(DecisionTreeClassifier(max_leaf_nodes=8, random_state=0).fit(X, y))

    header = ["| data | K | rows | leaves | ell | estimate s | measured s | ratio | auto |",
              "|---|---|---|---|---|---|---|---|---|"]
    ratios = {"categorical": [], "numeric": []}

    def row(kind, name, levels, rows, grown):
        tree = grown.tree_
        from treebound.pruning.bound import effective_n_features

        ell = effective_n_features(tree.n_categories)
        seconds = tight_table_cost(tree)[1]
        auto = "tight" if seconds <= AUTO_TIGHT_SECONDS else "loose"
        ell_text = f"{ell:,}" if ell < 10**9 else f"2^{ell.bit_length() - 1}"
        if seconds > args.max_seconds:
            cells = [name, levels, rows, tree.n_leaves, ell_text, f"{seconds:.3g}", "not run",
                     "", auto]
        else:
            measured, _ = timed_tight(grown)
            ratio = measured / seconds
            ratios[kind].append(ratio)
            cells = [name, levels, rows, tree.n_leaves, ell_text, f"{seconds:.3g}",
                     f"{measured:.3g}", f"{ratio:.2f}", auto]
        text = "| " + " | ".join(str(c) for c in cells) + " |"
        print(text, flush=True)
        return text

    lines += ["## Many-level categorical features", "", *header]
    for levels in (int(v) for v in args.levels.split(",")):
        for rows in (int(v) for v in args.rows.split(",")):
            if rows < 2 * levels:
                continue
            X, y = many_level_data(levels, rows)
            for leaves in (int(v) for v in args.leaves.split(",")):
                grown = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0).fit(X, y)
                lines.append(row("categorical", "generated", levels, rows, grown))
    lines += ["", "## Numeric features (reference: FFT tables, milliseconds each)", "", *header]
    for name, loader in (("breast cancer", load_breast_cancer), ("digits", load_digits)):
        X, y = loader(return_X_y=True)
        for leaves in (int(v) for v in args.leaves.split(",")) :
            grown = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0).fit(X, y)
            lines.append(row("numeric", name, "", len(y), grown))
    lines += ["", *_summary(ratios), "", *_issue_case()]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


def _summary(ratios) -> list[str]:
    out = []
    for kind, values in ratios.items():
        if not values:
            continue
        values = np.asarray(values)
        within = int(np.count_nonzero((values >= 1 / 3) & (values <= 3)))
        out.append(f"- {kind}: measured / estimate from {values.min():.2f} to {values.max():.2f} "
                   f"(median {np.median(values):.2f}) over {values.size} trees; within 3x: "
                   f"{within} of {values.size}.")
    return out


def _issue_case() -> list[str]:
    """600 levels, 2,000 rows, coin-flip labels, grown to purity: the defaults, tight
    (refused), ccp_cv."""
    from treebound import DecisionTreeClassifier, ResourceLimitError, prune
    from treebound.pruning.bound import tight_table_cost

    X, _ = many_level_data(600, 2000)
    y = np.random.default_rng(5).integers(0, 2, 2000)
    grown = DecisionTreeClassifier(random_state=0).fit(X, y)
    start = time.perf_counter()
    memory, seconds = tight_table_cost(grown.tree_)
    estimating = time.perf_counter() - start
    start = time.perf_counter()
    try:
        prune(grown, method="bound", variant="tight")
        refused = "not refused"
    except ResourceLimitError as exc:
        refused = f"refused: “{exc}”"
    refusal = time.perf_counter() - start
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        model = DecisionTreeClassifier(random_state=0, max_leaf_nodes=None,
                                       pruning="bound").fit(X, y)
        fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    DecisionTreeClassifier(random_state=0).fit(X, y)
    grow_seconds = time.perf_counter() - start
    start = time.perf_counter()
    prune(grown, X, y, method="ccp_cv", random_state=0)
    ccp_seconds = time.perf_counter() - start
    info = model.pruning_info_
    said = [str(w.message) for w in caught if "kept all" in str(w.message)]
    return ["## The case of issue 27: 600 levels, 2,000 rows, grown to purity", "",
            f"Coin-flip labels; the tree grown to purity has {grown.tree_.n_leaves} leaves; "
            f"`tight_table_cost` estimates {seconds:.3g} s and {memory / 2**20:.3g} MiB for the "
            f"tight bound ({estimating:.3f} s to estimate).", "",
            f"- `prune(grown, method='bound', variant='tight')` under the default limits: "
            f"{refused} after {refusal:.2f} s (wall).",
            "- `DecisionTreeClassifier(max_leaf_nodes=None, pruning='bound').fit` (`variant` "
            f"left at `'auto'`): {fit_seconds:.2f} s wall (growth alone {grow_seconds:.2f} s); "
            f"variant `{info['variant']}` by the rule “{info['variant_rule']}”; "
            f"{model.tree_.n_leaves} of {grown.tree_.n_leaves} leaves kept; "
            f"`pruning_info_['pruned_nothing']` = {info.get('pruned_nothing', False)}; "
            f"warning: {'“' + said[0] + '”' if said else 'none'}.",
            f"- treebound's `ccp_cv` (10 folds) on the same grown tree: {ccp_seconds:.2f} s "
            "wall, the peer in this run."]


if __name__ == "__main__":
    main()
