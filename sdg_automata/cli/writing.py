"""Where a command's result goes: ``-o FILE`` or stdout, plots and Graphviz drawings.

Outputs are written atomically (a temporary file in the same folder, then
``os.replace``), so a failed write leaves the old file as it was, and never
over one of the command's own inputs.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..errors import BudgetExceeded, InputError, ResourceError
from .arguments import positive
from .budgets import budget
from .exits import NO_ROOM

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = [
    "DRAW_LIMIT", "INPUT_ARGUMENTS", "add_drawing", "add_output", "check_plot",
    "check_visual", "deliver", "output", "unlimited_digits", "write_plot",
]


#: the argument names that hold input files (an output may never replace one);
#: ``--checkpoint`` is read and written
INPUT_ARGUMENTS = ("grammar", "within", "words_from", "graph", "file", "checkpoint")
#: how a message names each input
_INPUT_NAMES = {"grammar": "the grammar", "within": "--within", "words_from": "--words-from",
                "graph": "the game graph", "file": "the input FILE",
                "checkpoint": "--checkpoint"}
#: the argument names that hold files a command writes, with how a message names them
OUTPUT_ARGUMENTS = {"output": "-o", "out": "--out", "plot": "--plot",
                    "certificate": "--certificate", "checkpoint": "--checkpoint"}


def add_output(p: argparse.ArgumentParser) -> None:
    """``-o FILE``: written atomically, never over an input."""
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write to FILE instead of stdout (atomically; never over an input)")


def _same_file(a: str, b: str) -> bool:
    """Whether the paths ``a`` and ``b`` name one file: the same file when both exist (a
    link to it included), else the same path once resolved (a file yet to be written)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def _not_a_folder(path: str, option: str) -> None:
    """Refuse an output path that names a folder: an existing one, or a name ending in a
    slash (``-o newdir/``: a file called ``newdir`` is not what was meant)."""
    if os.path.isdir(path):
        raise InputError(f"cannot write {option} {path!r}: it is a directory; give the name "
                         "of a file")
    if path.endswith(("/", os.sep)):
        raise InputError(f"cannot write {option} {path!r}: a name ending in a slash is a "
                         "directory; give the name of a file")


def check_files(args: argparse.Namespace) -> None:
    """The one rule on a command's files, checked before any work: no output names a
    folder, an input of the command, or another of its outputs (``octal 0.77
    --certificate k.cert -o k.cert`` would replace the certificate by the text).

    A path that exists is compared as a file (a link to it is the same file); one that
    does not yet exist, by its resolved name.  ``-`` (standard input) is no file.

    Raises
    ------
    InputError
        Naming both options and the file.
    """
    outputs = [(dest, option, given) for dest, option in OUTPUT_ARGUMENTS.items()
               if isinstance(given := getattr(args, dest, None), str) and given]
    for _, option, path in outputs:
        _not_a_folder(path, option)
    for i, (dest, option, path) in enumerate(outputs):
        for _, other_option, other_path in outputs[i + 1:]:
            if _same_file(path, other_path):
                raise InputError(f"{option} and {other_option} name the same file "
                                 f"{path!r}: one would replace the other")
        _not_over_an_input(args, path, option, dest)


def _not_over_an_input(args: argparse.Namespace, path: str, option: str,
                       dest: str | None = None) -> None:
    """Refuse the output ``path`` when it is one of the command's input files (a link to
    one included), other than its own argument ``dest`` (a checkpoint is both)."""
    for name in INPUT_ARGUMENTS:
        given = getattr(args, name, None)
        if (name != dest and isinstance(given, str) and given not in ("", "-")
                and os.path.exists(given) and _same_file(given, path)):
            raise InputError(f"refusing to write the output over the input {given!r} "
                             f"({option} {path!r} names {_INPUT_NAMES[name]})")


def _write_atomically(path: str, data: str | bytes) -> None:
    """Write ``data`` to ``path`` so that any failure leaves the old file untouched
    (:func:`~sdg_automata.runtime.atomic.replacing`).

    A path that is not a regular file (a device such as /dev/null, a FIFO) is written
    in place, as there is no old content to keep.
    """
    from ..runtime.atomic import replacing

    blob = data if isinstance(data, bytes) else data.encode("utf-8")
    target = os.path.realpath(path)
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(target, "wb") as f:
            f.write(blob)
        return
    with replacing(target) as f:
        f.write(blob)


