"""``treebound bench peers``: treebound against scikit-learn and optimal sparse trees.

Protocol of ``treebound bench pruning``: for every dataset and split ``i`` (seed ``10 i + 1``,
75/25 ``train_test_split``, every feature taken as real-valued), each model is fit on the
training part with its documented model-selection practice, every cross-validation with the
same budget of ``n_folds`` folds (``StratifiedKFold`` as ``GridSearchCV`` makes them):

* ``bound`` — ``treebound.DecisionTreeClassifier(pruning="bound")``, nothing else set: the
  library defaults (no model selection at all);
* ``ccp_cv`` — ``DecisionTreeClassifier(pruning="ccp_cv")``: the default growth pruned by
  cost-complexity, its alpha by ``n_folds``-fold CV;
* ``ddt`` — ``DyadicTreeClassifier()`` defaults (penalized dyadic tree, no CV), on datasets with
  at most :data:`DDT_MAX_FEATURES` features;
* ``sklearn_cart_cv`` — scikit-learn's CART grown to purity, ``ccp_alpha`` by ``GridSearchCV``
  over its pruning path;
* ``streed_cv`` — ``pystreed.STreeDClassifier`` minimizing misclassifications plus
  ``cost_complexity`` per branch node (``"cost-complex-accuracy"``), ``max_depth`` and
  ``cost_complexity`` chosen by CV over :data:`STREED_DEPTHS` x :data:`STREED_COST_COMPLEXITIES`
  (scikit-learn grid search, as pystreed's ``gridsearch_example.py``); continuous features
  binarized by its ``"tree"`` strategy (5 thresholds a feature, the setting of pystreed's
  comparison with CART); each fit limited to ``streed_time_limit`` seconds (its
  ``time_limit``: past it STreeD returns the best tree found, not proven optimal);
* ``gosdt_cv`` — ``gosdt.GOSDTClassifier`` as its README runs it: thresholds guessed by
  ``ThresholdGuessBinarizer(n_estimators=40, max_depth=1)`` on the training part, reference
  labels from a ``GradientBoostingClassifier(n_estimators=40, max_depth=1)`` on the binarized
  rows (``y_ref``, refit in every fold), ``similar_support=False``, ``depth_budget`` =
  :data:`GOSDT_DEPTH_BUDGET`, ``regularization`` chosen by CV over
  :data:`GOSDT_REGULARIZATIONS` (its FAQ's values; GOSDT raises any below ``1 / n`` to ``1 / n``)
  and each fit limited to ``gosdt_time_limit`` seconds (its ``time_limit``).

Every tree is read into treebound's flat tree (:func:`treebound.certificates.deployed_tree`),
checked to predict exactly what the library predicts on the training and test rows, and
certified on its training rows (``treebound.certify``, method ``auto``, delta 0.05). Times are
wall-clock seconds of everything the practice needs: binarization, cross-validation and the
final fit.
"""

from __future__ import annotations

import contextlib
import os
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from treebound_lab.cart_peer import SklearnCartCV

__all__ = ["DDT_MAX_FEATURES", "MODELS", "PEERS", "RUN_FIELDS", "PeersTask", "missing_extras",
           "run_split"]

MODELS = ("bound", "ccp_cv", "ddt", "sklearn_cart_cv", "streed_cv", "gosdt_cv")
#: The models of other libraries (the "peers" of the targets).
PEERS = ("sklearn_cart_cv", "streed_cv", "gosdt_cv")
DDT_MAX_FEATURES = 10
STREED_DEPTHS = (2, 3, 4)
STREED_COST_COMPLEXITIES = (0.001, 0.005, 0.02)
STREED_THRESHOLDS = 5
GOSDT_REGULARIZATIONS = (0.1, 0.05, 0.01, 0.005, 0.001)
GOSDT_DEPTH_BUDGET = 5
GOSDT_ESTIMATORS = 40
DELTA = 0.05
RUN_FIELDS = ["dataset", "split", "seed", "model", "n_train", "n_test", "n_features",
              "n_classes", "train_error", "test_error", "n_leaves", "depth", "fit_seconds",
              "n_fits", "timeouts", "selected", "certificate", "certificate_method", "hti",
              "compression", "prefix_code", "certify_seconds", "commit"]


@dataclass(frozen=True)
class PeersTask:
    dataset: str
    split: int
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    models: tuple[str, ...] = MODELS
    n_folds: int = 10
    streed_time_limit: float = 2.0
    gosdt_time_limit: int = 2
    commit: str = ""

    @property
    def seed(self) -> int:
        return 10 * self.split + 1


@dataclass
class Fitted:
    """A fitted model, how to get the library's own predictions, and how it was chosen."""

    model: object
    predict: object
    selected: str = ""
    n_fits: int = 1
    timeouts: int = 0


@contextlib.contextmanager
def _quiet():
    """Silence a library's prints, the C++ ones too (file descriptors 1 and 2)."""
    saved = [os.dup(1), os.dup(2)]
    with open(os.devnull, "w") as null, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            os.dup2(null.fileno(), 1)
            os.dup2(null.fileno(), 2)
            with contextlib.redirect_stdout(null), contextlib.redirect_stderr(null):
                yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)


