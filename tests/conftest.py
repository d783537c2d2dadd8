import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _seed_numpy():
    """Every test starts from the same global numpy seed (tests should still pass their own rng)."""
    np.random.seed(0)  # noqa: NPY002 - deliberately seeds the legacy global state