def output(args: argparse.Namespace, data: str | bytes, *, to: str | None = None,
           option: str = "-o") -> None:
    """Write a result to ``-o FILE`` when given (atomically), else to stdout.

    ``to`` names another file option's value (``--plot OUT``), written the same
    way: atomically, never over one of the command's inputs (a link to one
    included); a full disk is :class:`~sdg_automata.errors.ResourceError`.
    """
    path = getattr(args, "output", None) if to is None else to
    if path == "":
        raise InputError(f"{option} needs a file name")
    if path:
        _not_over_an_input(args, path, option)
        _not_a_folder(path, option)
        try:
            _write_atomically(path, data)
        except OSError as e:
            fault = ResourceError if e.errno in NO_ROOM else InputError
            raise fault(f"cannot write {path!r}: {e.strerror or e}") from None
    elif isinstance(data, bytes):
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
    else:
        sys.stdout.write(data)


def check_plot(path: str, last: int | None = None, *, option: str | None = None) -> None:
    """Refuse a ``--plot FILE`` before any work: a file type it cannot write, no
    matplotlib, and where ``option N`` bounds what is drawn (the values 0..N), no N or
    too many values."""
    from ..render.plots import MAX_POINTS, require_plot
    from ..sweeps.summarize import plot_suffix

    plot_suffix(path)
    if option is not None:
        if last is None:
            raise InputError(f"--plot draws the values of 0..N: give {option} N")
        if last >= MAX_POINTS:
            raise InputError(f"--plot draws at most {MAX_POINTS:,} values: {option} {last:,} "
                             "is beyond")
    require_plot()


def write_plot(args: argparse.Namespace, figure: Figure) -> None:
    """Write ``figure`` to ``--plot FILE`` as every output file is written (atomically,
    never over an input: :func:`output`), and say so on stderr."""
    from ..render.plots import figure_bytes

    output(args, figure_bytes(figure, args.plot), to=args.plot, option="--plot")
    print(f"wrote {args.plot}", file=sys.stderr)


def check_visual(args: argparse.Namespace) -> None:
    """Fail before any work when SVG/PNG is asked for and Graphviz is missing."""
    if args.format in ("svg", "png"):
        from ..render.drawing import require_visual

        require_visual(args.format.upper())


#: drawings (SVG, PNG) with more states or positions are refused unless --max-draw-states
#: says otherwise: Graphviz's layout of a few thousand nodes takes minutes
DRAW_LIMIT = 500


def add_drawing(p: argparse.ArgumentParser) -> None:
    """``--max-draw-states``: the size guard checked before Graphviz is called."""
    p.add_argument("--max-draw-states", type=positive, default=DRAW_LIMIT, metavar="N",
                   help=f"--format svg/png: refuse drawings of more than N states or positions "
                        f"(default {DRAW_LIMIT}; Graphviz's layout grows fast)")


def deliver(args: argparse.Namespace, text: str, *, size: int = 0) -> None:
    """Write ``text`` (DOT for --format svg/png, which Graphviz lays out) to -o or stdout.

    ``size`` is the number of states or positions drawn, checked against
    ``--max-draw-states`` before Graphviz runs; the layout gets what is left of
    ``--max-seconds`` (the command's one deadline).
    """
    from ..render.drawing import dot_to_png, dot_to_svg

    data: str | bytes = text
    if args.format in ("svg", "png") and size > args.max_draw_states:
        raise BudgetExceeded(f"refusing to draw {size} states or positions with Graphviz (more "
                             f"than --max-draw-states {args.max_draw_states}); use --format dot "
                             "or text, or raise --max-draw-states")
    seconds = None
    if args.format in ("svg", "png") and getattr(args, "max_seconds", None) is not None:
        meter = budget(args).start("Graphviz layout", unit="states or positions")
        seconds = meter.deadline - time.perf_counter()
        if seconds <= 0:
            raise meter.exceeded(size, f"{args.max_seconds:g} s")
    if args.format == "svg":
        data = dot_to_svg(text, max_seconds=seconds)
    elif args.format == "png":
        data = dot_to_png(text, max_seconds=seconds)
        if not args.output and sys.stdout.isatty():
            raise InputError("--format png is binary: give -o FILE (or redirect stdout)")
    output(args, data)


@contextlib.contextmanager
def unlimited_digits() -> Iterator[None]:
    """Let exact integers of any size be printed (the guard is for untrusted parsing)."""
    setter = getattr(sys, "set_int_max_str_digits", None)
    if setter is None:  # Python < 3.10.7 has no limit
        yield
        return
    old = sys.get_int_max_str_digits()
    setter(0)
    try:
        yield
    finally:
        setter(old)
