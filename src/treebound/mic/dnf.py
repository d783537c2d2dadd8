"""Read-once DNF formulas over Boolean variables (Brutzkus, Daniely & Malach 2020, section 3).

A read-once DNF is a disjunction of conjunctions ("terms") of literals in which every variable
occurs at most once, e.g. ``(x1 & x2 & ~x3) | (~x4 & x5)``. Variables are written ``x1 … xn``
(1-based, as in the paper) and stored 0-based.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

__all__ = ["Literal", "ReadOnceDNF"]


class Literal(NamedTuple):
    """One literal: variable ``variable`` (0-based) if ``positive``, its negation otherwise.

    Parameters
    ----------
    variable : int
        0-based index of the variable (``x1`` is 0).
    positive : bool, default=True
        False for the negated literal ``~x``.

    Examples
    --------
    >>> str(Literal(2)), str(Literal(2, positive=False))
    ('x3', '~x3')
    """

    variable: int
    positive: bool = True

    def __str__(self) -> str:
        return ("" if self.positive else "~") + f"x{self.variable + 1}"


# Accepted spellings: ASCII, C-like and the logic symbols the paper uses.
_TOKEN = re.compile(r"\s*(?:(?P<var>x(?P<index>\d+))|(?P<op>[()&|~!∧∨¬]))")
_AND = {"&", "∧"}
_OR = {"|", "∨"}
_NOT = {"~", "!", "¬"}


@dataclass(frozen=True)
class ReadOnceDNF:
    """A read-once DNF over ``n_variables`` Boolean variables.

    Parameters
    ----------
    terms : sequence of sequences of Literal or (variable, positive) pairs
        The conjunctions, in order. Every term must be non-empty and every variable may occur in at
        most one literal of the whole formula (the read-once property of section 3).
    n_variables : int
        Number of variables of the domain {0, 1}^n. Variables that occur in no term are allowed
        (they are irrelevant to the target, as in Theorem 5.1's conjunction on k out of n bits).

    Examples
    --------
    >>> f = ReadOnceDNF.parse("(x1 & x2) | (~x4 & x5)")
    >>> f.n_variables, len(f.terms), f.term_sizes
    (5, 2, (2, 2))
    >>> str(f)
    '(x1 & x2) | (~x4 & x5)'
    >>> ReadOnceDNF.from_term_sizes([2, 3])
    ReadOnceDNF.parse('(x1 & x2) | (x3 & x4 & x5)', n_variables=5)
    """

    terms: tuple[tuple[Literal, ...], ...]
    n_variables: int

    def __init__(self, terms: Iterable[Iterable[Literal | tuple[int, bool]]], n_variables: int):
        if isinstance(n_variables, bool) or not isinstance(n_variables, (int, np.integer)):
            raise TypeError(f"n_variables must be an int, got {type(n_variables).__name__}")
        n_variables = int(n_variables)
        normalized: list[tuple[Literal, ...]] = []
        seen: dict[int, int] = {}
        for term_index, term in enumerate(terms):
            literals = []
            for item in term:
                literal = _as_literal(item)
                if not 0 <= literal.variable < n_variables:
                    raise ValueError(
                        f"literal {literal} of term {term_index + 1} is outside the "
                        f"{n_variables} variables x1..x{n_variables}"
                    )
                if literal.variable in seen:
                    raise ValueError(
                        f"not read-once: variable x{literal.variable + 1} occurs in term "
                        f"{seen[literal.variable] + 1} and again in term {term_index + 1}"
                    )
                seen[literal.variable] = term_index
                literals.append(literal)
            if not literals:
                raise ValueError(f"term {term_index + 1} is empty; every term needs a literal")
            normalized.append(tuple(literals))
        if not normalized:
            raise ValueError("a DNF needs at least one term")
        object.__setattr__(self, "terms", tuple(normalized))
        object.__setattr__(self, "n_variables", n_variables)

    @classmethod
    def parse(cls, text: str, n_variables: int | None = None) -> ReadOnceDNF:
        """Parse a formula such as ``"(x1 & x2) | (~x4 & x5)"``.

        Terms are separated by ``|`` (or ``∨``), literals by ``&`` (or ``∧``), a literal is
        ``x<k>`` (1-based) optionally preceded by ``~``, ``!`` or ``¬``. Parentheses around a
        term are optional.

        Parameters
        ----------
        text : str
            The formula.
        n_variables : int, optional
            Number of variables of the domain; defaults to the largest variable index used.

        Returns
        -------
        ReadOnceDNF

        Raises
        ------
        ValueError
            For malformed text or a variable used twice (not read-once).

        Examples
        --------
        >>> f = ReadOnceDNF.parse("x1 | ~x2", n_variables=4)
        >>> str(f), f.n_variables, f.term_sizes
        ('x1 | ~x2', 4, (1, 1))
        """
        if not isinstance(text, str):
            raise TypeError(f"text must be a str, got {type(text).__name__}")
        tokens = _tokenize(text)
        terms: list[list[Literal]] = []
        position = 0

        def expect_literal(pos: int) -> tuple[Literal, int]:
            positive = True
            if pos < len(tokens) and tokens[pos][0] in _NOT:
                positive = False
                pos += 1
            if pos >= len(tokens) or not tokens[pos][0].startswith("x"):
                found = tokens[pos][0] if pos < len(tokens) else "end of text"
                raise ValueError(f"expected a variable like 'x1' in {text!r}, found {found!r}")
            index = int(tokens[pos][0][1:])
            if index < 1:
                raise ValueError(f"variables are numbered from x1, got x{index} in {text!r}")
            return Literal(index - 1, positive), pos + 1

        while True:
            parenthesized = position < len(tokens) and tokens[position][0] == "("
            position += parenthesized
            literal, position = expect_literal(position)
            term = [literal]
            while position < len(tokens) and tokens[position][0] in _AND:
                literal, position = expect_literal(position + 1)
                term.append(literal)
            if parenthesized:
                if position >= len(tokens) or tokens[position][0] != ")":
                    raise ValueError(f"missing ')' after term {len(terms) + 1} in {text!r}")
                position += 1
            terms.append(term)
            if position == len(tokens):
                break
            if tokens[position][0] not in _OR:
                raise ValueError(
                    f"expected '|' between terms in {text!r}, found {tokens[position][0]!r}"
                )
            position += 1
        largest = max(literal.variable for term in terms for literal in term) + 1
        if n_variables is None:
            n_variables = largest
        return cls(terms, n_variables)

    @classmethod
    def from_term_sizes(cls, sizes: Sequence[int], n_variables: int | None = None) -> ReadOnceDNF:
        """The monotone DNF with terms of the given sizes on consecutive variables ``x1, x2, ...``.

        Under the uniform distribution every read-once DNF is, up to renaming and negating
        variables, one of these (Brutzkus, Daniely & Malach 2020, section 7.1: only the term sizes
        matter).

        Parameters
        ----------
        sizes : sequence of int
            Number of literals of each term (each ``>= 1``).
        n_variables : int, optional
            Number of variables of the domain; defaults to ``sum(sizes)``.

        Returns
        -------
        ReadOnceDNF

        Examples
        --------
        >>> str(ReadOnceDNF.from_term_sizes([2, 3]))
        '(x1 & x2) | (x3 & x4 & x5)'
        """
        sizes = [int(s) for s in sizes]
        if any(s < 1 for s in sizes):
            raise ValueError(f"term sizes must be >= 1, got {sizes}")
        terms, start = [], 0
        for size in sizes:
            terms.append([Literal(v, True) for v in range(start, start + size)])
            start += size
        return cls(terms, start if n_variables is None else n_variables)

    @property
    def term_sizes(self) -> tuple[int, ...]:
        """Number of literals of each term, in order."""
        return tuple(len(term) for term in self.terms)

    @property
    def variables(self) -> tuple[int, ...]:
        """The (0-based) variables that occur in the formula, in order of appearance."""
        return tuple(literal.variable for term in self.terms for literal in term)

    def evaluate(self, X) -> np.ndarray:
        """Value of the formula on every row of a 0/1 matrix.

        Parameters
        ----------
        X : array-like of 0/1, shape (n_samples, n_variables)
            Assignments of the variables.

        Returns
        -------
        ndarray of uint8, shape (n_samples,)
            1 where the formula is true.

        Examples
        --------
        >>> f = ReadOnceDNF.parse("(x1 & x2) | (x3 & x4 & x5)")
        >>> f.evaluate([[1, 1, 0, 0, 0], [0, 1, 1, 1, 1], [0, 0, 0, 0, 0]]).tolist()
        [1, 1, 0]
        """
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[1] != self.n_variables:
            raise ValueError(
                f"X must have shape (n_samples, {self.n_variables}), got {X.shape}"
            )
        bits = X.astype(bool)
        result = np.zeros(X.shape[0], dtype=bool)
        for term in self.terms:
            satisfied = np.ones(X.shape[0], dtype=bool)
            for variable, positive in term:
                satisfied &= bits[:, variable] if positive else ~bits[:, variable]
            result |= satisfied
        return result.astype(np.uint8)

    def __str__(self) -> str:
        parts = []
        for term in self.terms:
            body = " & ".join(str(literal) for literal in term)
            parts.append(body if len(term) == 1 else f"({body})")
        return " | ".join(parts)

    def __repr__(self) -> str:
        return f"ReadOnceDNF.parse({str(self)!r}, n_variables={self.n_variables})"


def _as_literal(item) -> Literal:
    if isinstance(item, Literal):
        variable, positive = item
    else:
        try:
            variable, positive = item
        except (TypeError, ValueError):
            raise TypeError(
                f"a literal must be a Literal or a (variable, positive) pair, got {item!r}"
            ) from None
    if isinstance(variable, bool) or not isinstance(variable, (int, np.integer)):
        raise TypeError(f"a literal's variable must be an int, got {variable!r}")
    if not isinstance(positive, (bool, np.bool_)):
        raise TypeError(f"a literal's sign must be a bool, got {positive!r}")
    return Literal(int(variable), bool(positive))


def _tokenize(text: str) -> list[tuple[str, int]]:
    tokens, position = [], 0
    stripped_end = len(text.rstrip())
    while position < stripped_end:
        match = _TOKEN.match(text, position)
        if match is None:
            raise ValueError(
                f"unexpected character {text[position:].lstrip()[:1]!r} at position "
                f"{position} in {text!r}"
            )
        tokens.append((match.group("var") or match.group("op"), match.start()))
        position = match.end()
    if not tokens:
        raise ValueError("cannot parse an empty formula")
    return tokens
