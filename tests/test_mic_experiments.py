"""The MIC sweep (section 8.2) and ``treebound bench mic``."""

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from treebound.cli.main import app
from treebound.mic import (
    ProductDistribution,
    ReadOnceDNF,
    best_first,
    mic,
    optimal_errors,
    top_down,
)
from treebound_lab.cli._mic import Sweep
from treebound_lab.mic import (
    SWEEPS,
    PopulationSweep,
    run_population_sweep,
    write_sweep_outputs,
)

SMALL_TWO_VALUED = PopulationSweep("small", (0.3, 0.7), 2, 2, "test family")


def dnf_of(state):
    """A concrete DNF and distribution for a class-count state of SMALL_TWO_VALUED."""
    terms, groups = [], []
    for n1, n2 in state:
        terms.append([(len(groups) + j, True) for j in range(n1 + n2)])
        groups += [1] * n1 + [2] * n2
    return ReadOnceDNF(terms, len(groups)), ProductDistribution.two_valued(0.3, 0.7, groups)


def test_sweep_rows_equal_the_public_api_per_dnf(tmp_path):
    t_max = 6
    result = run_population_sweep(SMALL_TWO_VALUED, t_max, jobs=2)
    # 5 term profiles with <= 2 literals -> 5 + 15 DNFs with <= 2 terms.
    assert len(result.states) == 20
    frame = result.summary_frame()
    for row, state in enumerate(result.states):
        f, d = dnf_of(state)
        opt = optimal_errors(f, d, t_max)
        np.testing.assert_allclose(result.optimal[row], opt, atol=1e-15)
        for policy, grow in (("top_down", top_down), ("best_first", best_first)):
            for tie_break, suffix in (("least_probable", ""), ("most_probable", "_most_probable")):
                errors = grow(f, d, t_max, tie_break=tie_break).errors
                np.testing.assert_allclose(result.errors[(policy, tie_break)][row], errors)
                assert frame.loc[row, f"mic_{policy}{suffix}"] == pytest.approx(
                    mic(errors, opt, t_max), abs=1e-15
                )
    paths = write_sweep_outputs(result, tmp_path)
    written = pd.read_csv(paths["csv"])
    assert len(written) == 20 and written["terms"].iloc[-1] == "(2,0) (2,0)"
    assert paths["png"].stat().st_size > 1000


def test_shares_count_dnfs_against_the_paper_thresholds():
    result = run_population_sweep(SMALL_TWO_VALUED, 6, tie_breaks=("least_probable",))
    values = result.mic("best_first", "least_probable")
    share = result.shares()[("best_first", "least_probable")]
    assert share["below_0.01"] == np.mean(values < 0.01)
    assert share["above_0.05"] == np.mean(values > 0.05)
    assert share["max"] == values.max()


def test_sweep_validation():
    with pytest.raises(ValueError, match="sweep must be one of"):
        run_population_sweep("gaussian")
    with pytest.raises(ValueError, match="t_max must be an int >= 1"):
        run_population_sweep("uniform", 0)
    with pytest.raises(ValueError, match="tie_break must be one of"):
        run_population_sweep("uniform", 3, tie_breaks=("first",))


def test_cli_choices_are_the_registered_sweeps():
    assert {s.value for s in Sweep} == set(SWEEPS)


def test_cli_bench_mic_writes_csv_and_png(tmp_path):
    runner = CliRunner()
    outcome = runner.invoke(
        app, ["bench", "mic", "--sweep", "uniform", "--t-max", "3", "--out", str(tmp_path)]
    )
    assert outcome.exit_code == 0, outcome.output
    frame = pd.read_csv(tmp_path / "mic_uniform.csv")
    assert len(frame) == 12869  # all multisets of <= 8 term sizes in 1..8
    row = frame.index[frame["terms"] == "2 3"][0]
    f = ReadOnceDNF.from_term_sizes([2, 3])
    d = ProductDistribution.uniform(5)
    expected = mic(best_first(f, d, 3).errors, optimal_errors(f, d, 3), 3)
    assert frame.loc[row, "mic_best_first"] == pytest.approx(expected, abs=1e-15)
    assert (tmp_path / "mic_uniform.png").stat().st_size > 1000
    assert "m < 0.01" in outcome.output
