"""Every case of issue 16 ("Reliability 2") with what it ends in now
(``benchmarks/bench_reliability.py`` writes ``benchmarks/results/reliability.md``).

Each case runs in a fresh Python process that first imports treebound (and its command line),
then records its resident memory, runs the case and reports the wall time and the growth of
the peak resident memory over that baseline ("extra memory"; the issue's target: a result or a
one-line error within 10 s in under 1 GB). CLI cases run the ``treebound`` application
in-process through typer's test runner. The "before" column quotes the issue.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

from treebound_lab.provenance import results_header

__all__ = ["CASES", "TITLE", "run_case", "run_reliability_benchmark"]

TITLE = "Issue 16 (Reliability 2): every case, after"

#: Runs inside the child process: ``CASE`` (Python source defining run() -> str) is spliced in.
CHILD = r'''
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np, pandas as pd
import treebound, treebound.theory, treebound.certificates
from treebound.cli.main import app
from typer.testing import CliRunner

def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize()

def cli(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    lines = [line for line in result.output.strip().splitlines() if line.strip()]
    shown = next((line for line in lines if line.startswith("error")), None)
    if shown is None:  # a usage error drawn in a box by typer: its text
        boxed = [line.strip("│ ").strip() for line in lines if line.startswith("│")]
        shown = "usage error: " + " ".join(boxed) if boxed else (lines[-1] if lines else "")
    return f"exit {result.exit_code}: {shown}"

WORK = sys.argv[1]
CASE_SOURCE
base = rss()
started = time.perf_counter()
try:
    outcome = run()
except Exception as exc:
    outcome = f"{type(exc).__name__}: {exc}"
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"outcome": outcome, "seconds": seconds, "extra": max(peak - base, 0)}))
'''

#: (issue item, before (quoted from the issue), Python source of run()).
CASES = [
    ("`bound_` with one row weighted 1e308", "1 leaf, 62.7 % training error, `bound_` = 0.039",
     """
     def run():
         from sklearn.datasets import load_breast_cancer
         X, y = load_breast_cancer(return_X_y=True)
         w = np.ones(len(y)); w[0] = 1e308
         with warnings.catch_warnings(record=True) as caught:
             warnings.simplefilter("always")
             m = treebound.DecisionTreeClassifier(pruning="bound").fit(X, y, sample_weight=w)
         err = np.mean(m.predict(X) != y)
         return (f"{m.get_n_leaves()} leaf, training error {err:.3f}, bound_ = {m.pruning_objective_}, "
                 f"certificate {m.certificate_.risk_upper_bound:.3f}; warning: "
                 f"{str(caught[0].message)[:60]}...")
     """),
    ("leaf counts edited to [1e308, 1e308]", "loads; pruning returns a bound of -6.5e17",
     """
     def run():
         from sklearn.datasets import load_breast_cancer
         X, y = load_breast_cancer(return_X_y=True)
         doc = treebound.DecisionTreeClassifier(max_depth=4).fit(X, y).to_dict()
         leaf = doc["tree"]["first_child"].index(-1)
         doc["tree"]["value"][leaf] = [1e308, 1e308]
         path = WORK + "/edited.json"
         open(path, "w").write(json.dumps(doc))
         treebound.load_model(path)
         return "loaded"
     """),
    ("`save_model` with a symlink planted at `<name>.tmp`", "the link's target is overwritten",
     """
     def run():
         import os
         from sklearn.datasets import load_iris
         victim = WORK + "/victim.txt"; open(victim, "w").write("precious")
         os.symlink(victim, WORK + "/m.json.tmp")
         treebound.save_model(treebound.DecisionTreeClassifier().fit(*load_iris(return_X_y=True)),
                              WORK + "/m.json")
         return (f"victim {'unchanged' if open(victim).read() == 'precious' else 'OVERWRITTEN'};"
                 f" directory: {sorted(os.listdir(WORK))}")
     """),
    ("a failed save", "leaves `<name>.tmp` behind",
     """
     def run():
         import os
         from sklearn.datasets import load_iris
         model = treebound.DecisionTreeClassifier().fit(*load_iris(return_X_y=True))
         def full(fd): raise OSError(28, "No space left on device")
         os.fsync = full
         try:
             treebound.save_model(model, WORK + "/m.json")
         except OSError as exc:
             return f"OSError: {exc}; directory: {sorted(os.listdir(WORK))}"
         return "saved"
     """),
    ("`treebound vcdim` on a valid 10,000-deep structure", "14 GB in 55 s",
     """
     def run():
         return cli("vcdim", "(" * 10000 + "L,L)" + ",L)" * 9999, "-l", "10")
     """),
    ("a balanced 10,000-leaf structure (`vcdim`)", "past 60 s",
     """
     def run():
         def text(n):
             out, stack = [], [n]
             while stack:
                 item = stack.pop()
                 if isinstance(item, str): out.append(item)
                 elif item == 1: out.append("L")
                 else: out.append("("); stack.extend([")", item // 2, ",", (item + 1) // 2])
             return "".join(out)
         return cli("vcdim", text(10000), "-l", "10")
     """),
    ("`log_growth_function_upper_bound`, m = 1e7, 10 leaves", "16 s, 4 GB",
     """
     def run():
         t = treebound.TreeStructure.parse("((((L,L),(L,L)),(L,L)),(((L,L),L),L))")
         return str(treebound.log_growth_function_upper_bound(t, n_examples=10**7, n_features=10,
                                                              n_classes=2))
     """),
    ("`log_growth_function_upper_bound`, m = 1e7, 100 leaves", "past 60 s, 6.5 GB",
     """
     def run():
         t = treebound.TreeStructure.path(99)
         return str(treebound.log_growth_function_upper_bound(t, n_examples=10**7, n_features=10,
                                                              n_classes=2))
     """),
    ("`vcdim --examples 1e9`", "MemoryError traceback",
     """
     def run():
         return cli("vcdim", "((L,L),L)", "-l", "10", "--examples", "1e9")
     """),
    ("`vcdim --examples 1e20`", "OverflowError traceback",
     """
     def run():
         return cli("vcdim", "((L,L),L)", "-l", "10", "--examples", "100000000000000000000")
     """),
    ("`enumerate_structures(22)`", "1.3 GB, no guard",
     """
     def run():
         return str(len(treebound.theory.enumerate_structures(22)))
     """),
    ("`log_structure_prior(10000)`", "past 55 s",
     """
     def run():
         return f"{treebound.theory.log_structure_prior(10000):.3f}"
     """),
    ("bound pruning of a 200,000 x 20 histogram fit", "memory grew ~100 MB/s to 6.3 GB",
     """
     def run():
         rng = np.random.default_rng(0)
         X = rng.normal(size=(200_000, 20))
         y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=200_000) > 1).astype(int)
         with warnings.catch_warnings(record=True) as caught:
             warnings.simplefilter("always")
             m = treebound.DecisionTreeClassifier(splitter="hist", pruning="bound").fit(X, y)
         note = f"; warning: {str(caught[0].message)[:90]}..." if caught else ""
         return (f"{m.get_n_leaves()} leaves (variant {m.pruning_info_['variant']}, pruned in "
                 f"{m.pruning_time_:.1f} s), bound_ {m.pruning_objective_:.3f}, certificate "
                 f"{m.certificate_.risk_upper_bound:.3f}{note}")
     """),
    ("`fit --pruning bound` on 1,797 rows with 10 classes", "nothing printed for over a minute",
     """
     def run():
         from sklearn.datasets import load_digits
         X, y = load_digits(return_X_y=True)
         frame = pd.DataFrame(X, columns=[f"p{i}" for i in range(X.shape[1])])
         frame["digit"] = y
         frame.to_csv(WORK + "/digits.csv", index=False)
         result = CliRunner().invoke(app, ["fit", WORK + "/digits.csv", "--target", "digit",
                                           "--pruning", "bound", "--no-show-tree"])
         lines = [line.strip() for line in result.output.splitlines() if line.strip()]
         shown = next((line for line in lines if "leaves" in line), lines[-1])
         return (f"exit {result.exit_code} (a spinner runs while it prunes on a terminal): "
                 f"{shown[:100]}")
     """),
    ("bound pruning with 1,000 classes", "past 60 s",
     """
     def run():
         rng = np.random.default_rng(0)
         X = rng.normal(size=(5000, 5))
         y = rng.integers(0, 1000, 5000)
         with warnings.catch_warnings(record=True) as caught:
             warnings.simplefilter("always")
             m = treebound.DecisionTreeClassifier(pruning="bound").fit(X, y)
         note = f"; warning: {str(caught[0].message)[:90]}..." if caught else ""
         return (f"{len(m.classes_)} classes, {m.get_n_leaves()} leaves (variant "
                 f"{m.pruning_info_['variant']}), bound_ {m.pruning_objective_:.3f}{note}")
     """),
    ("`plot` of a 615-leaf tree", "53 s, 6 GB, a 108,694 x 5,013 px PNG",
     """
     def run():
         X = np.random.default_rng(0).normal(size=(20000, 5))
         y = np.random.default_rng(1).integers(0, 2, 20000)
         m = treebound.DecisionTreeClassifier(max_leaf_nodes=615, growth="top_down").fit(X, y)
         treebound.save_model(m, WORK + "/t.json")
         out = cli("plot", WORK + "/t.json", WORK + "/t.png")
         from PIL import Image
         return out + f" ({Image.open(WORK + '/t.png').size[0]} x {Image.open(WORK + '/t.png').size[1]} px)"
     """),
    ("`plot` of an 823-leaf tree", "MemoryError",
     """
     def run():
         X = np.random.default_rng(0).normal(size=(20000, 5))
         y = np.random.default_rng(1).integers(0, 2, 20000)
         m = treebound.DecisionTreeClassifier(max_leaf_nodes=823, growth="top_down").fit(X, y)
         treebound.save_model(m, WORK + "/t.json")
         out = cli("plot", WORK + "/t.json", WORK + "/t.png")
         from PIL import Image
         return out + f" ({Image.open(WORK + '/t.png').size[0]} x {Image.open(WORK + '/t.png').size[1]} px)"
     """),
    ("`plot --dpi 3000`", "traceback",
     """
     def run():
         from sklearn.datasets import load_iris
         treebound.save_model(treebound.DecisionTreeClassifier().fit(*load_iris(return_X_y=True)),
                              WORK + "/m.json")
         return cli("plot", WORK + "/m.json", WORK + "/m.png", "--dpi", "3000")
     """),
    ("`fit` with a rare level only in the 25 % evaluation split", "fails after training, no model",
     """
     def run():
         rng = np.random.default_rng(0)
         f = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(list("abc"), 300)})
         f["y"] = np.where(f.x > 0, "p", "q")
         f.loc[5, "c"] = "rare"
         f.to_csv(WORK + "/rare.csv", index=False)
         for seed in range(10):
             out = cli("fit", WORK + "/rare.csv", "--target", "y", "--seed", seed,
                       "--no-show-tree", "--save", WORK + "/r.json")
             if not out.startswith("exit 0"):
                 return out
         return "exit 0 for seeds 0-9 (the rare row is in the test part for some): model saved"
     """),
    ("`predict` a batch with one unseen level", "rejects the whole batch",
     """
     def run():
         rng = np.random.default_rng(0)
         f = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(list("abc"), 300)})
         f["y"] = np.where((f.x > 0) | (f.c == "a"), "p", "q")
         f.to_csv(WORK + "/d.csv", index=False)
         cli("fit", WORK + "/d.csv", "--target", "y", "--no-show-tree", "--save", WORK + "/m.json")
         f.drop(columns="y").head(5).assign(c=["zz", "a", "b", "c", "a"]).to_csv(
             WORK + "/new.csv", index=False)
         result = CliRunner().invoke(app, ["predict", WORK + "/m.json", WORK + "/new.csv"])
         return f"exit {result.exit_code}: " + " ".join(result.output.split())
     """),
    ("one typo (`'abc'`) in a numeric column", "silently categorical",
     """
     def run():
         rng = np.random.default_rng(0)
         f = pd.DataFrame({"x": rng.normal(size=300).round(3).astype(object)})
         f.loc[7, "x"] = "abc"
         f["y"] = np.where(rng.random(300) > 0.5, "p", "q")
         f.to_csv(WORK + "/typo.csv", index=False)
         result = CliRunner().invoke(app, ["fit", WORK + "/typo.csv", "--target", "y",
                                           "--no-show-tree"])
         return f"exit {result.exit_code}: " + result.output.splitlines()[0]
     """),
    ("a string ID column", "fitting impossible",
     """
     def run():
         rng = np.random.default_rng(0)
         f = pd.DataFrame({"id": [f"row{i}" for i in range(300)], "x": rng.normal(size=300)})
         f["y"] = np.where(f.x > 0, "p", "q")
         f.to_csv(WORK + "/id.csv", index=False)
         refused = cli("fit", WORK + "/id.csv", "--target", "y", "--no-show-tree")
         dropped = cli("fit", WORK + "/id.csv", "--target", "y", "--no-show-tree", "--drop", "id")
         return f"{refused} / with --drop id: {dropped}"
     """),
    ("`--sep`, `--encoding`, `--drop`", "missing",
     """
     def run():
         f = pd.DataFrame({"x": np.arange(60.0), "n": ["é"] * 60, "y": ["p", "q"] * 30})
         f.to_csv(WORK + "/d.txt", sep=";", index=False, encoding="latin-1")
         return cli("fit", WORK + "/d.txt", "--target", "y", "--sep", ";", "--encoding",
                    "latin-1", "--drop", "n", "--no-show-tree")
     """),
    ("duplicate column names", "renamed silently",
     """
     def run():
         open(WORK + "/dup.csv", "w").write("a,b,a,y\\n1,2,3,p\\n4,5,6,q\\n")
         return cli("fit", WORK + "/dup.csv", "--target", "y")
     """),
    ("`--pruning-param` without `--pruning`", "silently ignored",
     """
     def run():
         pd.DataFrame({"x": np.arange(40.0), "y": ["p", "q"] * 20}).to_csv(WORK + "/d.csv",
                                                                          index=False)
         return cli("fit", WORK + "/d.csv", "--target", "y", "--pruning-param", "delta=0.1")
     """),
    ("mixed str/int labels", "bare TypeError",
     """
     def run():
         X = np.random.default_rng(0).normal(size=(20, 2))
         treebound.DecisionTreeClassifier().fit(X, np.array([1, "a"] * 10, dtype=object))
         return "fitted"
     """),
    ("`demo --seed -1`", "traceback",
     """
     def run():
         return cli("demo", "--seed", "-1")
     """),
    ("`bench dyadic --data-dir /nonexistent`", "traceback",
     """
     def run():
         return cli("bench", "dyadic", "--data-dir", "/nonexistent")
     """),
    ("a 180 MB model.json with a 20-million-entry `pruning_path`", "loads, 39 s, 4.5 GB",
     """
     def run():
         from sklearn.datasets import load_iris
         doc = treebound.DecisionTreeClassifier(max_depth=2).fit(
             *load_iris(return_X_y=True)).to_dict()
         head, tail = json.dumps(doc).rsplit('"pruning_path": []', 1)
         with open(WORK + "/huge.json", "w") as fh:
             fh.write(head + '"pruning_path": [')
             chunk = ",".join(["[1, 0.5]"] * 1_000_000)
             for i in range(20):
                 fh.write(("," if i else "") + chunk)
             fh.write("]" + tail)
         import os
         size = os.path.getsize(WORK + "/huge.json") / 1e6
         started = time.perf_counter()
         try:
             treebound.load_model(WORK + "/huge.json")
             out = "loaded"
         except ValueError as exc:
             out = f"ValueError: {exc}"
         return f"({size:.0f} MB file written first; loading took {time.perf_counter() - started:.3f} s) " + out
     """),
]


def run_case(source: str) -> dict:
    """Outcome, seconds and extra memory (bytes) of one case's ``run()`` in a fresh process."""
    code = CHILD.replace("CASE_SOURCE", textwrap.dedent(source))
    with tempfile.TemporaryDirectory() as work:
        proc = subprocess.run([sys.executable, "-c", code, work], capture_output=True,
                              text=True, timeout=300)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"outcome": f"child failed: {proc.stderr.strip().splitlines()[-1:]}",
                "seconds": float("nan"), "extra": float("nan")}
    return json.loads(lines[-1])


