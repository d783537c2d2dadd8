"""Memory and time of a histogram-mode fit on 1 000 000 rows x 50 numeric features
(``benchmarks/bench_scale.py``).

Each configuration runs in a fresh subprocess: it generates the data, records its resident set
size (RSS), fits, and reports the peak RSS (``ru_maxrss``, which sees every allocation: numpy's,
numba's and Python's) minus the RSS once the input exists. Target (issue 7): the fit needs at
most 2 GB above the input.

Sparse rows (issue 24): a 100,000 x 10,000 scipy.sparse matrix at 0.1 % density (coordinates
drawn with numpy's ``default_rng``; scipy's ``sp.random`` with a ``RandomState`` permutes every
cell), fitted by treebound and by scikit-learn's ``DecisionTreeClassifier``, each in its own
fresh process (wall and CPU time, peak RSS above the input). Target: treebound in less time and
less memory than scikit-learn.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from treebound_lab.provenance import results_header

__all__ = ["CONFIGS", "SPARSE_CONFIGS", "run_one", "run_scale_benchmark", "run_sparse_one",
           "sparse_section"]

#: (splitter, max_leaf_nodes) of the fits measured.
CONFIGS = (("hist", 255), ("hist", None), ("exact", 255))
#: Rows, columns and density of the sparse matrix.
SPARSE_SHAPE = (100_000, 10_000, 0.001)
#: (label, tree parameters) of the sparse fits, the same for both libraries.
SPARSE_CONFIGS = (("max_depth=10", {"max_depth": 10}),
                  ("max_leaf_nodes=255", {"max_leaf_nodes": 255}))

_CHILD = r"""
import json, os, resource, sys, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np
from treebound import DecisionTreeClassifier

rows, features, leaves, splitter = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
leaves = None if leaves == "None" else int(leaves)
# warm the kernels (compile or load the cache) on a tiny problem first
DecisionTreeClassifier(splitter=splitter, max_leaf_nodes=leaves).fit(
    np.random.rand(50, 3), np.arange(50) % 2)

def rss_mib():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

rng = np.random.default_rng(0)
X = rng.normal(size=(rows, features))
y = (X[:, 0] + 0.5 * X[:, 1] - X[:, 2] * X[:, 3] + rng.normal(size=rows) > 0).astype(np.int64)
base = rss_mib()
peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
start = time.perf_counter()
model = DecisionTreeClassifier(splitter=splitter, max_leaf_nodes=leaves).fit(X, y)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"input_mib": X.nbytes / 2**20, "base_rss_mib": base,
                  "peak_rss_mib": max(peak, peak_before), "extra_mib": max(peak, peak_before) - base,
                  "seconds": seconds, "leaves": model.get_n_leaves(),
                  "train_accuracy": float(model.score(X[:200000], y[:200000]))}))
"""


_SPARSE_CHILD = r"""
import json, os, resource, sys, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import numpy as np
import scipy.sparse as sp

library, rows, cols, density = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
params = json.loads(sys.argv[5])
if library == "treebound":
    from treebound import DecisionTreeClassifier as Tree
    extra = {"growth": "top_down"} if "max_leaf_nodes" in params else {}
else:
    from sklearn.tree import DecisionTreeClassifier as Tree
    extra = {"random_state": 0}
# warm up (numba compiles or loads its cache; scikit-learn imports) on a small sparse problem
# beyond the densified size (2**25 cells), so that treebound's sparse kernels run
warm = np.random.default_rng(1)
k = 40_000
small = sp.coo_matrix((warm.normal(size=k), (warm.integers(0, 4000, k),
                                             warm.integers(0, 10_000, k))),
                      shape=(4000, 10_000)).tocsc()
Tree(**params, **extra).fit(small, np.arange(4000) % 2)

def rss_mib():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20

rng = np.random.default_rng(0)
stored = int(rows * cols * density)
r, c = rng.integers(0, rows, stored), rng.integers(0, cols, stored)
X = sp.coo_matrix((rng.normal(size=stored), (r, c)), shape=(rows, cols)).tocsc()
X.sum_duplicates()
signal = np.asarray(X[:, :1000].sum(axis=1)).ravel()
y = ((signal > 0) ^ (rng.random(rows) < 0.1)).astype(np.int64)
del r, c, signal

