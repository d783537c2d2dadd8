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
    data: Annotated[Path, typer.Argument(
        help="CSV or TSV file the model was fit on, or - for standard input.")],
    target: Annotated[str, typer.Option(help="Target column name (or '#-1' for the last).")],
    method: Annotated[str, typer.Option(
        help="auto, hti, compression, shawe_taylor, prefix_code (dyadic trees) or test_set."
    )] = "auto",
    delta: Annotated[float, typer.Option(help="The bound holds with probability 1 - delta.")]
    = 0.05,
    test_size: Annotated[float | None, typer.Option(
        help="The split 'treebound fit' used (default: the one recorded in the model file; "
             "0.25 for files without a record; 0 if the model was fit on every row).")] = None,
    seed: Annotated[int | None, typer.Option(
        min=0, max=2**32 - 1,
        help="The seed 'treebound fit' used (default: the one recorded in the model file; 0 "
             "for files without a record).")] = None,
    rows: Annotated[str, typer.Option(
        help="train: certify on the rows the model was fit on; test: the held-out rows of the "
             "split (test-set bound).")] = "train",
    sep: SepOption = None,
    encoding: EncodingOption = None,
    drop: DropOption = None,
):
    """Certify a saved classifier: with probability 1 - delta its error on new data is at most
    the printed value. The training-sample methods are valid only on the i.i.d. sample the
    model was fit on: 'treebound fit' splits DATA and records the split in the model file, and
    certify rebuilds that split, checks that its training rows are the ones recorded (their
    number and hash) and refuses other rows."""
    # commands load what they run when they run: --help and the theory commands stay light
    from treebound import load_model
    from treebound.certificates import METHODS, format_bound
    from treebound.certificates import certify as certify_model
    from treebound.cli._core import _warn, cli_advice, read_data, train_test_rows
    from treebound.cli._data import DataFileError, rows_digest, select_features, split_target
    from treebound.cli._notes import announce_compilation

    announce_compilation(("prediction", "theory"))
    if rows not in ("train", "test"):
        _fail(f"--rows must be train or test, got {rows!r}")
    if method not in METHODS:
        _fail(f"--method must be one of {', '.join(METHODS)}, got {method!r}")
    if test_size is not None and not 0.0 <= test_size < 1.0:
        _fail(f"--test-size must be in [0, 1), got {test_size}")
    if rows == "test" and method not in ("auto", "test_set"):
        _fail(f"held-out rows are certified by the test-set bound, not {method!r}")
    if rows == "train" and method == "test_set":
        _fail("method test_set needs rows never used to fit the model: use --rows test")
    try:
        model = load_model(model_file)
    except ValueError as exc:
        _fail(str(exc))
    if not hasattr(model, "classes_"):
        _fail("certify bounds the error of classifiers; this model is a regressor")
    record = getattr(model, "training_rows_", None)
    if record is not None:
        for option, given, recorded in (("--seed", seed, record["seed"]),
                                        ("--test-size", test_size, record["test_size"])):
            if given is not None and given != recorded:
                _fail(f"the model was fit with {option} {recorded:g} (recorded in "
                      f"{str(model_file)!r}); {option} {given:g} would certify other rows: "
                      f"leave {option} out")
        seed, test_size = record["seed"], record["test_size"]
    else:
        seed = 0 if seed is None else seed
        test_size = 0.25 if test_size is None else test_size
        _warn(f"{str(model_file)!r} does not record how its training rows were chosen (a model "
              "saved from Python, or by an older treebound): assuming --seed "
              f"{seed} --test-size {test_size:g}; the rows are still checked against the tree's "
              "counts")
    if rows == "test" and test_size == 0:
        _fail("--rows test needs the held-out part of a split, and the model was fit on every "
              "row (--test-size 0)")
    try:
        frame = read_data(data, sep, encoding, drop)
        X, y = split_target(frame, target)
        X = select_features(X, model)
        if record is not None and len(frame) != record["n_rows"]:
            _fail(f"DATA has {len(frame)} rows, but the file the model was fit on had "
                  f"{record['n_rows']}: certify needs the same file 'treebound fit' read")
        X_train, X_test, y_train, y_test = train_test_rows(X, y, "classification", test_size,
                                                           seed)
        if record is not None and rows_digest(X_train, y_train) != record["sha256"]:
            _fail(f"the training rows rebuilt from DATA (--seed {seed}, --test-size "
                  f"{test_size:g}: {len(y_train)} rows) are not the rows the model was fit on "
                  "(their hash differs): DATA is not the file 'treebound fit' read, or it has "
                  "changed since")
        if rows == "test":
            certificate = certify_model(model, X_test, y_test, delta=delta, method="test_set")
        else:
            certificate = certify_model(model, X_train, y_train, delta=delta, method=method)
    except (DataFileError, ValueError, TypeError) as exc:
        _fail(cli_advice(str(exc)))
    typer.echo(cli_advice(str(certificate)))
    each = (f"at delta / 2 = {format_bound(delta / 2, 'lower')}" if certificate.method == "auto"
            else f"at delta = {format_bound(delta, 'lower')}")
    for name in ("hti", "compression", "shawe_taylor", "prefix_code", "test_set"):
        if name in certificate.details:
            vacuous = " (promises nothing)" if float(format_bound(
                certificate.details[name], digits=4)) >= 1 else ""
            typer.echo(f"  {name} upper bound {each}: "
                       f"{format_bound(certificate.details[name], digits=4)}{vacuous}")
