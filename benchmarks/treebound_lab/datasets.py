"""Loading the PMLB datasets of ``shared/datasets`` (gzipped TSV, last column ``target``).

``NAME.metadata.yaml`` lists the features with a ``type`` (continuous, categorical, binary,
nominal, ordinal). Its layout is simple and fixed, so it is read line by line here instead of
pulling in a YAML library.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["Dataset", "available_datasets", "load_dataset", "read_feature_types", "subsample"]

#: Feature types of the metadata files that are discrete (nominal) rather than real-valued.
DISCRETE_TYPES = ("categorical", "binary", "nominal", "ordinal")


@dataclass(frozen=True)
class Dataset:
    """A classification dataset: features, integer-coded classes and feature metadata."""

    name: str
    X: np.ndarray
    y: np.ndarray
    feature_names: tuple[str, ...]
    feature_types: tuple[str, ...]

    @property
    def n_samples(self) -> int:
        return int(self.X.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_classes(self) -> int:
        return int(np.unique(self.y).shape[0])


def read_feature_types(path) -> list[tuple[str, str]]:
    """``(name, type)`` of every feature listed in a PMLB ``metadata.yaml``."""
    features, in_features = [], False
    name = None
    for line in Path(path).read_text().splitlines():
        if re.match(r"^features\s*:", line):
            in_features = True
            continue
        if in_features and re.match(r"^\S", line):
            break
        if not in_features:
            continue
        m = re.match(r"^\s*-\s*name\s*:\s*(.*?)\s*$", line)
        if m:
            if name is not None:
                features.append((name, "unknown"))
            name = m.group(1).strip().strip("'\"")
            continue
        m = re.match(r"^\s+type\s*:\s*(\S+)", line)
        if m and name is not None:
            features.append((name, m.group(1)))
            name = None
    if name is not None:
        features.append((name, "unknown"))
    return features


def available_datasets(data_dir) -> list[str]:
    """Names of the ``*.tsv.gz`` files in ``data_dir``, sorted."""
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise ValueError(f"data directory {str(data_dir)!r} does not exist")
    return sorted(p.name[: -len(".tsv.gz")] for p in data_dir.glob("*.tsv.gz"))


def load_dataset(data_dir, name: str) -> Dataset:
    """Read ``data_dir/name.tsv.gz``; classes are re-coded ``0 .. n_classes - 1``.

    ``"NAME@ROWS"`` loads a stratified random subsample of ``ROWS`` rows (seed 0), e.g.
    ``"segmentation@210"`` for the size of the Image Segmentation set Leboeuf et al. used (the
    PMLB file merges the UCI training and test parts, 2310 rows).
    """
    if "@" in name:
        base, _, rows = name.partition("@")
        if not rows.isdigit() or int(rows) < 2:
            raise ValueError(f"bad dataset name {name!r}: expected NAME@ROWS with ROWS >= 2")
        full = load_dataset(data_dir, base)
        if int(rows) >= full.n_samples:
            raise ValueError(f"{name!r}: {base} has only {full.n_samples} rows")
        from sklearn.model_selection import train_test_split

        idx, _ = train_test_split(np.arange(full.n_samples), train_size=int(rows),
                                  random_state=0, stratify=full.y)
        idx = np.sort(idx)
        return Dataset(name, full.X[idx], full.y[idx], full.feature_names, full.feature_types)
    import pandas as pd

    path = Path(data_dir) / f"{name}.tsv.gz"
    if not Path(data_dir).is_dir():
        raise ValueError(f"data directory {str(data_dir)!r} does not exist")
    if not path.is_file():
        raise ValueError(f"dataset {name!r} not found in {str(data_dir)!r} (no {path.name})")
    frame = pd.read_csv(path, sep="\t")
    if "target" not in frame.columns:
        raise ValueError(f"{path.name} has no 'target' column")
    X = frame.drop(columns="target").to_numpy(dtype=np.float64)
    _, y = np.unique(frame["target"].to_numpy(), return_inverse=True)
    names = tuple(str(c) for c in frame.columns if c != "target")
    meta = Path(data_dir) / f"{name}.metadata.yaml"
    types = dict(read_feature_types(meta)) if meta.is_file() else {}
    feature_types = tuple(types.get(n, "unknown") for n in names)
    return Dataset(name, X, y.astype(np.int64), names, feature_types)


def subsample(X, y, n, seed):
    """A stratified random subsample of ``n`` rows (all rows if there are fewer)."""
    from sklearn.model_selection import train_test_split

    if n >= len(y):
        return X, y
    counts = np.bincount(y)
    stratify = y if counts[counts > 0].min() >= 2 else None
    idx, _ = train_test_split(np.arange(len(y)), train_size=n, random_state=seed,
                              stratify=stratify)
    return X[idx], y[idx]