def status_mib(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024

# the peak resident size (VmHWM) starts again from the current size here: the temporaries of
# the data's construction do not hide a smaller fit's peak (Linux: /proc/self/clear_refs)
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")
base = status_mib("VmRSS")
wall, cpu = time.perf_counter(), time.process_time()
model = Tree(**params, **extra).fit(X, y)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
peak = status_mib("VmHWM")
input_mib = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20
print(json.dumps({"input_mib": input_mib, "nnz": int(X.nnz), "extra_mib": peak - base,
                  "wall": wall, "cpu": cpu, "leaves": int(model.get_n_leaves()),
                  "train_accuracy": float(model.score(X.tocsr()[:20000], y[:20000]))}))
"""


def run_sparse_one(library: str, params: dict, shape=SPARSE_SHAPE) -> dict:
    """Time and memory of one sparse fit (``library``: "treebound" or "scikit-learn") in a
    fresh process."""
    rows, cols, density = shape
    out = subprocess.run([sys.executable, "-c", _SPARSE_CHILD, library, str(rows), str(cols),
                          str(density), json.dumps(params)], capture_output=True, text=True,
                         check=True, env={**os.environ})
    return json.loads(out.stdout.strip().splitlines()[-1])


def sparse_section(shape=SPARSE_SHAPE, configs=SPARSE_CONFIGS, echo=print) -> list[str]:
    """Markdown lines of the sparse rows: treebound and scikit-learn, one fresh process each."""
    rows, cols, density = shape
    results = []
    for label, params in configs:
        pair = {lib: run_sparse_one(lib, params, shape) for lib in ("treebound", "scikit-learn")}
        results.append((label, pair))
        tb, sk = pair["treebound"], pair["scikit-learn"]
        echo(f"sparse {label}: treebound {tb['wall']:.1f} s wall / {tb['cpu']:.1f} s CPU, "
             f"{tb['extra_mib']:.0f} MiB; scikit-learn {sk['wall']:.1f} s / {sk['cpu']:.1f} s, "
             f"{sk['extra_mib']:.0f} MiB")
    first = results[0][1]["treebound"]
    lines = [
        "## Sparse rows",
        "",
        f"{rows} x {cols} scipy.sparse matrix at {100 * density:g} % density ({first['nnz']} "
        f"stored standard-normal values, compressed columns of {first['input_mib']:.0f} MiB; "
        "coordinates drawn with numpy's `default_rng`), binary target: the sign of the row's "
        "sum over the first 1,000 columns, 10 % of labels flipped. Each fit in its own fresh "
        "process, warmed up on a 4,000 x 10,000 sparse problem: wall and CPU time of `fit`, peak "
        "resident set size during the fit (`VmHWM`, reset just before it through "
        "`/proc/self/clear_refs`) minus the size once the input exists. treebound: the exact "
        "splitter, `growth=\"top_down\"` (scikit-learn's best-first order) with "
        "`max_leaf_nodes`; scikit-learn: `random_state=0`. Ratios: treebound / scikit-learn. "
        "Target (issue 24): treebound faster and in less memory.",
        "",
        "| setting | library | fit wall (s) | fit CPU (s) | peak above input (MiB) | leaves | "
        "train acc (first 20k rows) | wall ratio | CPU ratio | memory ratio |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    met = True
    for label, pair in results:
        tb, sk = pair["treebound"], pair["scikit-learn"]
        ratios = (tb["wall"] / sk["wall"], tb["cpu"] / sk["cpu"],
                  tb["extra_mib"] / max(sk["extra_mib"], 1e-9))
        met = met and ratios[1] < 1.0 and ratios[2] < 1.0
        for lib, r in pair.items():
            tail = " | ".join(f"{x:.2f}x" for x in ratios) if lib == "treebound" else " | |"
            lines.append(f"| {label} | {lib} | {r['wall']:.1f} | {r['cpu']:.1f} | "
                         f"{r['extra_mib']:.0f} | {r['leaves']} | {r['train_accuracy']:.4f} | "
                         f"{tail} |")
    lines += ["", f"Sparse target met (CPU time and memory below scikit-learn's in every "
              f"setting): {'yes' if met else 'NO'}.", ""]
    return lines


def run_one(rows: int, features: int, leaves, splitter: str) -> dict:
    """Time and memory of one fit in a fresh process."""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(rows), str(features), str(leaves),
                          splitter], capture_output=True, text=True, check=True,
                         env={**os.environ})
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_scale_benchmark(out, *, rows=1_000_000, features=50, configs=CONFIGS, command=None,
                        echo=print, sparse_shape=SPARSE_SHAPE,
                        sparse_configs=SPARSE_CONFIGS) -> str:
    """Run every configuration, write the page to ``out`` and return its text."""
    # before the run: the load it starts under
    header = results_header(f"Scale: {rows:,} rows".replace(",", " "), command)
    results = []
    for splitter, leaves in configs:
        r = run_one(rows, features, leaves, splitter)
        r.update(splitter=splitter, leaves_budget=leaves)
        results.append(r)
        echo(f"{splitter:5s} max_leaf_nodes={leaves}: {r['seconds']:.1f} s, "
             f"{r['extra_mib']:.0f} MiB above the input, {r['leaves']} leaves")
    lines = header + [
        f"{rows} rows x {features} standard-normal features (float64 input of "
        f"{results[0]['input_mib']:.0f} MiB), binary target. Memory: peak resident set size of a "
        "fresh process during the fit minus its size once the input exists (this counts numpy, "
        "numba and Python allocations alike). Target (issue 7): histogram mode within 2 GB "
        "(2048 MiB) above the input.",
        "",
        "| splitter | max_leaf_nodes | fit time (s) | peak above input (MiB) | leaves | train acc "
        "(first 200k rows) |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(f"| {r['splitter']} | {r['leaves_budget']} | {r['seconds']:.1f} | "
                     f"{r['extra_mib']:.0f} | {r['leaves']} | {r['train_accuracy']:.4f} |")
    hist_ok = all(r["extra_mib"] <= 2048 for r in results if r["splitter"] == "hist")
    lines += ["", f"Target met: {'yes' if hist_ok else 'NO'}.", ""]
    if sparse_shape is not None:  # None: the dense rows only
        lines += sparse_section(sparse_shape, sparse_configs, echo=echo)
    text = "\n".join(lines)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(text)
    return text
