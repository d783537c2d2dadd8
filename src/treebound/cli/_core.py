"""Core commands: ``treebound fit``, ``treebound predict`` and ``treebound demo``."""

from __future__ import annotations

import contextlib
import json
import re
import sys
from pathlib import Path
from typing import Annotated

import typer

from treebound._format import format_bound, format_count
from treebound.cli._lists import option_values

#: Largest raster image ``treebound plot`` writes (pixels; 4 bytes each while drawing).
MAX_PLOT_PIXELS = 100e6


def _fail(message: str) -> None:
    """One-line error on stderr and a non-zero exit, no traceback."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code=2)


def _warn(message: str) -> None:
    typer.echo(f"warning: {message}", err=True)


#: Options shared by the commands that read a data file (fit, predict, certify).
SepOption = Annotated[str | None, typer.Option(
    help="Column separator (default: from the extension; ',' for .csv, tab for .tsv; 'tab' "
         "or '\\t' for a tab).")]
EncodingOption = Annotated[str | None, typer.Option(
    help="Text encoding of the data file (default: utf-8), e.g. latin-1.")]
DropOption = Annotated[list[str] | None, typer.Option(
    help="Column to ignore, e.g. an identifier; repeat the option for several.")]
SeedOption = Annotated[int, typer.Option(min=0, max=2**32 - 1,
                                         help="Seed of the train/test split.")]


def read_data(data, sep, encoding, drop):
    """The data file as a DataFrame without the dropped columns."""
    # pandas (via _data) only for the commands that read a table
    from treebound.cli._data import drop_columns, read_table

    frame = read_table(data, sep=sep, encoding=encoding)
    return drop_columns(frame, option_values(drop, "--drop", keep=set(frame.columns)))


def warn_numeric_typos(X) -> None:
    """A warning on stderr for every feature column that is numbers but for a few values."""
    # pandas (via _data) only for the commands that read a table
    from treebound.cli._data import numeric_typos

    for message in numeric_typos(X):
        _warn(message)


def register(app: typer.Typer) -> None:
    app.command("fit")(fit)
    app.command("predict")(predict)
    app.command("demo")(demo)
    app.command("plot")(plot)


def fit(
    data: Annotated[Path, typer.Argument(
        help="CSV or TSV file (gzip allowed), or - for standard input.")],
    target: Annotated[str, typer.Option(help="Target column name (or '#-1' for the last).")],
    criterion: Annotated[str, typer.Option(help="gini, entropy (= log_loss), scaled_entropy, "
                                                "sqrt, misclassification (classification) or "
                                                "squared_error, absolute_error, poisson.")] = None,
    growth: Annotated[str, typer.Option(help="depth_first, top_down, best_first or "
                                             "purest_children.")] = "depth_first",
    splitter: Annotated[str, typer.Option(
        help="best (every threshold; 'exact' is its former name) or hist.")] = "best",
    max_leaf_nodes: Annotated[int, typer.Option(
        help="Leaf budget (default: 2 sqrt(n) leaves with --pruning bound, none otherwise; 0: no "
             "budget).")] = None,
    max_depth: Annotated[int, typer.Option(help="Depth limit.")] = None,
    min_samples_leaf: Annotated[int, typer.Option(help="Minimum samples per leaf.")] = 1,
    categorical: Annotated[list[str] | None, typer.Option(
        help="Categorical column (default: the text/bool columns); repeat the option for "
             "several.")] = None,
    levels: Annotated[list[str] | None, typer.Option(
        help="COLUMN=N: the number of levels a categorical column can take, declared for the "
             "certificate; repeat the option for several.")] = None,
    categorical_split: Annotated[str, typer.Option(help="binary or multiway.")] = "binary",
    task: Annotated[str, typer.Option(help="classification, regression or auto.")] = "auto",
    test_size: Annotated[float, typer.Option(
        help="Held-out fraction for the test score (0: train on every row).")] = 0.25,
    seed: SeedOption = 0,
    save: Annotated[str, typer.Option(help="Write the fitted model here (JSON).")] = None,
    show_tree: Annotated[bool, typer.Option(help="Print the tree and its rules.")] = True,
    pruning: Annotated[str, typer.Option(
        help="Prune the grown tree: bound (no CV), ccp_cv, mcart_cv, certified, srm or "
             "reduced_error."
    )] = None,
    pruning_param: Annotated[list[str], typer.Option(
        help="Option of the pruning method as KEY=VALUE (repeatable), e.g. delta=0.1.")] = None,
    sep: SepOption = None,
    encoding: EncodingOption = None,
    drop: DropOption = None,
):
    """Fit a tree on DATA, report train/test scores, print the tree and its rules.

    A text column with a different value in every row (an identifier) is refused: drop it with
    --drop. A level of a categorical column that only the test rows hold is predicted by the
    model's rule for unseen levels (the child that received the most training weight). The
    model file records how the training rows were chosen (seed, test size, their number and
    hash), so that 'treebound certify' certifies the same rows."""
    # commands load what they run when they run: --help and the theory commands stay light
    import numpy as np

    # commands load what they run when they run: --help and the theory commands stay light
    import pandas as pd

    from treebound import DecisionTreeClassifier, DecisionTreeRegressor, export_text, format_rules
    from treebound.cli._data import DataFileError, identifier_columns, rows_digest, split_target
    from treebound.cli._files import OutputPathError, check_output_path

    if pruning_param and pruning is None:
        _fail("--pruning-param sets options of a pruning method: give --pruning too")
    if not 0.0 <= test_size < 1.0:
        _fail(f"--test-size must be in [0, 1), got {test_size}")
    if task not in ("auto", "classification", "regression"):
        _fail(f"--task must be auto, classification or regression, got {task!r}")
    for option, value in (("--max-leaf-nodes", max_leaf_nodes), ("--max-depth", max_depth),
                          ("--min-samples-leaf", min_samples_leaf)):
        if value is not None and not 0 <= value <= 2**63 - 1:
            _fail(f"{option} must be between 0 and {2**63 - 1} (64-bit integers), got {value}")
    try:  # before any work: a bad output path must not cost a fit
        save = check_output_path(save, "--save", inputs=[data])
    except OutputPathError as exc:
        _fail(str(exc))
    declared = _parse_levels(levels)
    try:
        frame = read_data(data, sep, encoding, drop)
        X, y = split_target(frame, target)
    except DataFileError as exc:
        _fail(str(exc))
    warn_numeric_typos(X)
    ids = identifier_columns(X)
    if ids:
        _fail(f"column {ids[0]!r} holds a different text value in every one of the {len(X)} "
              "rows, like an identifier: a tree cannot learn from it; drop it with "
              + " ".join(f"--drop {name}" for name in ids))
    missing = np.flatnonzero(y.isna().to_numpy())
    if missing.size:
        _fail(f"the target column {str(y.name)!r} is empty in data row {int(missing[0]) + 1}"
              f"{f' ({missing.size} rows in all)' if missing.size > 1 else ''}: every row needs "
              "a target; drop or fill those rows")
    labels = _label_types(y)
    if len(labels) > 1:
        _fail(f"the target column {target!r} mixes label types ({', '.join(labels)}); make "
              "every label the same type")
    if task == "auto":
        # float targets with non-integer values are regression; everything else is labels
        is_float = pd.api.types.is_float_dtype(y.dtype)
        task = "regression" if is_float and not np.all(np.mod(y.dropna(), 1) == 0) else \
            "classification"
    names = option_values(categorical, "--categorical", keep=set(map(str, X.columns)))
    cat = "auto" if names is None else names
    budget = "auto" if max_leaf_nodes is None else (max_leaf_nodes or None)
    params = dict(growth=growth, splitter=splitter, max_leaf_nodes=budget,
                  max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                  categorical_features=cat, categorical_split=categorical_split,
                  pruning=pruning, pruning_params=_parse_pruning_params(pruning_param),
                  random_state=seed, categorical_levels=declared or None)
    if task == "classification":
        model = DecisionTreeClassifier(criterion=criterion or "gini", **params)
    else:
        model = DecisionTreeRegressor(criterion=criterion or "squared_error", **params)
    # the compile note checks the kernel cache (numba) only when a command runs
    from treebound.cli._notes import announce_compilation

    classifier = task == "classification"  # a classifier's fit gathers its certificate
    announce_compilation(("growth", "prediction") + (("certificates",) if classifier else ())
                         + (("bound pruning",) if pruning == "bound" else ()),
                         background=("bound pruning", "certificates"))
    try:
        X_train, X_test, y_train, y_test = train_test_rows(X, y, task, test_size, seed)
        with _working(f"fitting{'' if pruning is None else f' and pruning ({pruning})'} on "
                      f"{len(y_train)} rows"):
            model.fit(X_train, y_train)
        model.training_rows_ = {"seed": seed, "test_size": float(test_size),
                                "n_rows": len(frame), "n_train_rows": len(y_train),
                                "sha256": rows_digest(X_train, y_train)}
        train_score = model.score(X_train, y_train)
        test_score = model.score(X_test, y_test) if len(y_test) else None
        certificate = getattr(model, "certificate_", None)
    except (ValueError, TypeError) as exc:
        _fail(cli_advice(str(exc)))
    if save is not None:  # written before anything is printed: a closed pipe cannot lose it
        # scikit-learn (the estimators) only for the commands that fit
        from treebound import save_model

        try:
            save_model(model, save)
        except OSError as exc:
            _fail(f"cannot write {str(save)!r}: {exc}")
    metric = "accuracy" if task == "classification" else "R^2"
    typer.echo(f"{type(model).__name__}: {_count(model.get_n_leaves(), 'leaf', 'leaves')}, "
               f"depth {model.get_depth()}")
    shown = "n/a" if test_score is None else f"{test_score:.4f}"
    typer.echo(f"training {metric} {train_score:.4f} on {_count(len(y_train), 'row')}, "
               f"test {metric} {shown} on {_count(len(y_test), 'held-out row')}")
    if certificate is not None:
        typer.echo(f"certificate: {cli_advice(str(certificate))}")
    if pruning is not None:
        path = model.pruning_path_
        grown = f" from {_count(path[0][0], 'leaf', 'leaves')}" if path else ""
        typer.echo(f"pruned by {pruning}{grown} in {model.pruning_time_:.3f} s"
                   f"{_objective_text(pruning, model)}")
    if show_tree:
        typer.echo("\n" + export_text(model, max_depth=None).rstrip("\n"))
        typer.echo("\nrules:\n" + format_rules(model))
    if save is not None:
        typer.echo(f"\nmodel saved to {save}")


def _count(n: int, noun: str, plural: str | None = None) -> str:
    return format_count(n, noun, plural)


#: What bound pruning's objective is, by ``pruning_info_["objective"]``.
_BOUND_OBJECTIVES = {"shawe_taylor": "Shawe-Taylor bound", "hti": "hti bound",
                     "compression": "compression bound"}


def _objective_text(pruning: str, model) -> str:
    """What the pruning's final objective (``pruning_objective_``) is, with its value (SRM's is
    not a bound)."""
    value = getattr(model, "pruning_objective_", None)
    if value is None:
        return ""
    if pruning == "srm":
        return (f"; its penalized risk (Vapnik's E_g, the objective SRM minimizes, not a bound "
                f"on the error) is {value:.4f}")
    name = _BOUND_OBJECTIVES.get(model.pruning_info_.get("objective", "shawe_taylor"),
                                 "bound")
    return (f"; its {name} (the objective bound pruning minimizes; the certificate "
            f"is the guarantee) is at most {format_bound(value)}")


def _parse_levels(items) -> dict:
    """``["color=12", "shape=3"]`` (the repeated ``--levels``) -> ``{"color": 12, "shape": 3}``."""
    out: dict = {}
    for item in items or ():
        part = item.strip()
        name, sep, count = part.rpartition("=")
        if "," in name and "=" in name:
            _fail("--levels takes one COLUMN=N; repeat the option for several: "
                  + " ".join(f"--levels {p.strip()}" for p in part.split(",") if p.strip()))
        try:
            number = int(count)
        except ValueError:
            number = 0
        if not sep or not name or number < 1:
            _fail(f"--levels must look like COLUMN=N with N a positive number of levels, "
                  f"got {part!r}")
        out[name] = number
    return out


#: Python-API spellings in library messages and what the command line calls them.
_CLI_SPELLINGS = (
    ("method='test_set'", "--rows test"),
    ("categorical_features", "--categorical"),
    ("max_leaf_nodes", "--max-leaf-nodes"),
    ("max_depth", "--max-depth"),
    ("min_samples_leaf", "--min-samples-leaf"),
    ("pruning_params", "--pruning-param"),
)


def cli_advice(message: str) -> str:
    """A library message with its Python-API advice in command-line terms
    (``method='test_set'`` -> ``--rows test``)."""
    # how to declare levels: the command line's way only
    message = re.sub(r"a pandas CategoricalDtype listing every level, or "
                     r"categorical_levels=\{'[^']*': N\}; on the command line (--levels [^)]*)",
                     r"\1", message)
    for python, cli in _CLI_SPELLINGS:
        message = message.replace(python, cli)
    # "parameter 'max_depth'" already became "--max-depth"; "method 'hti'" -> "--method hti"
    message = re.sub(r"method='(\w+)'", r"--method \1", message)
    return message


def _label_types(y) -> list[str]:
    """Names of the Python types among the non-missing labels (text and numbers can't be
    ordered together)."""
    kinds = {("text" if isinstance(v, str) else "number" if isinstance(v, int | float) else
              type(v).__name__) for v in y.dropna().tolist()}
    return sorted(kinds)


def _working(message: str):
    """A spinner on stderr while a long step runs: terminals only, silent under --quiet."""
    # the notes module reads the kernel cache, loaded on use
    from treebound.cli import _notes

    if _notes.QUIET or not sys.stderr.isatty():
        return contextlib.nullcontext()
    # rich only when a spinner is shown
    from rich.console import Console

    return Console(stderr=True).status(message)


def train_test_rows(X, y, task: str, test_size: float, seed: int):
    """The split ``treebound fit`` trains and scores on (``certify`` rebuilds it): stratified
    for classification when every class has two rows; ``test_size = 0`` keeps every row."""
    if test_size == 0:
        return X, X.iloc[:0], y, y.iloc[:0]
    # sklearn.model_selection (~0.2 s) only to split rows
    from sklearn.model_selection import train_test_split

    stratify = y if task == "classification" and y.value_counts().min() >= 2 else None
    return train_test_split(X, y, test_size=test_size, random_state=seed, stratify=stratify)


def _parse_pruning_params(items) -> dict | None:
    """``["delta=0.1", "variant=loose"]`` -> ``{"delta": 0.1, "variant": "loose"}``."""
    if not items:
        return None
    out = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            _fail(f"--pruning-param must look like KEY=VALUE, got {item!r}")
        try:
            value = json.loads(text)
        except ValueError:
            value = text  # a bare word such as loose or 1se
        out[key.strip()] = value
    return out


def predict(
    model_file: Annotated[Path, typer.Argument(help="Model file written by 'treebound fit'.")],
    data: Annotated[Path, typer.Argument(
        help="CSV or TSV file with the model's features, or - for standard input.")],
    out: Annotated[str, typer.Option(help="Write predictions here (CSV) instead of stdout.")]
    = None,
    proba: Annotated[bool, typer.Option(help="Class probabilities instead of labels.")] = False,
    sep: SepOption = None,
    encoding: EncodingOption = None,
    drop: DropOption = None,
):
    """Predict DATA with a saved model (one prediction per row). Levels of a categorical column
    never seen in training follow the model's handle_unknown rule (default: the child that
    received the most training weight)."""
    # commands load what they run when they run: --help and the theory commands stay light
    import pandas as pd

    # commands load what they run when they run: --help and the theory commands stay light
    from treebound import load_model
    from treebound.cli._data import DataFileError, select_features
    from treebound.cli._files import OutputPathError, check_output_path, write_atomically

    try:
        out = check_output_path(out, "--out", inputs=[model_file, data])
    except OutputPathError as exc:
        _fail(str(exc))
    try:
        model = load_model(model_file)
        X = select_features(read_data(data, sep, encoding, drop), model)
        warn_numeric_typos(X)
        if proba:
            if not hasattr(model, "predict_proba"):
                _fail("--proba needs a classifier model")
            probabilities = model.predict_proba(X)
            if isinstance(probabilities, list):  # several outputs: theirs side by side
                result = pd.concat([pd.DataFrame(p, columns=[f"p{k}({c})" for c in classes])
                                    for k, (p, classes) in enumerate(zip(
                                        probabilities, model.classes_, strict=True))], axis=1)
            else:
                result = pd.DataFrame(probabilities, columns=[f"p({c})" for c in model.classes_])
        else:
            predicted = model.predict(X)
            result = (pd.DataFrame({"prediction": predicted}) if predicted.ndim == 1 else
                      pd.DataFrame(predicted, columns=[f"prediction_{k}"
                                                       for k in range(predicted.shape[1])]))
    except (DataFileError, ValueError, TypeError) as exc:
        _fail(cli_advice(str(exc)))
    if out is None:
        result.to_csv(sys.stdout, index=False)
    else:
        try:
            write_atomically(out, lambda name: result.to_csv(name, index=False))
        except OSError as exc:
            _fail(f"cannot write {str(out)!r}: {exc}")
        typer.echo(f"{_count(len(result), 'prediction')} written to {out}")


def demo(
    seed: SeedOption = 0,
):
    """The main job in a minute, on scikit-learn's bundled breast-cancer data."""
    # the demo (scikit-learn, the estimators) and the compile note load only when it runs
    from treebound.cli._demo import run_demo
    from treebound.cli._notes import announce_compilation

    announce_compilation(("growth", "prediction", "certificates", "bound pruning"),
                         background=("bound pruning", "certificates"))
    run_demo(seed=seed)


