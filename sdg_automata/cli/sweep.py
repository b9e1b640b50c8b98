"""``sweep grammars|summarize``: sweeps on local processes or Dask, streamed and resumable.

:func:`add_sweep_options` and :func:`run` are shared with ``imark survey``,
which runs on the same engine (:mod:`sdg_automata.sweeps.runner`).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import InputError, Interrupted, ResourceError
from .arguments import duration, positive
from .budgets import add_budget, budget
from .exits import NO_ROOM, ExitCode
from .jsonout import emit, stamped
from .parser import Commands, Parser
from .writing import check_plot, write_plot

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from ..sweeps.runner import Sweep, SweepStats
    from ..sweeps.sinks import Format
    from ..sweeps.summarize import Summary

__all__ = ["EXAMPLES", "add_sweep_options", "register", "run"]

#: example command lines of this group's commands (``--help`` ends with them; a test runs them)
EXAMPLES = {
    "sweep": ("sdg-automata sweep grammars --nonterminals 1 --letters ab --max-rules 3 "
              "--max-body 2 --count-only",),
    "sweep grammars": ("sdg-automata sweep grammars --nonterminals 1 --letters ab --max-rules 3 "
                       "--max-body 2 --jobs 1 --out g.jsonl",),
    "sweep summarize": ("sdg-automata sweep grammars --nonterminals 1 --letters ab --max-rules 3 "
                        "--max-body 2 --jobs 1 --out g.jsonl && sdg-automata sweep summarize "
                        "g.jsonl",),
}

DESCRIPTION = """\
Run many independent jobs, one row each.  Rows are written as soon as each job
is done: JSON Lines (the default with --out or when stdout is not a terminal),
CSV, or an aligned table on a terminal, with a progress bar (done / total,
rate, ETA) on stderr when it is a terminal.

--out FILE (a regular file) appends; rerunning the same command with the same
--out skips the jobs whose key is already in FILE, so a sweep killed at any
moment (SIGKILL included) loses at most the rows in flight.  A torn last line
(one without its newline) is cut off; any other line that is not a row of the
sweep is refused.  A job that fails is a row with "status": "error"; a job over
its per-job budget (--max-states, --max-seconds) is a row with "status":
"budget".  Those rows are results: a rerun skips them, unless --retry-errors
(or --retry-budget) runs their jobs again; the new row is appended and, for
that key, the last row counts (here and in 'sweep summarize').

A row is only ever a job's own outcome.  A lost Dask scheduler, a cancelled
task, a cluster left without workers for --connect-timeout seconds, or a full
disk stops the sweep with one line and exit 3: nothing is written for the jobs
it lost, and rerunning the same command resumes them.  Ctrl-C (exit 130) and
SIGTERM (exit 143) stop it the same way.

