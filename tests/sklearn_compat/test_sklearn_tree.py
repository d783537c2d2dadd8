"""scikit-learn 1.9's ``sklearn/tree/tests/test_tree.py``, test bodies untouched, with treebound's
``DecisionTreeClassifier``/``DecisionTreeRegressor`` in place of scikit-learn's
(``_sklearn_suite.py`` says how and which tests count)."""

from _sklearn_suite import load_suite, test_functions

globals().update(test_functions(load_suite("test_tree")))
