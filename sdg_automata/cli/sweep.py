"""``sweep grammars|summarize``: sweeps on local processes or Dask, streamed and resumable.

:func:`add_sweep_options` and :func:`run` are shared with ``imark survey``,
which runs on the same engine (:mod:`sdg_automata.sweep`).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import InputError, Interrupted
from .common import (
    Commands,
    ExitCode,
    Parser,
    add_budget,
    budget,
    duration,
    emit,
    positive,
    stamped,
)

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from ..summarize import Summary
    from ..sweep import Format, Sweep

__all__ = ["add_sweep_options", "register", "run"]

DESCRIPTION = """\
Run many independent jobs, one row each.  Rows are written as soon as each job
is done: JSON Lines (the default with --out or when stdout is not a terminal),
CSV, or an aligned table on a terminal, with a progress bar (done / total,
rate, ETA) on stderr when it is a terminal.

--out FILE appends; rerunning the same command with the same --out skips the
jobs whose key is already in FILE, so a sweep killed at any moment (SIGKILL
included) loses at most the rows in flight.  A torn last line is cut off.  A
job that fails is a row with "status": "error"; a job over its per-job budget
(--max-states, --max-seconds) is a row with "status": "budget".  To rerun
those, delete their lines from FILE.

Jobs run on --jobs local processes (default: the CPU count; 1 runs them in this
process) or on a Dask cluster: --scheduler tcp://HOST:PORT (see README:
'pip install "sdg_automata[cluster]"', dask-jobqueue for SLURM/PBS), or
--scheduler local for a LocalCluster of --jobs processes.  Every Dask worker
must run the same sdg_automata (checked before any job runs)."""


def add_sweep_options(p: argparse.ArgumentParser, *, states: bool = True) -> None:
    """--out, --format, --jobs, --scheduler, --batch and the per-job budget
    (``--max-states`` only when ``states``)."""
    from ..sweep import FORMATS

    p.add_argument("--out", metavar="FILE",
                   help="append rows to FILE, skipping jobs already in it (resumable)")
    p.add_argument("--format", choices=(*FORMATS, "json"), default=None,
                   help="jsonl (default with --out or a pipe; 'json' is the same), csv, or "
                        "table (a terminal)")
    p.add_argument("--jobs", type=positive, default=None, metavar="J",
                   help="local worker processes (default: the CPU count; 1: this process); "
                        "with --scheduler local, the LocalCluster's workers")
    p.add_argument("--scheduler", metavar="ADDR",
                   help="a Dask scheduler tcp://HOST:PORT, or 'local' for a LocalCluster")
    p.add_argument("--connect-timeout", type=duration, default=20.0, metavar="S",
                   help="seconds to wait for the Dask scheduler and a worker (default 20)")
    p.add_argument("--batch", type=positive, default=None, metavar="B",
                   help="jobs per task (default: chosen from the jobs and workers)")
    add_budget(p, states=states)
    for action in p._actions:
        if action.dest in ("max_states", "max_seconds"):
            action.help = (action.help or "").replace("stop with exit 3", "per job: a row with "
                                                      "status 'budget'")


def _add_sweep(p: Parser) -> None:
    p.description = DESCRIPTION
    ssub = p.add_subparsers(dest="sweep_command", metavar="SUBCOMMAND")
    p.set_defaults(func=_missing)
    ssub.command("grammars", _add_grammars,
                 help="every right-linear grammar of a size, once per isomorphism class")
    ssub.command("summarize", _add_summarize, help="tables (and plots) of a sweep's rows")


def _add_grammars(g: Parser) -> None:
    import textwrap

    g.description = textwrap.fill(
        "Every right-linear grammar with exactly N nonterminals N0 (the start), N1, ..., "
        "at most R rules each, bodies of at most L letters followed by at most one "
        "nonterminal, over LETTERS; once per isomorphism class (renaming N1.. and "
        "permuting letters); skipping unit cycles and nonterminals that derive nothing.  "
        "Row: key, grammar, states, bounds m_A, max and witness per nonterminal, status, "
        "seconds.", 79) + "\n\n" + DESCRIPTION
    g.add_argument("--nonterminals", type=positive, required=True, metavar="N")
    g.add_argument("--letters", required=True, help="the alphabet, e.g. ab")
    g.add_argument("--max-rules", type=positive, required=True, metavar="R",
                   help="at most R rules per nonterminal")
    g.add_argument("--max-body", type=positive, required=True, metavar="L",
                   help="at most L letters before the optional nonterminal")
    g.add_argument("--unit-rules", action="store_true", help="allow unit rules A -> B")
    g.add_argument("--count-only", action="store_true",
                   help="print the number of isomorphism classes, run nothing")
    add_sweep_options(g)
    g.set_defaults(func=_cmd_grammars)


def _add_summarize(s: Parser) -> None:
    s.description = (
        "Read the JSON Lines rows of a sweep (grammars or imark survey) and print "
        "what a researcher wants from them: for grammars, the distribution of the "
        "maximum per nonterminal, the largest automata, the smallest grammar "
        "reaching each Grundy value with its witness; for i-Mark, which (S, D) "
        "converge and with which c.  --plot draws a histogram (grammars) or a heat "
        "map (i-Mark) through matplotlib (the plot extra).")
    s.add_argument("file", metavar="FILE", help="rows of a sweep (JSON Lines or CSV)")
    s.add_argument("--plot", metavar="OUT", help="also draw OUT.png or OUT.svg")
    s.add_argument("--json", action="store_true", help="the summary as one JSON object")
    s.add_argument("--top", type=positive, default=5, help="rows in the 'largest' table")
    s.set_defaults(func=_cmd_summarize)


def register(sub: Commands) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    sub.command("sweep", _add_sweep,
                help="sweeps: every grammar of a size; summaries and plots")


def _missing(args: argparse.Namespace) -> int:
    raise InputError("sweep needs a subcommand: grammars or summarize "
                     "(see 'sdg_automata sweep --help')")


def _cmd_grammars(args: argparse.Namespace) -> int:
    from ..sweeps.enumeration import GrammarShape, count_classes
    from ..sweeps.grammars import grammar_sweep

    shape = GrammarShape(nonterminals=args.nonterminals, letters=args.letters,
                         max_rules=args.max_rules, max_body=args.max_body,
                         unit_rules=args.unit_rules)
    if args.count_only:
        print(count_classes(shape))
        return ExitCode.OK
    return run(args, grammar_sweep(shape))


@contextlib.contextmanager
def _progress(total: int, name: str, enabled: bool) -> Iterator[Callable[[], None] | None]:
    """A progress bar on stderr (done / total, rate, ETA) when stderr is a terminal."""
    if not enabled or sys.stderr is None or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]} rows/s"), TextColumn("ETA"),
                  TimeRemainingColumn(), console=Console(stderr=True),
                  redirect_stdout=True) as bar:
        task = bar.add_task(f"sweep {name}", total=total, rate="-")

        def advance() -> None:
            bar.advance(task)
            speed = bar.tasks[task].speed
            bar.update(task, rate="-" if speed is None else f"{speed:.1f}")

        yield advance


def run(args: argparse.Namespace, sweep: Sweep[Any], *, ordered: bool = False,
        observe: Callable[[dict[str, Any]], None] | None = None) -> int:
    """Run ``sweep`` as the options of :func:`add_sweep_options` say.

    ``observe`` also sees every row (after it is written).  The run's figures
    go to stderr when rows go to a file or stderr is a terminal (a pipe of
    rows keeps stderr quiet).
    """
    from ..sweep import (
        CsvSink,
        JsonlSink,
        Sink,
        TableSink,
        dask_executor,
        default_jobs,
        locked,
        plain_cells,
        process_pool,
        resume,
        run_sweep,
    )

    fmt: Format = ("jsonl" if args.format == "json" else args.format) or (
        "jsonl" if args.out or not sys.stdout.isatty() else "table")
    per_job = budget(args, each=True)  # a budget per job, each on its own clock
    skip: frozenset[str] = frozenset()
    with contextlib.ExitStack() as stack:
        if args.out:
            if fmt == "table":  # checked before the file is created
                raise InputError("--out takes jsonl or csv; the table format is for the terminal")
            stream = stack.enter_context(locked(args.out))  # first: resume may cut the file
            found = resume(args.out, fmt, sweep.columns)
            skip = found.done
            if found.torn_bytes:
                print(f"note: cut off a torn last line of {args.out} ({found.torn_bytes} "
                      f"bytes); its job runs again", file=sys.stderr)
        else:
            stream = None
        sink: Sink
        if fmt == "csv":
            sink = CsvSink(sweep.columns, stream, header=not (args.out and found.header),
                           cells=sweep.csv)
        elif fmt == "table":
            sink = TableSink(sweep.brief or plain_cells(sweep.columns), stream=stream)
        else:
            sink = JsonlSink(stream)
        try:  # a first pass over the jobs, for the progress total, the pool and the batches
            todo = sum(1 for job in sweep.jobs if sweep.key(job) not in skip)
        except KeyboardInterrupt:
            raise Interrupted(f"sweep {sweep.name} interrupted while counting its jobs, "
                              "before any row was written") from None
        executor: Executor | None = None
        restart: Callable[[], Executor] | None = None
        width = 1
        if args.scheduler:
            if args.jobs and args.scheduler != "local":
                raise InputError("--jobs counts local processes; a Dask cluster at "
                                 f"{args.scheduler} has the workers it was started with")
            executor, width = stack.enter_context(dask_executor(
                args.scheduler, workers=args.jobs, timeout=args.connect_timeout))
        else:
            jobs = args.jobs or default_jobs()
            if jobs > 1 and todo > 1:
                jobs = min(jobs, todo)
                executor = stack.enter_context(process_pool(jobs))
                restart = functools.partial(process_pool, jobs)
                width = jobs
        # enough tasks per worker to balance the load, few enough to share the per-task cost
        batch = args.batch or max(1, min(64, todo // (width * 16)))
        with _progress(todo, sweep.name, enabled=True) as advance:

            def on_row(row: dict[str, Any]) -> None:
                sink.write(stamped(row) if fmt == "jsonl" else row)  # JSON names its schema
                if observe is not None:
                    observe(row)
                if advance is not None:
                    advance()

            stats = run_sweep(sweep, on_row, executor=executor, restart=restart,
                              budget=per_job, skip=skip, batch=batch, window=4 * width,
                              ordered=ordered)
    if args.out or sys.stderr.isatty():
        where = f"Dask at {args.scheduler}" if args.scheduler else f"{width} local process(es)"
        print(f"sweep {sweep.name}: {stats} on {where}", file=sys.stderr)
    return ExitCode.OK


def _summary_text(summary: Summary) -> str:
    """The summary's tables as aligned plain text, numbers right-justified."""
    from ..render import text_table

    parts = [f"{summary.kind}: " + ", ".join(f"{n} {s}" for s, n in summary.status.items())
             + "\n"]
    for name, table in summary.tables.items():
        cells = [[("" if c is None else str(c)) for c in r] for r in table]
        numeric = [all(isinstance(r[i], int) or r[i] is None for r in table[1:])
                   for i in range(len(table[0]))]
        parts.append(f"\n{name}\n" + text_table(cells, right=numeric))
    return "".join(parts)


def _cmd_summarize(args: argparse.Namespace) -> int:
    from ..summarize import load_rows, plot, summarize

    if args.plot and not args.plot.lower().endswith((".png", ".svg")):
        raise InputError(f"--plot writes .png or .svg files, not {args.plot!r}")
    rows = load_rows(args.file)
    try:
        summary = summarize(rows, top=args.top)
    except InputError as e:
        raise e.located(args.file) from None
    if args.json:
        emit(summary.to_json())
    else:
        sys.stdout.write(_summary_text(summary))
    if args.plot:
        plot(rows, args.plot)
        print(f"wrote {args.plot}", file=sys.stderr)
    return ExitCode.OK
