"""``treebound certify``: a bound on the true error of a saved tree classifier."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from treebound.cli._core import DropOption, EncodingOption, SepOption, _fail


def register(app: typer.Typer) -> None:
    app.command("certify")(certify)


def certify(
    model_file: Annotated[Path, typer.Argument(help="Model file written by 'treebound fit'.")],
    data: Annotated[Path, typer.Argument(help="CSV or TSV file the model was fit on.")],
    target: Annotated[str, typer.Option(help="Target column name (or '#-1' for the last).")],
    method: Annotated[str, typer.Option(
        help="auto, hti, compression, shawe_taylor, prefix_code (dyadic trees) or test_set."
    )] = "auto",
    delta: Annotated[float, typer.Option(help="The bound holds with probability 1 - delta.")]
    = 0.05,
    test_size: Annotated[float, typer.Option(
        help="The split 'treebound fit' used (its default: 0.25; 0 if the model was fit on "
             "every row of DATA).")] = 0.25,
    seed: Annotated[int, typer.Option(min=0, max=2**32 - 1,
                                      help="The seed 'treebound fit' used.")] = 0,
    rows: Annotated[str, typer.Option(
        help="train: certify on the rows the model was fit on; test: the held-out rows of the "
             "split (test-set bound).")] = "train",
    sep: SepOption = None,
    encoding: EncodingOption = None,
    drop: DropOption = None,
):
    """Certify a saved classifier: with probability 1 - delta its error on new data is at most
    the printed value. The training-sample methods are valid only on the i.i.d. sample the
    model was fit on; 'treebound fit' splits DATA, and the same --test-size/--seed rebuild
    that split here."""
    # commands load what they run when they run: --help and the theory commands stay light
    from treebound import load_model
    from treebound.certificates import METHODS
    from treebound.certificates import certify as certify_model
    from treebound.cli._core import read_data, train_test_rows
    from treebound.cli._data import DataFileError, select_features, split_target
    from treebound.cli._notes import announce_compilation

    announce_compilation(("prediction", "theory"))
    if rows not in ("train", "test"):
        _fail(f"--rows must be train or test, got {rows!r}")
    if method not in METHODS:
        _fail(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    if not 0.0 <= test_size < 1.0:
        _fail(f"--test-size must be in [0, 1), got {test_size}")
    if rows == "test" and test_size == 0:
        _fail("--rows test needs the held-out part of a split (--test-size > 0)")
    if rows == "test" and method not in ("auto", "test_set"):
        _fail(f"held-out rows are certified by the test-set bound, not {method!r}")
    if rows == "train" and method == "test_set":
        _fail("method test_set needs rows never used to fit the model: use --rows test")
    try:
        model = load_model(model_file)
        if not hasattr(model, "classes_"):
            _fail("certify bounds the error of classifiers; this model is a regressor")
        X, y = split_target(read_data(data, sep, encoding, drop), target)
        X = select_features(X, model)
        X_train, X_test, y_train, y_test = train_test_rows(X, y, "classification", test_size,
                                                           seed)
        if rows == "test":
            certificate = certify_model(model, X_test, y_test, delta=delta, method="test_set")
        else:
            certificate = certify_model(model, X_train, y_train, delta=delta, method=method)
    except (DataFileError, ValueError, TypeError) as exc:
        _fail(str(exc))
    typer.echo(str(certificate))
    for name in ("hti", "compression", "shawe_taylor", "prefix_code", "test_set"):
        if name in certificate.details:
            typer.echo(f"  {name}: {certificate.details[name]:.4f}")
