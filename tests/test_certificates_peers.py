"""Certificates of optimal sparse trees (STreeD, GOSDT) and the ``bench peers`` experiment.

The adapter tests need the ``bench`` extra (``pip install 'treebound[bench]'``) and skip with
that reason when ``pystreed`` or ``gosdt`` is missing; the rest runs everywhere.
"""

import contextlib
import gzip
import importlib.util
import io
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound import certify
from treebound.certificates import deployed_tree
from treebound.certificates._peers import float32_sklearn_midpoint

HAS_STREED = importlib.util.find_spec("pystreed") is not None
HAS_GOSDT = importlib.util.find_spec("gosdt") is not None
needs_streed = pytest.mark.skipif(not HAS_STREED, reason="pystreed not installed (the bench "
                                  "extra: pip install 'treebound[bench]')")
needs_gosdt = pytest.mark.skipif(not HAS_GOSDT, reason="gosdt not installed (the bench extra: "
                                 "pip install 'treebound[bench]')")


def _data(n, seed):
    """A binary column, two continuous ones (one with few values), three classes."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 2, n), rng.normal(size=n).round(3),
                         rng.integers(0, 4, n) * 0.5]).astype(np.float64)
    y = np.where(X[:, 1] > 0.3, 2, (X[:, 0] + (X[:, 2] > 0.7)) % 2).astype(np.int64)
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, 3, int(flip.sum()))
    return X, y


def _fresh(n, seed):
    """New rows from the domain the model saw: continuous values anywhere, binary in {0, 1}."""
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.integers(0, 2, n), rng.normal(scale=2.0, size=n),
                            rng.uniform(-1, 3, n)])


def _deployed_labels(model, X):
    deployed = deployed_tree(model, X)
    return deployed.classes[deployed.predict_index()]


# --------------------------------------------------------------------------- no extras
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-10**7, 10**7), min_size=2, max_size=30, unique=True),
       st.sampled_from([1.0, 0.1, 0.001, 1.7]))
def test_float32_midpoint_is_the_threshold_scikit_learn_computes(integers, scale):
    """Oracle: scikit-learn's own split between two float32 values on a one-feature stump
    (values with a few decimals, as data have; scikit-learn merges values closer than 1e-7)."""
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    values = np.asarray(integers, dtype=np.float64) * scale
    f32 = np.unique(values.astype(np.float32))
    if f32.shape[0] < 2:
        return
    # labels split the sorted values between two neighbours, so the stump's threshold lies there
    cut = f32.shape[0] // 2
    column = np.asarray(values).reshape(-1, 1)
    y = (column[:, 0].astype(np.float32) >= f32[cut]).astype(int)
    stump = SklearnTree(max_depth=1).fit(column, y)
    expected = stump.tree_.threshold[0]
    low = values[values.astype(np.float32) == f32[cut - 1]][0]
    high = values[values.astype(np.float32) == f32[cut]][0]
    assert float32_sklearn_midpoint(low, high) == expected


def test_treebound_never_imports_the_peers():
    code = ("import sys\nimport numpy as np\nfrom sklearn.tree import DecisionTreeClassifier\n"
            "from treebound import certify, DecisionTreeClassifier as T\n"
            "X = np.random.default_rng(0).normal(size=(60, 3)); y = (X[:, 0] > 0).astype(int)\n"
            "certify(DecisionTreeClassifier(max_depth=2).fit(X, y), X, y)\n"
            "certify(T(max_leaf_nodes=3).fit(X, y), X, y)\n"
            "assert 'pystreed' not in sys.modules and 'gosdt' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_unknown_models_name_the_supported_ones():
    from sklearn.linear_model import LogisticRegression

    X, y = _data(40, 0)
    with pytest.raises(TypeError, match="STreeDClassifier"):
        certify(LogisticRegression().fit(X, y), X, y)


# ------------------------------------------------------------------------------ STreeD
def _streed(strategy, depth=3, seed=0):
    from pystreed import STreeDClassifier

    X, y = _data(240, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = STreeDClassifier("cost-complex-accuracy", max_depth=depth, cost_complexity=0.002,
                                 continuous_binarize_strategy=strategy).fit(X, y)
    return model, X, y


@needs_streed
@pytest.mark.parametrize("strategy", ["tree", "quantile", "uniform"])
def test_streed_tree_predicts_what_streed_predicts(strategy):
    model, X, y = _streed(strategy)
    fresh = _fresh(500, 1)
    for rows in (X, fresh):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = model.predict(rows)
        np.testing.assert_array_equal(_deployed_labels(model, rows), expected)
    deployed = deployed_tree(model, X)
    assert deployed.tree.n_leaves == model.get_n_leaves()
    assert deployed.tree.max_depth == model.get_depth()
    assert deployed.n_features == 3  # the original features, not the binarized ones
    certificate = certify(model, X, y)
    assert certificate.n_leaves == model.get_n_leaves()
    assert certificate.n_errors == int(np.sum(expected_train(model, X) != y))
    assert 0.0 < certificate.risk_upper_bound < 1.0
    assert certificate.details["hti"] >= certificate.risk_upper_bound


def expected_train(model, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.predict(X)


@needs_streed
def test_streed_tree_binarization_is_compressible():
    """The "tree" strategy's thresholds are scikit-learn midpoints of float32 training values,
    so the compression set rebuilds them."""
    model, X, y = _streed("tree")
    c = certify(model, X, y, method="compression")
    assert 0.0 < c.risk_upper_bound < 1.0
    assert c.details["compression_size"] <= 2 * (model.get_n_leaves() - 1)


@needs_streed
def test_streed_refuses_rows_where_its_binary_test_differs():
    model, X, y = _streed("tree")
    bad = X.copy()
    bad[0, 0] = 2.0  # STreeD reads the binary column as nonzero, the deployed tree as <= 0.5
    with pytest.raises(ValueError, match="binary"):
        deployed_tree(model, bad)
    with pytest.raises(ValueError, match="rows"):
        certify(model, X[:-1], y[:-1])  # not the training sample


# ------------------------------------------------------------------------------- GOSDT
def _gosdt(binarizer_kind, seed=0):
    from gosdt import GOSDTClassifier, NumericBinarizer, ThresholdGuessBinarizer
    from sklearn.pipeline import Pipeline

    # NumericBinarizer makes a binary column per distinct value: 120 rows (~120 columns) keep
    # every kind of threshold and fit GOSDT in a quarter of the time of 200 rows (~190 columns)
    X, y = _data(200 if binarizer_kind == "guess" else 120, seed)
    if binarizer_kind == "guess":
        binarizer = ThresholdGuessBinarizer(n_estimators=20, max_depth=1, random_state=0)
    else:
        binarizer = NumericBinarizer()
    binarizer.fit(X, y)
    with contextlib.redirect_stdout(io.StringIO()):
        classifier = GOSDTClassifier(regularization=0.02, depth_budget=3).fit(
            binarizer.transform(X), y)
    return Pipeline([("binarizer", binarizer), ("gosdt", classifier)]), X, y


def _gosdt_own(pipeline, X):
    from treebound_lab.peers_bench import gosdt_predict

    binarizer, classifier = pipeline.steps[0][1], pipeline.steps[1][1]
    return gosdt_predict(classifier, binarizer.transform(X))


@needs_gosdt
@pytest.mark.parametrize("binarizer_kind", ["guess", "numeric"])
def test_gosdt_pipeline_predicts_what_gosdt_predicts(binarizer_kind):
    pipeline, X, y = _gosdt(binarizer_kind)
    for rows in (X, _fresh(500, 2)):
        np.testing.assert_array_equal(_deployed_labels(pipeline, rows), _gosdt_own(pipeline, rows))
    certificate = certify(pipeline, X, y)
    assert certificate.n_errors == int(np.sum(_gosdt_own(pipeline, X) != y))
    assert 0.0 < certificate.risk_upper_bound < 1.0
    # thresholds are midpoints of training values under the binarizer's own rule
    assert 0.0 < certify(pipeline, X, y, method="compression").risk_upper_bound < 1.0


@needs_gosdt
def test_gosdt_alone_reads_binary_features():
    pipeline, X, y = _gosdt("guess")
    binarizer, classifier = pipeline.steps[0][1], pipeline.steps[1][1]
    B = binarizer.transform(X)
    np.testing.assert_array_equal(_deployed_labels(classifier, B), _gosdt_own(pipeline, X))
    assert certify(classifier, B, y).risk_upper_bound < 1.0
    with pytest.raises(ValueError, match="binary"):
        deployed_tree(classifier, B * 2.0)


# ------------------------------------------------------------------------ the benchmark
META = """dataset: {name}
task: classification
features:
  - name: a
    type: continuous
  - name: b
    type: continuous
  - name: c
    type: continuous
