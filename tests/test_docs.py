"""Every Python block of the user guide and the README runs (blocks of a page share a namespace)."""

import re
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


def test_the_guide_has_examples():
    assert sum(len(_python_blocks(p)) for p in PAGES) >= 10


@pytest.mark.parametrize("page", [p for p in PAGES if _python_blocks(p)], ids=lambda p: p.name)
def test_page_examples_run(page, capsys):
    namespace: dict = {"__name__": f"doc_{page.stem}"}
    for i, block in enumerate(_python_blocks(page)):
        try:
            exec(compile(block, f"{page.name}[block {i}]", "exec"), namespace)
        except Exception as exc:  # pragma: no cover - the message is the point
            raise AssertionError(f"{page.name} block {i} failed: {exc!r}\n{block}") from exc
