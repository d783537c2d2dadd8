"""The map from original feature units to the dyadic grid of ``[0, 1]^d`` and back.

Feature ``f`` is rescaled by ``u = (x - data_min[f]) / data_range[f]`` (min-max on the training
data; a constant feature gets range 1, as in scikit-learn's ``MinMaxScaler``). With resolution
``L`` the finest dyadic intervals have boundaries ``u = m / 2**L``; in original units

    ``b_f(m) = data_min[f] + data_range[f] * (m / 2**L)``,   ``m = 1 .. 2**L - 1``,

and the *grid index* of a value is the number of boundaries ``<= x``. Every dyadic midpoint is
one of these boundaries, and the cell ``A^{s,1} = {u^s < midpoint}`` becomes ``x < b``; the
stored tree tests ``x <= nextafter(b, -inf)``, which is the same set of floats. Grid indices and
thresholds are computed from the same ``b_f(m)`` floats, so every training example is routed by
the stored tree to exactly the cell the search put it in. Values outside the training range get
index 0 or ``2**L - 1``, i.e. they are clipped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Largest resolution L: grid indices are int32 and cell keys use L + 1 bits per coordinate.
MAX_RESOLUTION = 30


@dataclass(frozen=True)
class DyadicScaling:
    """Min-max scaling of the training data plus the resolution ``L`` of the dyadic grid.

    Parameters
    ----------
    data_min : ndarray of float64, shape (n_features,)
        Training minimum of every feature.
    data_range : ndarray of float64, shape (n_features,)
        Training range of every feature (1 for a constant feature).
    resolution : int
        ``L``: the finest dyadic intervals have side ``2**-L`` in the rescaled units.

    Examples
    --------
    >>> import numpy as np
    >>> scaling, varying = DyadicScaling.fit(np.array([[2.0], [4.0], [10.0]]), resolution=2)
    >>> scaling.grid(np.array([[2.0], [3.99], [4.0], [6.0], [10.0], [99.0]]))[:, 0].tolist()
    [0, 0, 1, 2, 3, 3]
    >>> float(scaling.boundary(0, 2)), bool(scaling.threshold(0, 2) < 6.0)
    (6.0, True)
    """

    data_min: np.ndarray
    data_range: np.ndarray
    resolution: int

    @classmethod
    def fit(cls, X: np.ndarray, resolution: int) -> tuple[DyadicScaling, np.ndarray]:
        """Scaling of a training matrix and the mask of its non-constant features.

        Parameters
        ----------
        X : ndarray of float64, shape (n_samples, n_features)
            Training rows.
        resolution : int
            ``L`` of the grid.

        Returns
        -------
        scaling : DyadicScaling
        varying : ndarray of bool, shape (n_features,)
            False for constant features (the search never splits them).

        Examples
        --------
        >>> import numpy as np
        >>> scaling, varying = DyadicScaling.fit(np.array([[2.0, 5.0], [10.0, 5.0]]), resolution=3)
        >>> scaling.data_min.tolist(), scaling.data_range.tolist(), varying.tolist()
        ([2.0, 5.0], [8.0, 1.0], [True, False])
        """
        data_min = X.min(axis=0)
        data_range = X.max(axis=0) - data_min
        varying = data_range > 0
        return cls(data_min, np.where(varying, data_range, 1.0), int(resolution)), varying

    @property
    def n_cells_per_axis(self) -> int:
        """M = 2**L, the number of finest intervals per coordinate."""
        return 1 << self.resolution

    def boundary(self, feature, m) -> np.ndarray:
        """``b_f(m) = data_min[f] + data_range[f] * m / 2**L`` in original units.

        Parameters
        ----------
        feature : int or array-like of int
            Feature index ``f``.
        m : int or array-like of int
            Grid boundary index, ``1 .. 2**L - 1``.

        Returns
        -------
        ndarray of float64
            Vectorized over ``feature`` and ``m``.

        Examples
        --------
        >>> import numpy as np
        >>> scaling, _ = DyadicScaling.fit(np.array([[2.0], [10.0]]), resolution=2)
        >>> scaling.boundary(0, [1, 2, 3]).tolist()
        [4.0, 6.0, 8.0]
        """
        fraction = np.asarray(m, dtype=np.float64) / self.n_cells_per_axis
        return self.data_min[feature] + self.data_range[feature] * fraction

    def threshold(self, feature, m) -> np.ndarray:
        """The ``x <= t`` threshold equivalent to ``x < b_f(m)`` (``t = nextafter(b, -inf)``).

        Parameters
        ----------
        feature : int or array-like of int
            Feature index ``f``.
        m : int or array-like of int
            Grid boundary index.

        Returns
        -------
        ndarray of float64

        Examples
        --------
        >>> import numpy as np
        >>> scaling, _ = DyadicScaling.fit(np.array([[2.0], [10.0]]), resolution=2)
        >>> t = scaling.threshold(0, 2)
        >>> bool(t < 6.0), bool(np.nextafter(t, np.inf) == 6.0)
        (True, True)
        """
        return np.nextafter(self.boundary(feature, m), -np.inf)

    def grid(self, X: np.ndarray) -> np.ndarray:
        """Grid index of every entry of ``X``: the number of boundaries ``<= x`` (clipped).

        Parameters
        ----------
        X : array-like of float, shape (n_rows, n_features)
            Rows in original units.

        Returns
        -------
        ndarray of int32, shape (n_rows, n_features)
            Column-major (the kernels scan columns); values in ``0 .. 2**L - 1``.

        Examples
        --------
        >>> import numpy as np
        >>> scaling, _ = DyadicScaling.fit(np.array([[2.0], [10.0]]), resolution=2)
        >>> scaling.grid([[1.0], [5.9], [6.0], [50.0]])[:, 0].tolist()
        [0, 1, 2, 3]
        """
        X = np.asarray(X, dtype=np.float64)
        top = self.n_cells_per_axis - 1
        out = np.empty(X.shape, dtype=np.int32, order="F")
        for f in range(X.shape[1]):
            x = X[:, f]
            guess = np.floor((x - self.data_min[f]) / self.data_range[f] * self.n_cells_per_axis)
            index = np.clip(np.nan_to_num(guess), 0, top).astype(np.int64)
            # The guess can be off by rounding; move it until b(index) <= x < b(index + 1).
            while True:
                too_high = (index > 0) & (x < self.boundary(f, index))
                too_low = (index < top) & (x >= self.boundary(f, index + 1))
                if not (too_high.any() or too_low.any()):
                    break
                index = index - too_high + too_low
            out[:, f] = index
        return out
