"""Reading user data files for the command line (CSV/TSV, optionally gzipped)."""

from __future__ import annotations

import codecs
import hashlib
import io
import json
import os
import stat
import sys
from pathlib import Path

import pandas as pd


class DataFileError(ValueError):
    """A data file that cannot be read or lacks what the command needs."""


def read_table(path: str | Path, *, sep: str | None = None,
               encoding: str | None = None) -> pd.DataFrame:
    """Read a CSV or TSV file (``.gz`` allowed), or ``-`` for standard input.

    ``sep``: the column separator (``"\\t"`` or ``"tab"`` for a tab); by default it follows the
    extension: ``.tsv``/``.tab`` (optionally ``.gz``) are tab-separated, ``.csv``
    comma-separated, anything else is sniffed. ``encoding``: the text encoding (default
    UTF-8). Strings stay strings so categorical columns keep their labels; every column is
    typed from all its values (no mixed types from reading in chunks). Duplicate column names
    are an error (pandas would rename them silently).

    The file is read once: a pipe, a FIFO or a process substitution (``<(zcat data.csv.gz)``)
    can be read only once, so anything but a regular file is read into memory first (gzip
    recognized by its magic bytes).
    """
    stdin = str(path) == "-"
    path = Path(path)
    if not stdin and not path.exists():
        raise DataFileError(f"data file {str(path)!r} does not exist")
    if not stdin and path.is_dir():
        raise DataFileError(f"{str(path)!r} is a directory, not a data file")
    shown = "standard input" if stdin else repr(str(path))
    options = _read_options(path, sep, encoding)
    try:
        source = _source(path, stdin)
        if not isinstance(source, Path):
            options["compression"] = "gzip" if source.getbuffer()[:2] == b"\x1f\x8b" else None
        header = pd.read_csv(_rewound(source), header=None, nrows=1, dtype=str,
                             keep_default_na=False, **options)
        frame = pd.read_csv(_rewound(source), **options)
    except (OSError, UnicodeDecodeError, LookupError, pd.errors.ParserError,
            pd.errors.EmptyDataError, EOFError) as exc:
        raise DataFileError(f"cannot read data file {shown}: {_one_line(exc)}") from None
    except Exception as exc:  # e.g. a corrupt gzip stream (zlib.error, BadGzipFile)
        raise DataFileError(f"cannot read data file {shown}: {_one_line(exc)}") from None
    if frame.shape[0] == 0:
        raise DataFileError(f"data file {shown} has no rows")
    if frame.shape[1] == 0:
        raise DataFileError(f"data file {shown} has no columns")
    names = [str(v) for v in header.iloc[0].tolist()] if header.shape[0] else []
    seen: dict[str, int] = {}
    duplicates = []
    for position, name in enumerate(names):
        if name in seen:
            duplicates.append(f"{name!r} (columns {seen[name] + 1} and {position + 1})")
        else:
            seen[name] = position
    if duplicates:
        raise DataFileError(f"data file {shown} has duplicate column names: "
                            f"{', '.join(duplicates[:5])}; rename them")
    return frame


def _source(path: Path, stdin: bool):
    """A regular file's path (pandas reads it, twice is fine), else the stream's bytes read
    once into memory."""
    if stdin:
        return io.BytesIO(sys.stdin.buffer.read())
    if stat.S_ISREG(os.stat(path).st_mode):
        return path
    with open(path, "rb") as handle:
        return io.BytesIO(handle.read())


def _rewound(source):
    if isinstance(source, io.BytesIO):
        source.seek(0)
    return source


def _read_options(path: Path, sep: str | None, encoding: str | None) -> dict:
    if sep is not None:
        if sep.lower() in ("\\t", "tab", "\t"):
            sep = "\t"
        if sep == "":
            raise DataFileError("--sep must not be empty")
        options = {"sep": sep}
    else:
        suffixes = [s.lower() for s in path.suffixes]
        if suffixes and suffixes[-1] == ".gz":
            suffixes = suffixes[:-1]
        ext = suffixes[-1] if suffixes else ""
        if ext in (".tsv", ".tab"):
            options = {"sep": "\t"}
        elif ext == ".csv":
            options = {"sep": ","}
        else:
            options = {"sep": None}
    if options["sep"] is None or len(options["sep"]) > 1:
        options["engine"] = "python"  # sniffing and regex separators
    else:
        options["low_memory"] = False  # type each column from all its rows
    if encoding is not None:
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise DataFileError(f"unknown --encoding {encoding!r}") from None
        options["encoding"] = encoding
    return options