def _cell(text: str) -> str:
    text = " ".join(str(text).split())
    return text.replace("|", "\\|")


def run_reliability_benchmark(out, *, cases=CASES, command=None, echo=print) -> str:
    """Run every case, one at a time, write the page to ``out`` and return its text."""
    header = results_header(TITLE, command)  # before the run: the load it starts under
    rows = []
    for title, before, source in cases:
        echo(title)
        result = run_case(source)
        rows.append((title, before, result))
        echo(f"  {result['seconds']:.2f} s, {result['extra'] / 2**20:.0f} MB: "
             f"{result['outcome'][:160]}")
    lines = header + [
        "Each case: a fresh process imports treebound and its command line, then runs the "
        "case; *time* is the case's wall time, *extra memory* the growth of the peak resident "
        "memory over the memory after the imports. Target of the issue: a result or a one-line "
        "error within 10 s in under 1 GB of extra memory. *Before* quotes the issue.",
        "",
        "| case | before (issue) | now | time (s) | extra memory (MB) |",
        "|---|---|---|---:|---:|",
    ]
    for title, before, result in rows:
        lines.append(f"| {_cell(title)} | {_cell(before)} | {_cell(result['outcome'])} | "
                     f"{result['seconds']:.2f} | {result['extra'] / 2**20:.0f} |")
    text = "\n".join(lines) + "\n"
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text, encoding="utf-8")
    return text
