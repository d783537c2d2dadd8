"""ReadOnceDNF: parsing, printing, validation, evaluation."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from _mic_oracles import read_once_dnfs
from treebound.mic import Literal, ReadOnceDNF


def test_parse_reads_terms_negations_and_one_based_names():
    f = ReadOnceDNF.parse("(x1 & x2) | (~x4 & x5)")
    assert f.n_variables == 5
    assert f.terms == ((Literal(0, True), Literal(1, True)), (Literal(3, False), Literal(4, True)))
    assert f.term_sizes == (2, 2)
    assert f.variables == (0, 1, 3, 4)


def test_parse_accepts_logic_symbols_bare_terms_and_explicit_n():
    f = ReadOnceDNF.parse("x3 ∧ ¬x1 ∨ x2", n_variables=6)
    assert f.n_variables == 6
    assert f.terms == ((Literal(2, True), Literal(0, False)), (Literal(1, True),))
    assert f == ReadOnceDNF.parse("(x3 & !x1) | (x2)", n_variables=6)


def test_str_prints_the_paper_notation():
    assert str(ReadOnceDNF.parse("(x1&x2)|(~x4&x5)")) == "(x1 & x2) | (~x4 & x5)"
    assert str(ReadOnceDNF.parse("(x2) | ~x1")) == "x2 | ~x1"


@given(read_once_dnfs())
def test_parse_str_round_trip(f):
    assert ReadOnceDNF.parse(str(f), n_variables=f.n_variables) == f
    assert eval(repr(f), {"ReadOnceDNF": ReadOnceDNF}) == f


@pytest.mark.parametrize(
    "text, message",
    [
        ("(x1 & x2) | (x2 & x3)", "not read-once: variable x2"),
        ("x1 & ~x1", "not read-once: variable x1"),
        ("(x1 & x2", r"missing '\)'"),
        ("x1 | ", "expected a variable"),
        ("x1 x2", "expected '|'"),
        ("x0 & x1", "numbered from x1"),
        ("x1 + x2", r"unexpected character '\+'"),
        ("   ", "empty formula"),
        ("(x1 & x9)", None),
    ],
)
def test_parse_rejects_bad_formulas_with_a_clear_message(text, message):
    if message is None:  # a valid formula that does not fit the requested number of variables
        with pytest.raises(ValueError, match="outside the 3 variables"):
            ReadOnceDNF.parse(text, n_variables=3)
        return
    with pytest.raises(ValueError, match=message):
        ReadOnceDNF.parse(text)


def test_constructor_validation():
    with pytest.raises(ValueError, match="term 2 is empty"):
        ReadOnceDNF([[(0, True)], []], 2)
    with pytest.raises(ValueError, match="at least one term"):
        ReadOnceDNF([], 2)
    with pytest.raises(TypeError, match="n_variables must be an int"):
        ReadOnceDNF([[(0, True)]], 2.0)
    with pytest.raises(TypeError, match="sign must be a bool"):
        ReadOnceDNF([[(0, 1)]], 2)
    with pytest.raises(TypeError, match="Literal or a"):
        ReadOnceDNF([[0]], 2)
    with pytest.raises(TypeError, match="must be a str"):
        ReadOnceDNF.parse(3)


def test_from_term_sizes_builds_consecutive_monotone_terms():
    f = ReadOnceDNF.from_term_sizes([2, 1, 3], n_variables=8)
    assert str(f) == "(x1 & x2) | x3 | (x4 & x5 & x6)"
    assert f.n_variables == 8
    with pytest.raises(ValueError, match=">= 1"):
        ReadOnceDNF.from_term_sizes([2, 0])


@given(read_once_dnfs(max_terms=3, max_literals=3, max_extra=1))
@settings(max_examples=40)
def test_evaluate_matches_the_definition_on_every_point(f):
    X = np.array(list(itertools.product((0, 1), repeat=f.n_variables)))
    expected = [
        int(any(all(x[v] == int(s) for v, s in term) for term in f.terms)) for x in X
    ]
    assert f.evaluate(X).tolist() == expected


def test_evaluate_checks_the_shape():
    with pytest.raises(ValueError, match="shape"):
        ReadOnceDNF.parse("x1 & x2").evaluate(np.zeros((3, 3)))