def _folds(y, n_folds: int):
    """The folds ``GridSearchCV(cv=n_folds)`` uses for a classifier (no shuffling), fewer
    when the rarest class has fewer rows."""
    from sklearn.model_selection import StratifiedKFold

    k = max(2, min(n_folds, int(np.min(np.unique(y, return_counts=True)[1]))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(StratifiedKFold(n_splits=k).split(np.zeros((y.shape[0], 1)), y))


def _choose(configs, scores):
    """The first config (configs are listed simplest first) with the best mean score."""
    best = int(np.argmax(np.round(scores, 12)))
    return configs[best]


# ---------------------------------------------------------------------------- treebound
def _fit_bound(task, X, y) -> Fitted:
    from treebound import DecisionTreeClassifier

    model = DecisionTreeClassifier(pruning="bound").fit(X, y)
    return Fitted(model, model.predict)


def _fit_ccp_cv(task, X, y) -> Fitted:
    from treebound import DecisionTreeClassifier

    model = DecisionTreeClassifier(pruning="ccp_cv", pruning_params={"n_folds": task.n_folds},
                                   random_state=task.seed).fit(X, y)
    alpha = getattr(model, "pruning_info_", {}).get("alpha")
    return Fitted(model, model.predict, "" if alpha is None else f"alpha={alpha:.4g}",
                  n_fits=task.n_folds + 1)


def _fit_ddt(task, X, y) -> Fitted:
    from treebound import DyadicTreeClassifier

    model = DyadicTreeClassifier().fit(X, y)
    return Fitted(model, model.predict)


# --------------------------------------------------------------------------------- peers
def _fit_sklearn_cart_cv(task, X, y) -> Fitted:
    search = SklearnCartCV("grid_search", n_folds=task.n_folds, random_state=task.seed).fit(X, y)
    model = search.estimator_
    return Fitted(model, model.predict, f"ccp_alpha={search.alpha_:.4g}",
                  n_fits=search.n_candidates_ * search.n_splits_ + 1)


def _streed(task, depth, alpha):
    from pystreed import STreeDClassifier

    return STreeDClassifier("cost-complex-accuracy", max_depth=depth, cost_complexity=alpha,
                            continuous_binarize_strategy="tree", n_thresholds=STREED_THRESHOLDS,
                            time_limit=task.streed_time_limit, random_seed=task.seed)


def _fit_streed_cv(task, X, y) -> Fitted:
    configs = [(d, a) for d in STREED_DEPTHS for a in sorted(STREED_COST_COMPLEXITIES,
                                                               reverse=True)]
    folds = _folds(y, task.n_folds)
    scores = np.zeros(len(configs))
    timeouts = 0
    with _quiet():
        for c, (depth, alpha) in enumerate(configs):
            for train, test in folds:
                model = _streed(task, depth, alpha).fit(X[train], y[train])
                timeouts += not model.fit_result.is_optimal()
                scores[c] += np.mean(model.predict(X[test]) == y[test]) / len(folds)
        depth, alpha = _choose(configs, scores)
        model = _streed(task, depth, alpha).fit(X, y)
    timeouts += not model.fit_result.is_optimal()
    return Fitted(model, model.predict, f"max_depth={depth}, cost_complexity={alpha:g}",
                  n_fits=len(configs) * len(folds) + 1, timeouts=timeouts)


def _gosdt_fit(task, B, y, regularization):
    """GOSDT on binary rows ``B`` with reference labels from a boosted model (its README)."""
    from gosdt import GOSDTClassifier
    from sklearn.ensemble import GradientBoostingClassifier

    reference = GradientBoostingClassifier(n_estimators=GOSDT_ESTIMATORS, max_depth=1,
                                           random_state=task.seed).fit(B, y).predict(B)
    # the reference must predict every class GOSDT sees (a rare class may be missed)
    y_ref = reference if set(np.unique(reference)) == set(np.unique(y)) else None
    model = GOSDTClassifier(regularization=regularization, similar_support=False,
                            depth_budget=GOSDT_DEPTH_BUDGET,
                            time_limit=task.gosdt_time_limit).fit(B, y, y_ref=y_ref)
    return model, str(model.result_.status).endswith("TIMEOUT")


def gosdt_predict(classifier, B) -> np.ndarray:
    """What ``GOSDTClassifier.predict`` computes: its first tree on the binary rows (gosdt
    1.0.4's ``predict`` passes ``force_all_finite`` to ``check_array``, an argument
    scikit-learn >= 1.8 no longer takes)."""
    try:
        return classifier.predict(B)
    except TypeError:
        return classifier.trees_[0].predict(B)


def _fit_gosdt_cv(task, X, y) -> Fitted:
    from gosdt import ThresholdGuessBinarizer
    from sklearn.pipeline import Pipeline

    folds = _folds(y, task.n_folds)
    scores = np.zeros(len(GOSDT_REGULARIZATIONS))
    timeouts = 0
    with _quiet():
        binarizer = ThresholdGuessBinarizer(n_estimators=GOSDT_ESTIMATORS, max_depth=1,
                                            random_state=task.seed).fit(X, y)
        B = binarizer.transform(X)
        configs = sorted(GOSDT_REGULARIZATIONS, reverse=True)
        for train, test in folds:
            for c, regularization in enumerate(configs):
                model, timed_out = _gosdt_fit(task, B[train], y[train], regularization)
                timeouts += timed_out
                scores[c] += np.mean(gosdt_predict(model, B[test]) == y[test]) / len(folds)
        regularization = _choose(configs, scores)
        classifier, timed_out = _gosdt_fit(task, B, y, regularization)
    timeouts += timed_out
    pipeline = Pipeline([("binarizer", binarizer), ("gosdt", classifier)])
    return Fitted(pipeline, lambda Z: gosdt_predict(classifier, binarizer.transform(Z)),
                  f"regularization={max(regularization, 1.0 / len(y)):.4g}, "
                  f"{B.shape[1]} guessed thresholds",
                  n_fits=len(configs) * len(folds) + 1, timeouts=timeouts)


FITTERS = {"bound": _fit_bound, "ccp_cv": _fit_ccp_cv, "ddt": _fit_ddt,
           "sklearn_cart_cv": _fit_sklearn_cart_cv, "streed_cv": _fit_streed_cv,
           "gosdt_cv": _fit_gosdt_cv}


def applies(model_name: str, n_features: int) -> bool:
    """Whether the model runs on a dataset of ``n_features`` features (the DDT: at most
    :data:`DDT_MAX_FEATURES`)."""
    return model_name != "ddt" or n_features <= DDT_MAX_FEATURES


# ------------------------------------------------------------------------------- a split
_WARMED_UP: set[str] = set()


def _warm_up(models) -> None:
    """Fit treebound's models once on a small sample so that no timing includes compiling
    the numba kernels (once per process; compiled kernels are cached on disk anyway)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=80) > 0).astype(np.int64)
    task = PeersTask("warm-up", 0, X, y, n_folds=3)
    for name in models:
        if name in ("bound", "ccp_cv", "ddt") and name not in _WARMED_UP:
            FITTERS[name](task, X, y)
            _WARMED_UP.add(name)


def run_split(task: PeersTask) -> list[dict]:
    """Fit, check and certify every model of the task on one split; one row per model."""
    from sklearn.model_selection import train_test_split

    from treebound.certificates import certify, deployed_tree

    _warm_up(task.models)
    # Every engine gets the labels as 0 .. K-1 (the datasets already are): pystreed 1.4 dies
    # with a segmentation fault on labels -1/+1. Errors and certificates do not depend on the
    # names of the classes, and the split is the same.
    _, y_index = np.unique(task.y, return_inverse=True)
    X_tr, X_te, y_tr, y_te = train_test_split(task.X, y_index.astype(np.int64), test_size=0.25,
                                              random_state=task.seed)
    rows = []
    for name in task.models:
        if not applies(name, task.X.shape[1]):
            continue
        start = time.perf_counter()
        fitted = FITTERS[name](task, X_tr, y_tr)
        fit_seconds = time.perf_counter() - start
        predicted = {}
        for part, X_part in (("train", X_tr), ("test", X_te)):
            deployed = deployed_tree(fitted.model, X_part)
            own = np.asarray(fitted.predict(X_part))
            mine = deployed.classes[deployed.predict_index()]
            if not np.array_equal(own, mine):
                raise RuntimeError(f"{name} on {task.dataset} split {task.split}: the tree read "
                                   f"by certify predicts differently on {part} rows "
                                   f"({int(np.sum(own != mine))} of {own.shape[0]})")
            predicted[part] = own
        train_tree = deployed_tree(fitted.model, X_tr).tree
        start = time.perf_counter()
        certificate = certify(fitted.model, X_tr, y_tr, delta=DELTA)
        certify_seconds = time.perf_counter() - start
        details = certificate.details
        rows.append({
            "dataset": task.dataset, "split": task.split, "seed": task.seed, "model": name,
            "n_train": len(y_tr), "n_test": len(y_te), "n_features": task.X.shape[1],
            "n_classes": len(np.unique(task.y)),
            "train_error": float(np.mean(predicted["train"] != y_tr)),
            "test_error": float(np.mean(predicted["test"] != y_te)),
            "n_leaves": train_tree.n_leaves, "depth": train_tree.max_depth,
            "fit_seconds": fit_seconds, "n_fits": fitted.n_fits, "timeouts": fitted.timeouts,
            "selected": fitted.selected,
            "certificate": certificate.risk_upper_bound,
            "certificate_method": details.get("chosen", certificate.method),
            "hti": details.get("hti", float("nan")),
            "compression": details.get("compression", float("nan")),
            "prefix_code": details.get("prefix_code", float("nan")),
            "certify_seconds": certify_seconds, "commit": task.commit,
        })
    return rows


def missing_extras(models) -> list[str]:
    """The models of ``models`` whose library (the bench extra) is not installed."""
    import importlib.util

    return [m for m, module in (("streed_cv", "pystreed"), ("gosdt_cv", "gosdt"))
            if m in models and importlib.util.find_spec(module) is None]
