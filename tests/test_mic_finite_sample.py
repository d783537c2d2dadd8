"""The finite-sample experiment (section 8.3, Figure 5) and ``treebound bench mic --finite-sample``."""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from _mic_oracles import TruthTable
from treebound import DecisionTreeClassifier
from treebound.cli.main import app
from treebound.mic import ProductDistribution, ReadOnceDNF, best_first, optimal_errors, top_down
from treebound_lab.mic_finite_sample import (
    FINITE_SAMPLE_DISTRIBUTIONS,
    FiniteSampleExperiment,
    run_finite_sample,
    tree_population_error,
    write_finite_sample_outputs,
)

TINY = FiniteSampleExperiment(
    term_sizes=(2, 3, 2), train_sizes=(60, 400), test_size=300, repetitions=2, max_splits=3
)


def test_tiny_experiment_runs_end_to_end_with_consistent_rows(tmp_path):
    result = run_finite_sample(TINY, jobs=2)
    rows = result.rows
    # 3 distributions x 2 sizes x 2 repetitions x 2 algorithms.
    assert len(rows) == 3 * 2 * 2 * 2
    assert set(rows["distribution"]) == set(FINITE_SAMPLE_DISTRIBUTIONS)
    per_draw = rows.groupby(["distribution", "train_size", "repetition"])["algorithm"]
    assert all(sorted(a) == ["BestFirst", "TopDown"] for _, a in per_draw)
    for column in ("test_error", "exact_error"):
        assert rows[column].between(0.0, 1.0).all()
    assert (rows["n_leaves"] <= TINY.max_splits + 1).all() and (rows["n_leaves"] >= 1).all()
    # A tree with 3 splits can never beat OPT(3) under the distribution.
    for row in result.reference.itertuples():
        if row.algorithm != "OPT":
            continue
        exact = rows.loc[rows["distribution"] == row.distribution, "exact_error"]
        assert (exact >= row.population_error - 1e-12).all()

    summary = result.summary()
    assert len(summary) == 3 * 2 * 2
    first = summary.iloc[0]
    draws = rows[(rows["distribution"] == first["distribution"])
                 & (rows["train_size"] == first["train_size"])
                 & (rows["algorithm"] == first["algorithm"])]
    assert first["test_error_mean"] == pytest.approx(draws["test_error"].mean())
    assert first["test_error_std"] == pytest.approx(draws["test_error"].std())

    paths = write_finite_sample_outputs(result, tmp_path)
    assert len(pd.read_csv(paths["rows"])) == len(rows)
    assert len(pd.read_csv(paths["summary"])) == len(summary)
    assert paths["png"].stat().st_size > 1000


def test_population_references_are_the_exact_curves_at_t():
    result = run_finite_sample(
        FiniteSampleExperiment(term_sizes=(2, 3, 2), train_sizes=(50,), test_size=50,
                               repetitions=1, max_splits=3, distributions=("p0.3-0.7",))
    )
    dnf = TINY.target
    dist = TINY.distribution("p0.3-0.7")
    # Half of the 7 variables (3) in the first group, the rest in the second.
    assert sorted(np.unique(dist.p, return_counts=True)[1].tolist()) == [3, 4]
    expected = {
        "TopDown": top_down(dnf, dist, 3).errors[3],
        "BestFirst": best_first(dnf, dist, 3).errors[3],
        "BestFirst (ties to most probable)": best_first(
            dnf, dist, 3, tie_break="most_probable"
        ).errors[3],
        "OPT": optimal_errors(dnf, dist, 3)[3],
    }
    got = dict(zip(result.reference["algorithm"], result.reference["population_error"],
                   strict=True))
    assert got == pytest.approx(expected, abs=1e-15)


