"""Printed bounds are bounds: rounded up (lower bounds and confidence levels down), with a word
when they promise nothing, and counts in the singular where there is one."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from treebound import DecisionTreeClassifier, certify
from treebound.certificates import Certificate, format_bound, promises_nothing

_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"


def _printed(text: str):
    upper = float(re.search(rf"is at most {_NUMBER}", text).group(1))
    confidence = float(re.search(rf"With probability at least {_NUMBER}", text).group(1))
    lower = re.search(rf"it is at least {_NUMBER}", text)
    lower_confidence = re.search(rf"Separately, with probability at least {_NUMBER}", text)
    return (upper, confidence, None if lower is None else float(lower.group(1)),
            None if lower_confidence is None else float(lower_confidence.group(1)))


rates = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(upper=rates, lower_share=rates, delta=st.floats(min_value=1e-6, max_value=0.5),
       method=st.sampled_from(["hti", "compression", "auto", "test_set"]),
       m=st.integers(1, 10**6), share=rates)
def test_printed_values_are_on_the_safe_side(upper, lower_share, delta, method, m, share):
    lower = upper * lower_share if method in ("hti", "auto", "test_set") else None
    details = {"combined": ("hti", "compression"), "hti": upper, "compression": upper} \
        if method == "auto" else {}
    k = int(share * m)
    c = Certificate(upper, lower, method, delta, m, k, 3, details)
    text = str(c)
    printed_upper, confidence, printed_lower, lower_confidence = _printed(text)
    assert printed_upper >= upper
    assert confidence <= 1 - delta
    if printed_lower is not None:
        assert printed_lower <= lower
        assert lower_confidence <= 1 - c.lower_bound_delta
    assert ("promises nothing" in text) == (printed_upper >= 1)


def test_real_certificates_print_above_their_bounds():
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(25):
        n = int(rng.integers(40, 400))
        X = rng.normal(size=(n, 3))
        y = (X[:, 0] + rng.normal(scale=rng.uniform(0.1, 2.0), size=n) > 0).astype(int)
        model = DecisionTreeClassifier(max_leaf_nodes=int(rng.integers(2, 12)),
                                       growth="top_down").fit(X, y)
        for method in ("auto", "hti", "compression"):
            c = certify(model, X, y, method=method)
            upper, _, lower, _ = _printed(str(c))
            assert upper >= c.risk_upper_bound
            if lower is not None:
                assert lower <= c.risk_lower_bound
            checked += 1
    assert checked == 75


@pytest.mark.parametrize("value, text", [(0.27636, "0.277"), (0.99995, "1"), (0.0, "0"),
                                         (1.2631, "1.27"), (0.000123456, "0.00013")])
def test_format_bound_rounds_up(value, text):
    assert format_bound(value) == text


def test_a_bound_printed_as_one_promises_nothing():
    c = Certificate(0.99995, None, "hti", 0.05, 100, 3, 4)
    assert c.is_vacuous and promises_nothing(0.99995)
    assert "at most 1, which promises nothing" in str(c)
    assert not Certificate(0.5, None, "hti", 0.05, 100, 3, 4).is_vacuous


def test_singular_counts_and_auto_with_one_method():
    c = Certificate(0.362, None, "auto", 0.05, 1, 1, 1,
                    {"combined": ("hti",), "hti": 0.362,
                     "compression_not_applicable": "thresholds are not midpoints"})
    text = str(c)
    assert "1 error on 1 row" in text and "1 leaf]" in text
    assert "the smaller of" not in text
    assert "hti 0.362 at delta / 2 (compression does not apply" in text
    assert math.isclose(c.lower_bound_delta, 0.025)


def test_auto_names_the_one_method_that_applied_on_a_real_tree():
    from sklearn.datasets import load_iris
    from sklearn.tree import ExtraTreeClassifier

    X, y = load_iris(return_X_y=True)
    # random thresholds are no midpoints of training values: no compression set rebuilds them
    extra = ExtraTreeClassifier(max_leaf_nodes=5, random_state=0).fit(X, y)
    c = certify(extra, X, y)
    assert c.details["combined"] == ("hti",)
    text = str(c)
    assert "the smaller of" not in text
    assert f"auto: hti {format_bound(c.details['hti'])} at delta / 2 (compression does not " \
        "apply to this tree)" in text