Jobs run on --jobs local processes (default: the CPU count; 1 runs them in this
process), which die with the sweep, or on a Dask cluster: --scheduler
tcp://HOST:PORT of a running 'dask scheduler' (install the cluster extra,
pip install "sdg_automata[cluster]", on every machine; on SLURM or PBS, start
the cluster with dask-jobqueue and give its scheduler_address), or --scheduler
local for a LocalCluster of --jobs processes.  Every Dask worker must run the
same sdg_automata: checked before any job runs, and on every batch's result
(the rows of a worker that joins running other code are refused, and the sweep
stops saying so)."""

#: --jobs at most this many times the CPU count: more processes only compete for the
#: CPUs, and each holds its own interpreter (a huge --jobs would fork without end)
JOBS_PER_CPU = 8


#: seconds to wait for a Dask scheduler and a worker unless --connect-timeout says otherwise
CONNECT_TIMEOUT = 20.0


def add_sweep_options(p: argparse.ArgumentParser, *, states: bool = True,
                      short_out: bool = False) -> None:
    """--out, --format, --jobs, --scheduler, --batch and the per-job budget
    (``--max-states`` only when ``states``; ``-o`` beside ``--out`` when ``short_out``)."""
    from ..sweeps.sinks import FORMATS

    p.add_argument(*(("-o", "--out") if short_out else ("--out",)), metavar="FILE",
                   help="append rows to FILE, skipping jobs already in it (resumable)")
    p.add_argument("--format", choices=(*FORMATS, "json"), default=None,
                   help="jsonl (default with --out or a pipe; 'json' is the same), csv, or "
                        "table (a terminal)")
    p.add_argument("--jobs", type=positive, default=None, metavar="J",
                   help="local worker processes (default: the CPU count; 1: this process); "
                        "with --scheduler local, the LocalCluster's workers")
    p.add_argument("--scheduler", metavar="ADDR",
                   help="a Dask scheduler tcp://HOST:PORT, or 'local' for a LocalCluster")
    p.add_argument("--connect-timeout", type=duration, default=CONNECT_TIMEOUT, metavar="S",
                   help="seconds to wait for the Dask scheduler and a worker, at start and "
                        "when a running cluster has none left (default 20, at most a day)")
    p.add_argument("--batch", type=positive, default=None, metavar="B",
                   help="jobs per task (default: chosen from the jobs and workers; more than "
                        "the jobs is all of them)")
    p.add_argument("--retry-errors", action="store_true",
                   help="with --out: run again the jobs whose row in FILE has status 'error'")
    p.add_argument("--retry-budget", action="store_true",
                   help="with --out: run again the jobs whose row in FILE has status 'budget' "
                        "(after raising --max-states or --max-seconds)")
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
                   help="print the number of isomorphism classes, run nothing (with --json: "
                        "an object with 'classes')")
    add_sweep_options(g)
    g.set_defaults(func=_cmd_grammars)


def _add_summarize(s: Parser) -> None:
    s.description = (
        "Read the rows of a sweep (sweep grammars, imark survey or octal survey; "
        "JSON Lines or CSV) and print what a researcher wants from them: for "
        "grammars, the distribution of the maximum per nonterminal, the largest "
        "automata, the smallest grammar reaching each Grundy value with its "
        "witness; for i-Mark, which (S, D) converge and with which c; for octal "
        "games, each code's proven preperiod and period, the codes not proven, "
        "the codes by period.  --plot draws a histogram (grammars), a heat map "
        "(i-Mark) or periods against preperiods (octal) through matplotlib (the "
        "plot extra), written atomically, never over FILE.")
    s.add_argument("file", metavar="FILE", help="rows of a sweep (JSON Lines or CSV)")
    s.add_argument("--plot", metavar="OUT", help="also draw OUT.png, OUT.svg or OUT.pdf")
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
    from ..generators.enumeration import GrammarShape, count_classes
    from ..sweeps.grammars import grammar_sweep

    shape = GrammarShape(nonterminals=args.nonterminals, letters=args.letters,
                         max_rules=args.max_rules, max_body=args.max_body,
                         unit_rules=args.unit_rules)
    if args.count_only:
        classes = count_classes(shape)
        if args.format in ("json", "jsonl"):
            emit({"classes": classes, "nonterminals": shape.nonterminals,
                  "letters": shape.letters, "max_rules": shape.max_rules,
                  "max_body": shape.max_body, "unit_rules": shape.unit_rules})
        else:
            print(classes)
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
    rows keeps stderr quiet).  Ctrl-C or SIGTERM once every row is written (while the
    workers and the file close, or the figures print) still says how many rows.
    """
    finished: list[SweepStats] = []  # the sweep's figures, once every row is written
    try:
        where = _sweep(args, sweep, ordered, observe, finished)
        if args.out or sys.stderr.isatty():
            print(f"sweep {sweep.name}: {finished[0]} on {where}", file=sys.stderr)
    except KeyboardInterrupt:
        if not finished:
            raise
        raise Interrupted(f"sweep {sweep.name} interrupted after {finished[0].rows} rows, "
                          "every job done") from None
    return ExitCode.OK


