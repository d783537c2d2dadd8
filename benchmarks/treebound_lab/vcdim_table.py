"""Reproduction of Leboeuf et al. (2020), appendix D, Figure 3: lower and upper bounds on the VC
dimension of the first 11 non-equivalent binary tree structures for ``ell = 10`` real features.

Run ``treebound bench figure3`` from a checkout to regenerate ``docs/vcdim.md``; its header names the command, commit, machine and date.
"""

from __future__ import annotations

from pathlib import Path

from treebound.theory import (
    PartitioningCache,
    TreeStructure,
    stump_vcdim,
    vcdim_lower_bound,
    vcdim_upper_bound,
)
from treebound_lab.provenance import results_header

#: The 11 shapes of Figure 3, in the paper's order (its reference code's ``tree1 .. tree11``).
FIGURE3_STRUCTURES = (
    "L",
    "(L,L)",
    "((L,L),L)",
    "((L,L),(L,L))",
    "(((L,L),L),L)",
    "(((L,L),(L,L)),L)",
    "(((L,L),L),(L,L))",
    "(((L,L),L),((L,L),L))",
    "(((L,L),(L,L)),(L,L))",
    "(((L,L),(L,L)),((L,L),L))",
    "(((L,L),(L,L)),((L,L),(L,L)))",
)


def figure3_rows(n_features: int = 10) -> list[dict]:
    """One row per shape: structure, leaves, height, lower and upper VC bounds."""
    cache = PartitioningCache()
    rows = []
    for i, text in enumerate(FIGURE3_STRUCTURES, start=1):
        shape = TreeStructure.parse(text)
        rows.append({
            "tree": i,
            "structure": text,
            "n_leaves": shape.n_leaves,
            "height": shape.height,
            "lower": vcdim_lower_bound(shape, n_features=n_features),
            "lower_binary": vcdim_lower_bound(shape, n_features=n_features, feature_type="binary"),
            "upper": vcdim_upper_bound(shape, n_features=n_features, cache=cache),
        })
    return rows


TITLE = "VC dimension of small tree structures (Leboeuf et al. 2020, Figure 3)"


def figure3_markdown(n_features: int = 10, command: str | None = None) -> str:
    """The page: its provenance header (``command``: the command named in it), then the table."""
    rows = figure3_rows(n_features)
    lines = results_header(TITLE, command) + [
        "Do not edit by hand: regenerate it with the command above.",
        "",
        f"Number of real-valued features: ell = {n_features}; exact VC dimension of the stump:",
        f"{stump_vcdim(n_features)} (Corollary 8: largest d with 2 ell >= C(d, floor(d/2))).",
        "",
        "* **lower**: Yıldız (2015) Figure 4 recursion LB(T) = LB(T_l) + LB(T_r) with the exact",
        "  stump VC dimension as base case, as in the paper's Figure 3 (real features: the children",
        "  keep all ell features).",
        "* **upper**: Algorithm 2 (appendix D) on the tight Theorem 9 bound of pi_T^2(m).",
        "* **lower, binary**: Yıldız's original recursion for ell binary features (base",
        "  floor(log2(d+1)) + 1, one feature consumed per level), for comparison.",
        "",
        "| tree | structure | leaves | height | lower | upper | lower, binary |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['tree']} | `{r['structure']}` | {r['n_leaves']} | {r['height']} | "
            f"{r['lower']} | {r['upper']} | {r['lower_binary']} |"
        )
    lines += [
        "",
        "Structures are written `L` for a leaf and `(A,B)` for a node with subtrees A and B.",
        "The values are asserted in `tests/test_theory_vcdim.py`.",
        "",
    ]
    return "\n".join(lines)


def write_figure3(path="docs/vcdim.md", n_features: int = 10, command: str | None = None) -> Path:
    """Write the Figure 3 page to ``path`` and return it (``command``: as in its header)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(figure3_markdown(n_features, command), encoding="utf-8")
    return path
