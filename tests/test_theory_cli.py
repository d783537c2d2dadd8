from typer.testing import CliRunner

from treebound.cli.main import app


def test_vcdim_command():
    result = CliRunner().invoke(app, ["vcdim", "((L,L),L)", "--features", "10", "--examples", "200",
                                      "--classes", "3"])
    assert result.exit_code == 0, result.output
    assert "16" in result.output and "7" in result.output and "ln growth" in result.output


def test_vcdim_command_bad_structure():
    result = CliRunner().invoke(app, ["vcdim", "((L,L)", "--features", "3"])
    assert result.exit_code == 2
    assert "incomplete tree structure" in result.output


def test_figure3_bench_command(tmp_path):
    out = tmp_path / "vcdim.md"
    result = CliRunner().invoke(app, ["bench", "figure3", "--output", str(out)])
    assert result.exit_code == 0, result.output
    assert "| 3 | `((L,L),L)` | 3 | 2 | 7 | 16 | 5 |" in out.read_text()
