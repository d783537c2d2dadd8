"""ProductDistribution and exact conditional probabilities of read-once DNFs."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from _mic_oracles import TruthTable, read_once_dnfs
from treebound.mic import ProductDistribution, ReadOnceDNF, probability_positive


def test_constructors():
    assert ProductDistribution.uniform(3) == ProductDistribution([0.5, 0.5, 0.5])
    d = ProductDistribution.two_valued(0.3, 0.7, [2, 1, 1])
    assert d.p.tolist() == [0.7, 0.3, 0.3]
    assert d.n_variables == 3
    assert d.literal_probability(0, False) == pytest.approx(0.3)
    with pytest.raises(ValueError):
        d.p[0] = 0.5  # read-only


@pytest.mark.parametrize(
    "p, message",
    [([0.5, 0.0], "strictly inside"), ([1.0], "strictly inside"), ([], "non-empty"),
     ([[0.5]], "1-D")],
)
def test_constructor_rejects_bad_probabilities(p, message):
    with pytest.raises(ValueError, match=message):
        ProductDistribution(p)


def test_helper_validation():
    with pytest.raises(ValueError, match="1s and 2s"):
        ProductDistribution.two_valued(0.3, 0.7, [1, 3])
    with pytest.raises(ValueError, match=">= 1"):
        ProductDistribution.uniform(0)
    with pytest.raises(TypeError):
        ProductDistribution.uniform(2.5)
    d = ProductDistribution.uniform(2)
    with pytest.raises(ValueError, match="outside"):
        d.path_probability({2: 1})
    with pytest.raises(ValueError, match="0 or 1"):
        d.path_probability({0: 2})
    with pytest.raises(TypeError, match="mapping"):
        d.path_probability([(0, 1)])
    with pytest.raises(ValueError, match="has 2 variables but the DNF uses 3"):
        probability_positive(ReadOnceDNF.parse("x1 | x3"), d)
    with pytest.raises(TypeError, match="Generator"):
        d.sample(3, rng=0)


@st.composite
def dnf_distribution_and_path(draw):
    f = draw(read_once_dnfs(max_terms=3, max_literals=3, max_extra=1))
    p = draw(st.lists(st.floats(0.05, 0.95), min_size=f.n_variables, max_size=f.n_variables))
    assigned = draw(st.lists(st.integers(0, f.n_variables - 1), unique=True, max_size=3))
    values = draw(st.lists(st.integers(0, 1), min_size=len(assigned), max_size=len(assigned)))
    return f, ProductDistribution(p), dict(zip(assigned, values, strict=True))


@given(dnf_distribution_and_path())
@settings(max_examples=60)
def test_exact_probabilities_match_truth_table_sums(case):
    f, d, path = case
    table = TruthTable(f, d)
    mask = table.mask(path)
    assert d.path_probability(path) == pytest.approx(table.mass(mask), rel=1e-12)
    assert probability_positive(f, d, path) == pytest.approx(
        table.positive_rate(mask), rel=1e-12, abs=1e-15
    )


def test_sample_follows_the_marginals():
    d = ProductDistribution([0.1, 0.5, 0.9])
    X = d.sample(20000, np.random.default_rng(0))
    assert X.shape == (20000, 3) and X.dtype == np.uint8
    assert np.allclose(X.mean(axis=0), d.p, atol=0.02)