def plot(
    model_file: Annotated[Path, typer.Argument(help="Model file written by 'treebound fit'.")],
    out: Annotated[str, typer.Argument(help="Image file to write (PNG, SVG or PDF).")],
    max_depth: Annotated[int, typer.Option(
        help="Levels drawn in full below the root, as scikit-learn's plot_tree (the next one "
             "as '(...)'; default: every level of a tree of at most 64 leaves, else the "
             "deepest that fits in 64 columns).")] = None,
    dpi: Annotated[int, typer.Option(min=1, max=2400, help="Resolution of raster images.")]
    = 120,
    pruning_path: Annotated[bool, typer.Option(
        "--pruning-path", help="Draw the pruning path (objective vs leaves) instead of the tree."
    )] = False,
):
    """Draw a saved model's tree (or its pruning path) into an image file."""
    # commands load what they run when they run: --help and the theory commands stay light
    from treebound import load_model
    from treebound.cli._files import OutputPathError, check_output_path, write_atomically

    try:
        out = check_output_path(out, "the image file", inputs=[model_file])
    except OutputPathError as exc:
        _fail(str(exc))
    try:
        model = load_model(model_file)
    except ValueError as exc:
        _fail(str(exc))
    if max_depth is not None and max_depth < 0:
        _fail(f"--max-depth must be >= 0, got {max_depth}")
    # matplotlib (~0.5 s) only for the plot command
    import matplotlib

    matplotlib.use("Agg")
    # pyplot after matplotlib.use('Agg'): no display needed
    import matplotlib.pyplot as plt

    from treebound import plot_pruning_path, plot_tree
    from treebound.tree._plot import tree_figure_inches

    depth = "auto" if max_depth is None else max_depth
    inches = (6.4, 4.8) if pruning_path else tree_figure_inches(model, depth)
    width, height = (float(v) * dpi for v in inches)
    if out.suffix.lower() not in (".svg", ".pdf", ".eps", ".ps") and \
            width * height > MAX_PLOT_PIXELS:
        _fail(f"the image would be about {width:,.0f} x {height:,.0f} pixels, over the limit of "
              f"{MAX_PLOT_PIXELS / 1e6:.0f} megapixels: lower --dpi or --max-depth, or write "
              "SVG or PDF")
    try:
        ax = plot_pruning_path(model) if pruning_path else plot_tree(model, max_depth=depth)
    except (ValueError, TypeError) as exc:
        _fail(cli_advice(str(exc)))
    try:
        write_atomically(out, lambda name: ax.figure.savefig(name, dpi=dpi, bbox_inches="tight"))
    except (OSError, ValueError) as exc:
        _fail(f"cannot write {str(out)!r}: {exc}")
    finally:
        plt.close(ax.figure)
    typer.echo(f"{'pruning path' if pruning_path else 'tree'} drawn to {out}")