def _sweep(args: argparse.Namespace, sweep: Sweep[Any], ordered: bool,
           observe: Callable[[dict[str, Any]], None] | None, finished: list[SweepStats]
           ) -> str:
    """:func:`run`'s sweep: its figures appended to ``finished`` as soon as every row is
    written; where the jobs ran, once the workers and the file are closed."""
    from ..runtime.cluster import dask_executor, default_jobs
    from ..sweeps.pool import process_pool
    from ..sweeps.resume import locked, resume
    from ..sweeps.runner import run_sweep
    from ..sweeps.sinks import CsvSink, JsonlSink, Sink, TableSink, plain_cells

    fmt: Format = ("jsonl" if args.format == "json" else args.format) or (
        "jsonl" if args.out or not sys.stdout.isatty() else "table")
    per_job = budget(args, each=True)  # a budget per job, each on its own clock
    retry = frozenset(status for status, asked in (("error", args.retry_errors),
                                                   ("budget", args.retry_budget)) if asked)
    _check_options(args, fmt, retry)  # all before --out is created
    skip: frozenset[str] = frozenset()
    with contextlib.ExitStack() as stack:
        if args.out:
            stream = stack.enter_context(locked(args.out))  # first: resume may cut the file
            found = resume(args.out, fmt, sweep.columns, retry=retry)
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
        batch = min(args.batch, max(1, todo)) if args.batch else max(1, min(64, todo // (
            width * 16)))
        with _progress(todo, sweep.name, enabled=True) as advance:

            def on_row(row: dict[str, Any]) -> None:
                try:
                    sink.write(stamped(row) if fmt == "jsonl" else row)  # JSON names its schema
                except OSError as e:  # a full disk is a resource limit; the rest as before
                    if e.errno not in NO_ROOM:
                        raise
                    raise ResourceError(f"cannot write {args.out or 'the output'}: "
                                        f"{e.strerror or e}") from None
                if observe is not None:
                    observe(row)
                if advance is not None:
                    advance()

            finished.append(run_sweep(sweep, on_row, executor=executor, restart=restart,
                                      budget=per_job, skip=skip, batch=batch,
                                      window=4 * width, ordered=ordered))
    return f"Dask at {args.scheduler}" if args.scheduler else f"{width} local process(es)"


def _check_options(args: argparse.Namespace, fmt: Format, retry: frozenset[str]) -> None:
    """Refuse what the sweep options cannot mean together, before anything is created."""
    from ..runtime.cluster import default_jobs

    if args.out == "":
        raise InputError("--out needs a file name")
    if args.out and fmt == "table":
        raise InputError("--out takes jsonl or csv; the table format is for the terminal")
    if retry and not args.out:
        raise InputError("--retry-errors and --retry-budget rerun rows of --out FILE: give it")
    if args.scheduler and args.jobs and args.scheduler != "local":
        raise InputError("--jobs counts local processes; a Dask cluster at "
                         f"{args.scheduler} has the workers it was started with")
    most = JOBS_PER_CPU * default_jobs()
    if args.jobs and args.jobs > most:
        raise InputError(f"--jobs {args.jobs}: at most {JOBS_PER_CPU} per CPU ({most} here); "
                         f"more processes only compete for the CPUs")


def _summary_text(summary: Summary) -> str:
    """The summary's tables as aligned plain text, numbers right-justified."""
    from ..render.tables import text_table

    parts = [f"{summary.kind}: " + ", ".join(f"{n} {s}" for s, n in summary.status.items())
             + "\n"]
    for name, table in summary.tables.items():
        cells = [[("" if c is None else str(c)) for c in r] for r in table]
        numeric = [all(isinstance(r[i], int) or r[i] is None for r in table[1:])
                   for i in range(len(table[0]))]
        parts.append(f"\n{name}\n" + text_table(cells, right=numeric))
    return "".join(parts)


def _cmd_summarize(args: argparse.Namespace) -> int:
    from ..sweeps.summarize import load_rows, plot, summarize

    if args.plot:  # a wrong file type, or no matplotlib: refused before any output
        check_plot(args.plot)
    rows = load_rows(args.file)
    try:
        summary = summarize(rows, top=args.top)
    except InputError as e:
        raise e.located(args.file) from None
    if args.json:
        emit(summary.to_json())
    else:
        sys.stdout.write(_summary_text(summary))
    if args.plot:  # never over the input (or a link to it)
        write_plot(args, plot(rows))
    return ExitCode.OK
