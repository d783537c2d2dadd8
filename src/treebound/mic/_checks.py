"""Argument checks shared by the ``treebound.mic`` modules."""

from __future__ import annotations

import numpy as np


def check_t_max(t_max) -> int:
    """``t_max`` as an int >= 0, or a TypeError / ValueError naming the problem."""
    if isinstance(t_max, bool) or not isinstance(t_max, (int, np.integer)):
        raise TypeError(f"t_max must be an int, got {type(t_max).__name__}")
    if t_max < 0:
        raise ValueError(f"t_max must be >= 0, got {t_max}")
    return int(t_max)