def test_draws_do_not_depend_on_jobs_or_on_the_other_sizes():
    one = run_finite_sample(TINY, jobs=1).rows
    two = run_finite_sample(TINY, jobs=2).rows
    columns = ["distribution", "train_size", "repetition", "algorithm", "test_error"]
    pd.testing.assert_frame_equal(one[columns], two[columns])
    only_large = FiniteSampleExperiment(
        term_sizes=(2, 3, 2), train_sizes=(400,), test_size=300, repetitions=2, max_splits=3,
        distributions=("p0.4-0.6",),
    )
    alone = run_finite_sample(only_large).rows
    same = one[(one["train_size"] == 400) & (one["distribution"] == "p0.4-0.6")]
    np.testing.assert_array_equal(alone["test_error"], same["test_error"])


@pytest.mark.parametrize("probabilities", [(0.5,), (0.3, 0.7)])
def test_tree_population_error_equals_the_truth_table_error(probabilities):
    dnf = ReadOnceDNF.parse("(x1 & x2) | (~x3 & x4 & x5) | x6", n_variables=7)
    rng = np.random.default_rng(3)
    if len(probabilities) == 1:
        dist = ProductDistribution.uniform(7)
    else:
        dist = ProductDistribution.two_valued(*probabilities, rng.integers(1, 3, size=7))
    X = dist.sample(300, rng)
    model = DecisionTreeClassifier(criterion="entropy", growth="best_first", max_leaf_nodes=6,
                                   categorical_features=None).fit(X, dnf.evaluate(X))
    table = TruthTable(dnf, dist)
    wrong = model.predict(table.X) != table.y
    assert tree_population_error(model.tree_.flat, model.classes_, dnf, dist) == pytest.approx(
        float(table.weight[wrong].sum()), abs=1e-14
    )


def test_experiment_validation():
    with pytest.raises(ValueError, match="increasing"):
        FiniteSampleExperiment(train_sizes=(100, 50))
    with pytest.raises(ValueError, match=">= 2"):
        FiniteSampleExperiment(train_sizes=(1, 50))
    with pytest.raises(ValueError, match="repetitions must be a positive int"):
        FiniteSampleExperiment(repetitions=0)
    with pytest.raises(ValueError, match="distributions must be among"):
        FiniteSampleExperiment(distributions=("gaussian",))
    with pytest.raises(ValueError, match="jobs must be a non-zero int"):
        run_finite_sample(TINY, jobs=0)
    with pytest.raises(TypeError, match="FiniteSampleExperiment"):
        run_finite_sample({"repetitions": 2})


def test_cli_finite_sample_writes_csvs_and_figure5(tmp_path):
    runner = CliRunner()
    outcome = runner.invoke(
        app,
        ["bench", "mic", "--finite-sample", "--sizes", "50", "--sizes", "200", "--repetitions",
         "2", "--test-size", "200", "--t-max", "4", "--term-sizes", "2", "--term-sizes", "3",
         "--term-sizes", "2", "--jobs", "2", "--out", str(tmp_path)],
    )
    assert outcome.exit_code == 0, outcome.output
    rows = pd.read_csv(tmp_path / "mic_finite_sample.csv")
    assert sorted(set(rows["train_size"])) == [50, 200]
    assert (rows["n_leaves"] <= 5).all()
    assert (tmp_path / "mic_figure5.png").stat().st_size > 1000
    assert "TopDown" in outcome.output and "OPT" in outcome.output


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--finite-sample", "--sweep", "uniform"], "cannot be combined"),
        (["--repetitions", "3"], "add --finite-sample"),
        (["--finite-sample", "--sizes", "50", "--sizes", "abc"], "expected integers"),
        (["--finite-sample", "--sizes", "500", "--sizes", "50"], "increasing"),
        (["--finite-sample", "--term-sizes", "2", "--term-sizes", "0"],
         "term size must be a positive int"),
        (["--finite-sample", "--sizes", "500,50"], "comma-separated values are deprecated"),
    ],
)
def test_cli_rejects_mixed_or_bad_options(arguments, message, tmp_path):
    # A wide terminal keeps rich from wrapping the error message.
    outcome = CliRunner(env={"COLUMNS": "300"}).invoke(
        app, ["bench", "mic", *arguments, "--out", str(tmp_path)]
    )
    assert outcome.exit_code != 0
    assert message in outcome.output
