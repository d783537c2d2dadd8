"""Product distributions over {0, 1}^n and exact probabilities under them (paper, section 3).

``x ~ Π_i Bernoulli(p_i)``. Because the variables are independent and a read-once DNF uses each
variable once, its terms are independent events given any partial assignment ("path"), so

    P[F = 0 | path] = Π_{terms c} (1 - P[c | path]),
    P[c | path] = 0 if the path falsifies a literal of c, else Π_{literals of c off the path} P[literal],

which is what every exact computation of ``treebound.mic`` rests on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from treebound.mic.dnf import ReadOnceDNF

__all__ = ["ProductDistribution", "probability_positive"]


class ProductDistribution:
    """``x ~ Π_i Bernoulli(p_i)`` on {0, 1}^n with every ``p_i`` strictly inside (0, 1).

    Parameters
    ----------
    p : sequence of float
        ``p[i] = P[x_{i+1} = 1]``.

    Examples
    --------
    >>> ProductDistribution.uniform(3).p
    array([0.5, 0.5, 0.5])
    >>> ProductDistribution.two_valued(0.3, 0.7, [1, 2, 2]).p
    array([0.3, 0.7, 0.7])
    >>> ProductDistribution([0.2, 0.9]).path_probability({0: 1, 1: 0})
    0.019999999999999997
    """

    def __init__(self, p: Sequence[float]):
        array = np.array(p, dtype=np.float64)
        if array.ndim != 1 or array.size == 0:
            raise ValueError(f"p must be a non-empty 1-D sequence of probabilities, got {p!r}")
        if not np.all((array > 0.0) & (array < 1.0)):
            bad = array[~((array > 0.0) & (array < 1.0))]
            raise ValueError(f"every p_i must lie strictly inside (0, 1); got {bad.tolist()}")
        array.setflags(write=False)
        self._p = array

    @classmethod
    def uniform(cls, n_variables: int) -> ProductDistribution:
        """The uniform distribution on ``{0, 1}^n`` (every ``p_i = 1/2``).

        Parameters
        ----------
        n_variables : int
            ``n >= 1``.

        Returns
        -------
        ProductDistribution

        Examples
        --------
        >>> ProductDistribution.uniform(3).p.tolist()
        [0.5, 0.5, 0.5]
        """
        if isinstance(n_variables, bool) or not isinstance(n_variables, (int, np.integer)):
            raise TypeError(f"n_variables must be an int, got {type(n_variables).__name__}")
        if n_variables < 1:
            raise ValueError(f"n_variables must be >= 1, got {n_variables}")
        return cls(np.full(int(n_variables), 0.5))

    @classmethod
    def two_valued(cls, p1: float, p2: float, groups: Sequence[int]) -> ProductDistribution:
        """The two-valued product distribution of Brutzkus, Daniely & Malach (2020), section 7.2.

        Variable ``i`` is Bernoulli(``p1``) if ``groups[i] == 1``, else Bernoulli(``p2``); the
        dynamic program of OPT (Eq. 4) covers these distributions.

        Parameters
        ----------
        p1 : float
            Probability of 1 of the variables of group 1, in ``(0, 1)``.
        p2 : float
            Probability of 1 of the variables of group 2, in ``(0, 1)``.
        groups : sequence of {1, 2}
            The group of every variable.

        Returns
        -------
        ProductDistribution

        Examples
        --------
        >>> ProductDistribution.two_valued(0.3, 0.7, [1, 2, 2]).p.tolist()
        [0.3, 0.7, 0.7]
        """
        groups = np.asarray(groups)
        if groups.ndim != 1 or not np.isin(groups, (1, 2)).all():
            raise ValueError(f"groups must be a 1-D sequence of 1s and 2s, got {groups.tolist()}")
        return cls(np.where(groups == 1, float(p1), float(p2)))

    @property
    def p(self) -> np.ndarray:
        """``P[x_i = 1]`` for every variable (read-only)."""
        return self._p

    @property
    def n_variables(self) -> int:
        return int(self._p.size)

    def literal_probability(self, variable: int, positive: bool) -> float:
        """``P[x_v = 1]`` for a positive literal, ``P[x_v = 0]`` for a negated one.

        Parameters
        ----------
        variable : int
            0-based variable index.
        positive : bool
            The literal's sign.

        Returns
        -------
        float

        Examples
        --------
        >>> d = ProductDistribution([0.2, 0.9])
        >>> d.literal_probability(0, True), round(d.literal_probability(1, False), 12)
        (0.2, 0.1)
        """
        self._check_variable(variable)
        return float(self._p[variable]) if positive else 1.0 - float(self._p[variable])

    def path_probability(self, path: Mapping[int, int] | None = None) -> float:
        """``P[x agrees with path]`` for a partial assignment: the probability of reaching a node.

        Parameters
        ----------
        path : mapping {variable: 0 or 1}, optional
            The tests on the way from the root (0-based variables); empty or None for the root.

        Returns
        -------
        float

        Examples
        --------
        >>> round(ProductDistribution([0.2, 0.9]).path_probability({0: 1, 1: 0}), 12)  # 0.2 * 0.1
        0.02
        """
        probability = 1.0
        for variable, value in _checked_path(path, self).items():
            probability *= self.literal_probability(variable, value == 1)
        return probability

    def sample(self, n_samples: int, rng: np.random.Generator) -> np.ndarray:
        """``n_samples`` independent draws from the distribution.

        Parameters
        ----------
        n_samples : int
            Number of rows.
        rng : numpy.random.Generator
            The random source.

        Returns
        -------
        ndarray of uint8, shape (n_samples, n_variables)

        Examples
        --------
        >>> import numpy as np
        >>> draws = ProductDistribution([0.2, 0.9]).sample(10_000, np.random.default_rng(0))
        >>> draws.shape, np.round(draws.mean(axis=0), 1).tolist()
        ((10000, 2), [0.2, 0.9])
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy Generator, got {type(rng).__name__}")
        return (rng.random((int(n_samples), self.n_variables)) < self._p).astype(np.uint8)

    def _check_variable(self, variable: int) -> None:
        if not 0 <= variable < self.n_variables:
            raise ValueError(
                f"variable index {variable} is outside the {self.n_variables} variables"
            )

    def __eq__(self, other) -> bool:
        return isinstance(other, ProductDistribution) and np.array_equal(self._p, other._p)

    def __hash__(self) -> int:
        return hash(self._p.tobytes())

    def __repr__(self) -> str:
        return f"ProductDistribution({self._p.tolist()})"


