"""plot_pruning_path: draws what the method visited and marks the kept tree."""

import matplotlib
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from treebound import DecisionTreeClassifier, plot_pruning_path, prune

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def cancer():
    return load_breast_cancer(return_X_y=True)


@pytest.mark.parametrize("method", ["bound", "ccp_cv", "srm", "reduced_error"])
def test_path_points_and_kept_tree_are_drawn(cancer, method):
    import matplotlib.pyplot as plt

    X, y = cancer
    model = DecisionTreeClassifier(growth="purest_children", pruning=method,
                                   random_state=0).fit(X, y)
    ax = plot_pruning_path(model)
    line, star = ax.lines[0], ax.lines[1]
    expected = sorted(n for n, obj in model.pruning_path_ if np.isfinite(obj))
    assert list(line.get_xdata()) == expected
    assert list(star.get_xdata()) == [model.get_n_leaves()]
    assert ax.get_xlabel() == "leaves" and ax.get_ylabel()
    plt.close(ax.figure)


def test_results_and_several_models_share_an_axis(cancer):
    import matplotlib.pyplot as plt

    X, y = cancer
    grown = DecisionTreeClassifier(growth="purest_children").fit(X, y)
    _, ax = plt.subplots()
    plot_pruning_path(prune(grown, method="bound"), ax=ax, label="tight")
    plot_pruning_path(prune(grown, method="bound", variant="loose"), ax=ax, label="loose")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["tight", "loose"]
    plt.close(ax.figure)


def test_unpruned_model_and_wrong_objects_are_refused(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="not pruned"):
        plot_pruning_path(DecisionTreeClassifier().fit(X, y))
    with pytest.raises(TypeError, match="pruned treebound estimator"):
        plot_pruning_path("model.json")