def _one_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def drop_columns(frame: pd.DataFrame, drop) -> pd.DataFrame:
    """``frame`` without the columns named in ``drop`` (each item a name, or names separated
    by commas); an unknown name is an error."""
    if not drop:
        return frame
    names = []
    for item in drop:
        if item in frame.columns:
            names.append(item)
            continue
        for name in (n.strip() for n in item.split(",")):
            if not name:
                continue
            if name not in frame.columns:
                shown = ", ".join(map(str, list(frame.columns)[:12]))
                raise DataFileError(f"--drop names unknown column {name!r}; columns are: {shown}")
            names.append(name)
    return frame.drop(columns=list(dict.fromkeys(names)))


#: A text column is "numeric with a few typos" when at most this share of its values (and at
#: most _MAX_TYPO_VALUES distinct values) are not numbers.
_TYPO_SHARE = 0.05
_MAX_TYPO_VALUES = 5
#: A text column whose every value differs is an identifier when the file has this many rows.
_ID_MIN_ROWS = 20


def numeric_typos(frame: pd.DataFrame) -> list[str]:
    """Warnings for text columns that are numbers but for a few values (a typo such as
    ``'abc'`` turns a numeric column categorical): one message per column, naming the values."""
    messages = []
    for name in frame.columns:
        column = frame[name]
        if not (pd.api.types.is_object_dtype(column.dtype)
                or pd.api.types.is_string_dtype(column.dtype)):
            continue
        present = column.dropna()
        if present.empty:
            continue
        numbers = pd.to_numeric(present, errors="coerce")
        bad = present[numbers.isna()]
        if bad.empty or len(bad) > max(1, _TYPO_SHARE * len(present)):
            continue
        values = list(dict.fromkeys(str(v) for v in bad.tolist()))
        if len(values) > _MAX_TYPO_VALUES:
            continue
        rows = ", ".join(str(int(i) + 1) for i in bad.index[:5])
        messages.append(
            f"column {str(name)!r} holds numbers except {len(bad)} value(s) "
            f"{', '.join(repr(v) for v in values)} (row {rows}{' ...' if len(bad) > 5 else ''}), "
            "so it is read as categorical; fix the values, or drop the column with --drop")
    return messages


def identifier_columns(frame: pd.DataFrame) -> list[str]:
    """Text columns with a different value in every row (identifiers, names, free text):
    a tree cannot learn from them, and every new row holds a level never seen. Columns of
    numbers with a few typos are not counted (:func:`numeric_typos` warns about them)."""
    if frame.shape[0] < _ID_MIN_ROWS:
        return []
    found = []
    for name in frame.columns:
        column = frame[name]
        if not (pd.api.types.is_object_dtype(column.dtype)
                or pd.api.types.is_string_dtype(column.dtype)):
            continue
        if not (column.notna().all() and column.nunique() == len(column)):
            continue
        numbers = pd.to_numeric(column, errors="coerce")
        if numbers.notna().mean() >= 0.5:
            continue  # numbers with typos
        found.append(str(name))
    return found


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
        hint = ""
        if frame.shape[1] == 1:
            hint = " (the file was read as a single column: is the separator right? see --sep)"
        raise DataFileError(f"target column {target!r} not found; columns are: {shown}{hint}")
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


def rows_digest(X: pd.DataFrame, y: pd.Series) -> str:
    """SHA-256 of rows in their order: the column names, then every row's values (pandas'
    stable per-row hashes of the features and the target). ``treebound fit`` records it for its
    training rows; ``treebound certify`` rebuilds the rows and compares."""
    digest = hashlib.sha256()
    digest.update(json.dumps([str(c) for c in X.columns] + [str(y.name)]).encode())
    digest.update(pd.util.hash_pandas_object(X, index=False).to_numpy().tobytes())
    digest.update(pd.util.hash_pandas_object(y, index=False).to_numpy().tobytes())
    return digest.hexdigest()
