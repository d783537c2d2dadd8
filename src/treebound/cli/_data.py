"""Reading user data files for the command line (CSV/TSV, optionally gzipped)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd


class DataFileError(ValueError):
    """A data file that cannot be read or lacks what the command needs."""


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a CSV or TSV file (``.gz`` allowed); the separator follows the extension.

    ``.tsv``/``.tab`` (optionally ``.gz``) are tab-separated, ``.csv`` comma-separated; anything
    else is sniffed. Strings stay strings so categorical columns keep their labels.
    """
    path = Path(path)
    if not path.exists():
        raise DataFileError(f"data file {str(path)!r} does not exist")
    if path.is_dir():
        raise DataFileError(f"{str(path)!r} is a directory, not a data file")
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    ext = suffixes[-1] if suffixes else ""
    try:
        if ext in (".tsv", ".tab"):
            frame = pd.read_csv(path, sep="\t")
        elif ext == ".csv":
            frame = pd.read_csv(path)
        else:
            frame = pd.read_csv(path, sep=None, engine="python")
    except (OSError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError,
            EOFError) as exc:
        raise DataFileError(f"cannot read data file {str(path)!r}: {exc}") from None
    except Exception as exc:  # e.g. a corrupt gzip stream (zlib.error, BadGzipFile)
        raise DataFileError(f"cannot read data file {str(path)!r}: {exc}") from None
    if frame.shape[0] == 0:
        raise DataFileError(f"data file {str(path)!r} has no rows")
    if frame.shape[1] == 0:
        raise DataFileError(f"data file {str(path)!r} has no columns")
    return frame


def split_target(frame: pd.DataFrame, target: str) -> tuple[pd.DataFrame, pd.Series]:
    """Features and target column (by name, or by position with a leading ``#``, e.g. ``#-1``)."""
    if target.startswith("#"):
        try:
            position = int(target[1:])
        except ValueError:
            raise DataFileError(
                f"target {target!r}: '#' must be followed by a column index") from None
        try:
            target = frame.columns[position]
        except IndexError:
            raise DataFileError(
                f"target index {position} is out of range for {frame.shape[1]} columns"
            ) from None
    if target not in frame.columns:
        shown = ", ".join(map(str, list(frame.columns)[:12]))
        raise DataFileError(f"target column {target!r} not found; columns are: {shown}")
    if frame.shape[1] < 2:
        raise DataFileError("the data has no feature columns besides the target")
    return frame.drop(columns=[target]), frame[target]


def select_features(frame: pd.DataFrame, model) -> pd.DataFrame:
    """The columns a fitted model expects: by name when it knows names, else all columns."""
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        missing = [n for n in names if n not in frame.columns]
        if missing:
            raise DataFileError(f"data lacks the model's feature columns {missing[:10]}")
        return frame[list(names)]
    if frame.shape[1] != model.n_features_in_:
        raise DataFileError(
            f"data has {frame.shape[1]} columns but the model expects {model.n_features_in_} "
            "features"
        )
    return frame