"""


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("peers_data")
    X, y = _data(120, 5)
    lines = ["a\tb\tc\ttarget"] + [f"{r[0]}\t{r[1]}\t{r[2]}\t{t}" for r, t in zip(X, y,
                                                                                  strict=True)]
    with gzip.open(d / "toy.tsv.gz", "wt") as handle:
        handle.write("\n".join(lines) + "\n")
    (d / "toy.metadata.yaml").write_text(META.format(name="toy"))
    return d


def test_bench_peers_cli_writes_the_page_and_resumes(data_dir, tmp_path):
    from typer.testing import CliRunner

    from treebound.cli.main import app
    from treebound_lab.grid import read_rows

    models = ["bound", "ccp_cv", "ddt", "sklearn_cart_cv"]
    models += ["streed_cv"] if HAS_STREED else []
    models += ["gosdt_cv"] if HAS_GOSDT else []
    out = tmp_path / "peers.md"
    args = ["bench", "peers", "--data-dir", str(data_dir), "--datasets", "toy", "--splits", "1",
            "--folds", "3", "--streed-time-limit", "1", "--gosdt-time-limit", "1",
            *[part for m in models for part in ("--models", m)], "--out", str(out), "--plot",
            str(tmp_path / "peers.png")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = read_rows(tmp_path / "peers.csv")
    assert sorted(r["model"] for r in rows) == sorted(models)
    for r in rows:
        assert float(r["certificate"]) >= float(r["train_error"])
        assert int(r["n_leaves"]) >= 1 and float(r["fit_seconds"]) > 0.0
    text = out.read_text()
    assert "## Targets" in text and "same budget of **3 folds**" in text
    assert (tmp_path / "peers.png").stat().st_size > 0
    # --resume runs nothing new; --report-only rewrites the page from the CSV
    again = CliRunner().invoke(app, [*args, "--resume"])
    assert again.exit_code == 0 and "0 splits to run" in again.output
    assert len(read_rows(tmp_path / "peers.csv")) == len(rows)
    only = CliRunner().invoke(app, [*args[:-4], "--splits", "2", "--report-only", "--out",
                                    str(out), "--plot", str(tmp_path / "peers.png")])
    assert only.exit_code == 0 and "Incomplete run" in out.read_text()


def test_bench_peers_rejects_unknown_models(data_dir, tmp_path):
    from typer.testing import CliRunner

    from treebound.cli.main import app

    result = CliRunner().invoke(app, ["bench", "peers", "--data-dir", str(data_dir), "--models",
                                      "bound,nope", "--out", str(tmp_path / "x.md")])
    assert result.exit_code != 0 and "nope" in result.output


def test_importing_the_certificates_loads_no_sklearn_tree():
    # scikit-learn's trees are recognised by the module of their class: importing sklearn.tree
    # to ask would add ~0.4 s to every import of the estimators
    code = ("import sys\nimport treebound.certificates\nfrom treebound import DecisionTreeClassifier\n"
            "assert 'sklearn.tree' not in sys.modules, 'sklearn.tree imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------- the benchmark's calls to the engines
@pytest.mark.parametrize("engine", ["streed_cv", "gosdt_cv"])
def test_peer_engines_get_labels_zero_to_k_on_labels_minus_one_plus_one(engine):
    """pystreed 1.4 dies with a segmentation fault on labels -1/+1 (two features, 4,000 rows):
    the benchmark's one call path into the engines encodes the labels first, so such data
    runs; an engine that is not installed is skipped."""
    if not (HAS_STREED if engine == "streed_cv" else HAS_GOSDT):
        pytest.skip(f"{'pystreed' if engine == 'streed_cv' else 'gosdt'} not installed (the "
                    "bench extra: pip install 'treebound[bench]')")
    from treebound_lab.peers_bench import PeersTask, run_split

    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 2)).round(3)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1, -1)
    y[rng.random(400) < 0.1] *= -1
    rows = run_split(PeersTask("minus-one-plus-one", 0, X, y, (engine,), n_folds=3,
                               streed_time_limit=2.0, gosdt_time_limit=2))
    assert [r["model"] for r in rows] == [engine]
    assert rows[0]["test_error"] < 0.3 and 0 < rows[0]["certificate"] <= 1