def probability_positive(
    dnf: ReadOnceDNF, dist: ProductDistribution, path: Mapping[int, int] | None = None
) -> float:
    """Exact ``P[F(x) = 1 | x agrees with path]`` for a read-once DNF under a product distribution.

    Brutzkus, Daniely & Malach (2020), section 3: given a partial assignment the terms of a
    read-once DNF are independent events, so
    ``P[F = 0 | path] = prod_terms (1 - P[term | path])``.

    Parameters
    ----------
    dnf : ReadOnceDNF
        The target ``F``.
    dist : ProductDistribution
        Must have at least ``dnf.n_variables`` variables (extra ones are irrelevant to ``F``).
    path : mapping {variable: 0 or 1}, optional
        The conjunction of tests on the way from the root to a node (0-based variables).

    Returns
    -------
    float
        ``q(v)``, the positive rate at the node.

    Examples
    --------
    >>> f = ReadOnceDNF.parse("(x1 & x2) | x3")
    >>> probability_positive(f, ProductDistribution.uniform(3))  # 1 - (1 - 1/4)(1 - 1/2)
    0.625
    >>> probability_positive(f, ProductDistribution.uniform(3), {2: 0, 0: 1})
    0.5
    """
    check_compatible(dnf, dist)
    path = _checked_path(path, dist)
    probability_negative = 1.0
    for term in dnf.terms:
        term_probability = 1.0
        for variable, positive in term:
            if variable in path:
                if (path[variable] == 1) != positive:
                    term_probability = 0.0
                    break
            else:
                term_probability *= dist.literal_probability(variable, positive)
        probability_negative *= 1.0 - term_probability
    return 1.0 - probability_negative


def check_compatible(dnf: ReadOnceDNF, dist: ProductDistribution) -> None:
    """Raise a TypeError / ValueError unless ``dist`` is a distribution for ``dnf``'s variables."""
    if not isinstance(dnf, ReadOnceDNF):
        raise TypeError(f"dnf must be a ReadOnceDNF, got {type(dnf).__name__}")
    if not isinstance(dist, ProductDistribution):
        raise TypeError(f"dist must be a ProductDistribution, got {type(dist).__name__}")
    if dist.n_variables < dnf.n_variables:
        raise ValueError(
            f"the distribution has {dist.n_variables} variables but the DNF uses "
            f"{dnf.n_variables}"
        )


def _checked_path(path: Mapping[int, int] | None, dist: ProductDistribution) -> dict[int, int]:
    if path is None:
        return {}
    if not isinstance(path, Mapping):
        raise TypeError(f"path must be a mapping {{variable: 0 or 1}}, got {type(path).__name__}")
    checked = {}
    for variable, value in path.items():
        if isinstance(variable, bool) or not isinstance(variable, (int, np.integer)):
            raise TypeError(f"path variables must be ints, got {variable!r}")
        dist._check_variable(int(variable))
        if value not in (0, 1):
            raise ValueError(f"path values must be 0 or 1, got {value!r} for x{variable + 1}")
        checked[int(variable)] = int(value)
    return checked
