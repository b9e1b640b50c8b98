"""A fuzz suite for the command line (issue 15): damaged files, hostile arguments.

Two generators drive every subcommand that ``python -m sdg_automata --help``
lists (found by walking the argument parser, so a new command or option is
fuzzed without editing this file):

* **files**: grammar files and game graphs mutated from the valid examples —
  byte flips, truncation, deep nesting, huge names, byte-order marks, control
  characters, invalid UTF-8, duplicate keys, ε spellings, blank and empty
  names — fed to a command that reads them;
* **arguments**: argument vectors built from each subcommand's own options,
  with values drawn from valid ones and from classes of bad ones (negative,
  huge, NaN, infinite, non-numeric, empty, missing files, directories,
  outputs over inputs).

Two more classes (issue 21): **huge option values** (windows, lengths, limits of
10¹⁰⁰ and 10¹²) must be answered, refused or stopped at once; **budgets in time**
run costly inputs in real processes with ``--max-seconds T`` and measure the
whole process's CPU against max(1.5·T, T + 1 s).

Every case must end with an exit code in {0, 1, 2, 3}, no ``Traceback`` on
either stream, ``error: ...`` as the last line of stderr when the code is 2
or 3, every input file's bytes unchanged, and within :data:`TIMEOUT` seconds.

A third part puts sweeps under fault (issue 21): the Dask scheduler or workers
killed mid-run, odd ``--out`` targets, huge option values, SIGTERM.  A lost
scheduler or worker must never leave a row (exit 3, or 0 when Dask reran the
tasks), SIGTERM exit 143 with one line; every case's file is then resumed and
must hold every key of the sweep exactly once.
The CLI runs in-process (``sdg_automata.cli.main``) for speed, with a few real
subprocess cases.  CI runs a few hundred derandomized cases in-process; ``pytest --fuzz-long``
runs more, with huge inputs (10⁵-byte names and nesting), each in its own
process under a 3 GB address-space limit, and ``-s`` prints the table of
bad-input classes tried, with the slowest refusal of each.
"""

from __future__ import annotations

import _thread
import argparse
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sdg_automata.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
GRAMMARS = sorted(p for p in EXAMPLES.iterdir() if p.suffix in (".txt", ".json"))
GRAPHS = sorted((EXAMPLES / "graphs").glob("*.json"))

#: seconds a single case may take before it counts as a hang
TIMEOUT = 20.0

CI_EXAMPLES = 100
LONG_EXAMPLES = 300


# ---------------------------------------------------------------------------
# running the command line in-process


@dataclass
class Outcome:
    """What one run of the command line did."""

    argv: list[str]
    code: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    def problems(self) -> list[str]:
        """Every broken promise of issue 15, in words (empty when the run was clean)."""
        out = []
        if self.timed_out:
            out.append(f"no answer within {TIMEOUT:.0f} s")
        elif self.code not in (0, 1, 2, 3):
            out.append(f"exit code {self.code}")
        for name, text in (("stdout", self.stdout), ("stderr", self.stderr)):
            if "Traceback" in text:
                out.append(f"a traceback on {name}")
        if self.code in (2, 3):
            lines = self.stderr.rstrip("\n").splitlines()
            if not lines or not lines[-1].startswith("error: "):
                out.append("the last line of stderr is not 'error: ...'")
            elif "out of memory" in lines[-1]:
                # exit 3 all the same, but only because the test's memory cap stopped it:
                # a size that cannot fit must be estimated and refused before the work
                out.append("ran out of memory instead of being refused up front")
        return out


def _stream(data: bytes = b"") -> io.TextIOWrapper:
    """A text stream with a ``.buffer``, like the real ones (PNG goes to the buffer)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace",
                            write_through=True)


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return raw.getvalue().decode("utf-8", errors="replace")


@contextlib.contextmanager
def _watchdog(seconds: float) -> Iterator[list[bool]]:
    """Interrupt the main thread (as Ctrl-C would) after ``seconds``; yields [fired]."""
    fired = [False]

    def fire() -> None:
        fired[0] = True
        _thread.interrupt_main()

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield fired
    finally:
        timer.cancel()


#: address space a case may add to what the test process had when the suite began
MEMORY = 3 * 2**30


def _vm_size() -> int | None:
    try:
        status = Path("/proc/self/status").read_text()
        return int(status.split("VmSize:")[1].split()[0]) * 1024
    except (OSError, IndexError, ValueError):  # not Linux
        return None


_CEILING = [(_vm_size() or 0) + MEMORY]  # fixed once: a cap relative to each case would ratchet


@contextlib.contextmanager
def _memory_limit() -> Iterator[None]:
    """Cap the address space at :data:`_CEILING`, so a runaway case ends in MemoryError
    (which the CLI reports as exit 3) instead of swapping a shared machine; the old
    limit comes back afterwards."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    old = resource.getrlimit(resource.RLIMIT_AS)
    cap = _CEILING[0]
    if old[1] != resource.RLIM_INFINITY:
        cap = min(cap, old[1])
    resource.setrlimit(resource.RLIMIT_AS, (cap, old[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, old)


def _limit_child() -> None:  # pragma: no cover - runs in the child
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def run_process(argv: list[str], extra: dict[str, str] | None = None) -> Outcome:
    """Run ``python -m sdg_automata argv`` in a fresh process under a 3 GB address-space
    limit and :data:`TIMEOUT`: what ``--fuzz-long`` does with its huge inputs, so no
    case can take the test runner's memory with it.  ``extra``: more of the environment
    (its PYTHONPATH before the repository's)."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", ""),
           "PYTHONPATH": str(ROOT)}
    if extra:
        env.update({k: v for k, v in extra.items() if k != "PYTHONPATH"})
        if "PYTHONPATH" in extra:
            env["PYTHONPATH"] = os.pathsep.join([extra["PYTHONPATH"].split(os.pathsep)[0],
                                                 str(ROOT)])
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "sdg_automata", *argv], capture_output=True,
                              timeout=TIMEOUT, env=env, stdin=subprocess.DEVNULL,
                              preexec_fn=_limit_child if os.name == "posix" else None)
    except subprocess.TimeoutExpired as e:
        def text(b: bytes | str | None) -> str:
            return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")

        return Outcome(argv, 130, text(e.stdout), text(e.stderr), time.perf_counter() - start,
                       timed_out=True)
    return Outcome(argv, proc.returncode, proc.stdout.decode(errors="replace"),
                   proc.stderr.decode(errors="replace"), time.perf_counter() - start)


def run_cli(argv: list[str], stdin: bytes = b"") -> Outcome:
    """Run ``main(argv)`` with its own standard streams; never raises."""
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = _stream(stdin), _stream(), _stream()
    out, err = sys.stdout, sys.stderr
    start = time.perf_counter()
    code: int
    try:
        with _memory_limit(), _watchdog(TIMEOUT) as fired:
            try:
                code = main(argv)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except KeyboardInterrupt:
                code = 130
            except BaseException as e:  # noqa: BLE001 -- an escape is the finding itself
                import traceback

                traceback.print_exception(e, file=sys.stderr)
                code = -1
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    seconds = time.perf_counter() - start
    return Outcome(argv, code, _text(out), _text(err), seconds, fired[0])


# ---------------------------------------------------------------------------
# the statistics behind the table of the closing note


@dataclass
class Tally:
    """Cases tried and clean per bad-input class, and the slowest refused case."""

    tried: dict[str, int] = field(default_factory=dict)
    clean: dict[str, int] = field(default_factory=dict)
    slowest: dict[str, tuple[float, str]] = field(default_factory=dict)

    def add(self, kind: str, outcome: Outcome, more: list[str] | None = None) -> None:
        """Count ``outcome``; ``more`` are broken promises found beyond its own."""
        self.tried[kind] = self.tried.get(kind, 0) + 1
        if not outcome.problems() and not more:
            self.clean[kind] = self.clean.get(kind, 0) + 1
        if outcome.code in (2, 3) and outcome.seconds > self.slowest.get(kind, (-1.0, ""))[0]:
            self.slowest[kind] = (outcome.seconds, " ".join(outcome.argv)[:100])

    def table(self) -> str:
        rows = [f"{'class':<34} {'tried':>6} {'clean':>6} {'slowest refusal':>16}  case"]
        for kind in sorted(self.tried):
            secs, case = self.slowest.get(kind, (0.0, ""))
            rows.append(f"{kind:<34} {self.tried[kind]:>6} {self.clean.get(kind, 0):>6} "
                        f"{secs:>15.3f}s  {case}")
        return "\n".join(rows)


TALLY = Tally()
#: the first case of each known finding that broke a promise (printed with -s)
FINDINGS: dict[str, str] = {}


@pytest.fixture(scope="module", autouse=True)
def _print_tally(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if TALLY.tried:
        print("\n" + TALLY.table())
    for name, case in FINDINGS.items():
        print(f"\nknown finding: {name}\n{case}")


def _long(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--fuzz-long"))


def _examples(request: pytest.FixtureRequest) -> int:
    return LONG_EXAMPLES if _long(request) else CI_EXAMPLES


def _big(request: pytest.FixtureRequest) -> int:
    return 100_000 if _long(request) else 3_000


# ---------------------------------------------------------------------------
# damaged files


def inserts(big: int) -> dict[str, list[bytes]]:
    """Chunks a mutation inserts, by bad-input class; ``big`` sizes the huge ones.

    CI keeps ``big`` at a few thousand: a run of letters that long is already a
    name no one types, and a rule body of n letters costs the Step 1–5
    construction O(n²) memory (reported in issue 15's closing note), which at
    10⁵ letters is gigabytes.  ``--fuzz-long`` uses 10⁵ under a memory limit.
    """
    return {
        "deep nesting": [b"[" * 40, b"[" * big, b"{\"a\": " * (big // 8), b"[1," * (big // 4)],
        "huge name": [b"A" * big, b" " + b"N" * big + b" ", b"a" * (big // 2)],
        "byte-order mark": [b"\xef\xbb\xbf"],
        "control character": [bytes([c]) for c in (0, 1, 7, 8, 11, 12, 27, 31, 127)]
                             + ["\u0085".encode(), "\u200b".encode(), "\u2028".encode()],
        "invalid UTF-8": [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xfe\xff"],
        "ε spelling": [b" $ ", " Є ".encode(), " ε ".encode(), b" epsilon ", b'""', b" | "],
        "blank or empty name": [b'"": ["a"], ', b'"  ": ["a"], ', b'"A B": ["a"], ',
                                b"\n -> a\n", b'"A->B": ["a"], ', b"\n\t-> b\n"],
        "grammar syntax": [b"->", b"|", b"\n|", b"#", b":", b"start: ", b"terminals: ", b"\n",
                           b"\r", b"\r\n", b'"', b"}", b",", b"\\", b"9" * 5000],
    }


@dataclass(frozen=True)
class FileCase:
    """A damaged input file: how it was made, and its bytes."""

    kind: str
    seed: str
    suffix: str
    data: bytes

    def __repr__(self) -> str:  # hypothesis prints falsifying examples: keep them short
        return (f"FileCase({self.kind!r}, {self.seed!r}, {self.suffix!r}, {len(self.data)} "
                f"bytes: {self.data[:80]!r}…{self.data[-40:]!r})")


@st.composite
def damaged_files(draw: st.DrawFn, seeds: list[Path], big: int) -> FileCase:
    seed = draw(st.sampled_from(seeds))
    data = bytearray(seed.read_bytes())
    chunks = inserts(big)
    kind = draw(st.sampled_from([*chunks, "byte flip", "truncation", "duplicate line"]))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        if kind in chunks:
            data[at:at] = draw(st.sampled_from(chunks[kind]))
        elif kind == "byte flip":
            if data:
                at = min(at, len(data) - 1)
                data[at] ^= draw(st.integers(1, 255))
        elif kind == "truncation":
            del data[at:]
        else:
            lines = bytes(data).splitlines(keepends=True)
            if lines:
                k = draw(st.integers(0, len(lines) - 1))
                lines.insert(k, lines[k])
                data = bytearray(b"".join(lines))
    suffix = draw(st.sampled_from([seed.suffix, seed.suffix, ".txt" if seed.suffix == ".json"
                                   else ".json"]))
    return FileCase(kind, seed.name, suffix, bytes(data))


#: commands that read a grammar, with arguments that make them cheap on the examples
GRAMMAR_COMMANDS: list[list[str]] = [
    ["check"], ["check", "--json"], ["grundy", "{g}", "A", "aab", "ba"],
    ["grundy", "{g}", "S", "ab"], ["grundy", "{g}", "A", "abab", "--method", "cyk"],
    ["max", "{g}", "A", "--max-states", "2000"], ["dfa", "{g}", "A", "0"],
    ["dfa", "{g}", "A", "1", "--format", "json"], ["spectrum", "{g}", "--max-states", "2000"],
    ["regex", "{g}", "A", "0"], ["count", "{g}", "A", "0", "--length", "5"],
    ["moves", "{g}", "A:aab"], ["period", "{g}", "A"], ["game-graph", "{g}", "--max-length", "2"],
]


def _argv(template: list[str], path: str) -> list[str]:
    if "{g}" in template:
        return [a.replace("{g}", path) for a in template]
    return [*template, path]


def _check_file_case(tmp: Path, case: FileCase, template: list[str], kind: str,
                     long: bool = False) -> Outcome:
    path = tmp / f"input{case.suffix}"
    path.write_bytes(case.data)
    argv = _argv(template, str(path))
    outcome = run_process(argv) if long else run_cli(argv)
    TALLY.add(kind, outcome)
    problems = outcome.problems()
    if path.read_bytes() != case.data:
        problems.append("the input file changed")
    assert not problems, _report(outcome, problems, case)
    return outcome


def _report(outcome: Outcome, problems: list[str], case: FileCase | None = None) -> str:
    made = f"\ninput: {case.kind} of {case.seed} as {case.suffix}, {len(case.data)} bytes, " \
           f"starting {case.data[:120]!r}" if case else ""
    return (f"{'; '.join(problems)}\ncommand: {' '.join(outcome.argv)[:300]}{made}\n"
            f"exit {outcome.code} after {outcome.seconds:.2f} s\n"
            f"stdout: {outcome.stdout[-500:]!r}\nstderr: {outcome.stderr[-1500:]!r}")


def test_damaged_grammar_files(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    @settings(max_examples=_examples(request), suppress_health_check=list(HealthCheck))
    @given(case=damaged_files(GRAMMARS, _big(request)), template=st.sampled_from(GRAMMAR_COMMANDS))
    def run(case: FileCase, template: list[str]) -> None:
        _check_file_case(tmp_path, case, template, f"grammar: {case.kind}", _long(request))

    run()


def test_damaged_game_graphs(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    @settings(max_examples=max(30, _examples(request) // 5),
              suppress_health_check=list(HealthCheck))
    @given(case=damaged_files(GRAPHS, _big(request)),
           template=st.sampled_from([["graph", "{g}"], ["graph", "{g}", "--misere"],
                                     ["graph", "{g}", "--json"], ["graph", "{g}", "--sum", "3"]]))
    def run(case: FileCase, template: list[str]) -> None:
        _check_file_case(tmp_path, case, template, f"game graph: {case.kind}", _long(request))

    run()


# ---------------------------------------------------------------------------
# hostile argument vectors, for every subcommand


def _commands() -> dict[tuple[str, ...], argparse.ArgumentParser]:
    """Every (sub)command path and its parser, from the CLI's own parser."""
    out: dict[tuple[str, ...], argparse.ArgumentParser] = {}

    def walk(path: tuple[str, ...], parser: argparse.ArgumentParser) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs and path:
            out[path] = parser
        for action in subs:
            for name, child in action.choices.items():
                walk((*path, name), child)

    walk((), build_parser())
    return out


COMMANDS = _commands()

NUMBERS = {
    "valid number": ["0", "1", "2", "3", "5", "10", "64"],
    "negative number": ["-1", "-5", "-0"],
    "huge number": ["99999999999999999999", "1000000000", "10**9", "1e9", "9" * 400],
    "non-finite number": ["nan", "inf", "-inf", "NaN", "1e400"],
    "not a number": ["", "abc", "1.5", "0x10", "1,2", "Ⅻ", "٣"],
}

WORDS = ["a", "b", "aab", "abab", "ba", "c", "", "A", "a b", "ε", "$", "aaaaaaaaaaaaaaaaaaaa",
         "A:aab", "B:ba", "A:", ":a", "Z:a", "A:aab:b", "ab" * 40]
NAMES = ["A", "B", "S", "Z", "a", "", "A B", "ε", "-", "AA" * 50]
SPECS = ["2:1", "3:0", "5:4", "2", "2:2", "0:1", "x:y", "1:0", "2:-1", "7:3", "", "99999999:1"]
SETS = ["1,2,3", "{1,2}", "2", "1..3", "3,4", "", "0", "-1", "1,,2", "100000", "1 2"]


@dataclass(frozen=True)
class Files:
    """The files an argument vector may name, made once per test."""

    grammars: list[str]
    graphs: list[str]
    words: list[str]
    dfas: list[str]
    outputs: list[str]
    bad: list[str]

    @property
    def inputs(self) -> list[str]:
        return [*self.grammars, *self.graphs, *self.words, *self.dfas]


def _make_files(tmp: Path) -> Files:
    # copies: a case may legitimately write its -o over an example that is not one of its
    # own inputs, and the repository's files must never change
    (tmp / "ex").mkdir(exist_ok=True)
    grammars = []
    for p in GRAMMARS:
        (tmp / "ex" / p.name).write_bytes(p.read_bytes())
        grammars.append(str(tmp / "ex" / p.name))
    graphs = []
    for p in GRAPHS:
        (tmp / "ex" / f"graph-{p.name}").write_bytes(p.read_bytes())
        graphs.append(str(tmp / "ex" / f"graph-{p.name}"))
    (tmp / "bom.txt").write_bytes(b"\xef\xbb\xbfA -> a A | a a A | B | a | a a\nB -> b A | b\n")
    (tmp / "words.txt").write_text("aab\n\nba\n  \nc\nabab\n", encoding="utf-8")
    (tmp / "words_bom.txt").write_bytes(b"\xef\xbb\xbfaab\r\nba\r\n")
    (tmp / "words_bad.txt").write_bytes(b"a\x00b\n\xff\n" + b"a" * 100_000 + b"\n")
    (tmp / "dfa.json").write_text(
        '{"states": ["0", "1"], "input_symbols": ["a", "b"], "initial_state": "0", '
        '"final_states": ["1"], "transitions": {"0": {"a": "1", "b": "0"}, '
        '"1": {"a": "1", "b": "0"}}}', encoding="utf-8")
    (tmp / "dfa_bad.json").write_text('{"states": [], "transitions": {"0": 1}}',
                                      encoding="utf-8")
    (tmp / "empty.txt").write_bytes(b"")
    (tmp / "dir").mkdir(exist_ok=True)
    return Files(
        grammars=[*grammars, str(tmp / "bom.txt")],
        graphs=graphs,
        words=[str(tmp / n) for n in ("words.txt", "words_bom.txt", "words_bad.txt")],
        dfas=[str(tmp / "dfa.json"), str(tmp / "dfa_bad.json")],
        outputs=[str(tmp / "out.txt"), str(tmp / "out.json"), str(tmp / "no" / "such" / "x"),
                 str(tmp / "dir")],
        bad=[str(tmp / "missing.txt"), str(tmp / "dir"), str(tmp / "empty.txt"), "-", ""],
    )


@dataclass(frozen=True)
class ArgCase:
    """An argument vector and the bad-input classes its values were drawn from."""

    argv: list[str]
    kinds: tuple[str, ...]


@st.composite
def argument_vectors(draw: st.DrawFn, files: Files) -> ArgCase:
    path = draw(st.sampled_from(sorted(COMMANDS)))
    parser = COMMANDS[path]
    kinds: list[str] = []

    def value(action: argparse.Action) -> str:
        dest = action.dest
        if action.choices is not None:
            if draw(st.integers(0, 9)) == 0:
                kinds.append("bad choice")
                return draw(st.sampled_from(["bogus", "", "TEXT"]))
            return str(draw(st.sampled_from(list(action.choices))))
        if dest in ("grammar", "graph", "within", "words_from", "output"):
            if draw(st.integers(0, 5)) == 0:
                kinds.append("bad path")
                pool = files.bad + (files.inputs if dest == "output" else [])
                return draw(st.sampled_from(pool))
            pools = {"grammar": files.grammars, "graph": files.graphs, "words_from": files.words,
                     "within": [*files.dfas, "a*", "(a|b)*b", "(a", "", "a**", "[ab]"],
                     "output": files.outputs}
            return draw(st.sampled_from(pools[dest]))
        if dest in ("nonterminal", "nonterminals"):
            return draw(st.sampled_from(NAMES))
        if dest in ("words", "position", "sum"):
            return draw(st.sampled_from(WORDS if dest != "sum" else ["0", "1", "2", "3", "x"]))
        if dest == "specs":
            return draw(st.sampled_from(SPECS))
        if dest in ("S", "D", "subtraction"):
            return draw(st.sampled_from(SETS))
        kind = draw(st.sampled_from(list(NUMBERS)))
        # mostly valid numbers: the bad ones are refused at once, the valid ones run
        if draw(st.integers(0, 2)) != 0:
            kind = "valid number"
        kinds.append(kind)
        return draw(st.sampled_from(NUMBERS[kind]))

    argv = list(path)
    optionals = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if not action.option_strings:
            if action.nargs == "?" and draw(st.booleans()):
                continue
            n = {"*": draw(st.integers(0, 2)), "+": draw(st.integers(1, 2))}.get(
                str(action.nargs), 1)
            argv += [value(action) for _ in range(n)]
        elif draw(st.integers(0, 3)) == 0:
            optionals.append(action)
    for action in optionals:
        argv.append(draw(st.sampled_from(action.option_strings)))
        if action.nargs != 0:
            n = {"+": draw(st.integers(1, 2))}.get(str(action.nargs), 1)
            argv += [value(action) for _ in range(n)]
    mess = draw(st.integers(0, 11))
    if mess == 0 and len(argv) > len(path):
        kinds.append("missing argument")
        del argv[draw(st.integers(len(path), len(argv) - 1))]
    elif mess == 1:
        kinds.append("unknown option")
        argv.insert(draw(st.integers(len(path), len(argv))), draw(st.sampled_from(
            ["--bogus", "-x", "--max-state", "--", "-", "--json=1"])))
    if any("--jobs" in a.option_strings for a in parser._actions):
        # worker processes would be forks of the test runner, which the per-case
        # watchdog cannot stop; one job runs the same code in this process
        argv = [a for a in argv if a not in ("--scheduler",)] + ["--jobs", "1"]
    return ArgCase(argv, tuple(kinds) or ("valid arguments",))


#: Open findings in other owners' areas (issue 15), each a predicate on the argument
#: vector.  CI does not generate them (it must stay green while they are open);
#: ``--fuzz-long`` runs them and counts them as not clean without failing.  Remove an
#: entry when its fix lands: the long run then holds it to the same promises.
KNOWN: dict[str, Callable[[list[str]], bool]] = {
    # `imark survey --max-d 64 --jobs 1` and `--max-c 100000`: no answer and no refusal
    # within 30 s (2^64 sets D are not refused up front; --max-s 64 and a huge --upto are)
    "imark survey: --max-d/--max-d-size/--max-c sizes not refused up front (imark owner)":
        lambda a: a[:2] == ["imark", "survey"] and any(
            _big_number(v) for k, v in zip(a, a[1:], strict=False)
            if k in ("--max-d", "--max-d-size", "--max-c")),
}


def _big_number(text: str) -> bool:
    try:
        return int(text) > 12
    except ValueError:
        return text.strip().startswith("10**") or text in ("1e9",)


def _known(argv: list[str]) -> str | None:
    return next((name for name, hit in KNOWN.items() if hit(argv)), None)


def _snapshot(paths: list[str]) -> dict[str, bytes]:
    return {p: Path(p).read_bytes() for p in paths if Path(p).is_file()}


def test_hostile_arguments(request: pytest.FixtureRequest, tmp_path: Path,
                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    long = _long(request)
    files = _make_files(tmp_path)
    before = _snapshot(files.inputs)

    @settings(max_examples=2 * _examples(request), suppress_health_check=list(HealthCheck))
    @given(case=argument_vectors(files))
    def run(case: ArgCase) -> None:
        known = _known(case.argv)
        assume(known is None or long)
        outcome = run_process(case.argv) if long else run_cli(case.argv)
        for kind in dict.fromkeys(case.kinds):
            TALLY.add(f"{case.argv[0]}: {kind}", outcome)
        problems = outcome.problems()
        # the files this command reads must be unchanged; an -o may name another command's
        # input (no damage: they are copies), and every file is put back for the next case
        argv = case.argv
        inputs = {a for i, a in enumerate(argv)  # named other than as the output
                  if a in before and not (i and argv[i - 1] in ("-o", "--output", "--out"))}
        for p, data in before.items():
            now = Path(p).read_bytes() if Path(p).is_file() else None
            if now != data:
                if p in inputs:
                    problems.append(f"input file changed: {p}")
                with contextlib.suppress(OSError):
                    Path(p).write_bytes(data)
        if known and problems:
            FINDINGS.setdefault(known, _report(outcome, problems))
            return
        assert not problems, _report(outcome, problems)

    run()


def test_every_subcommand_is_fuzzed() -> None:
    # the argument fuzzer walks the parser: no subcommand can be forgotten
    listed = {name for name in build_parser()._subparsers._group_actions[0].choices}  # type: ignore[union-attr]
    assert {path[0] for path in COMMANDS} == listed
    assert ("imark", "value") in COMMANDS and ("family", "subtraction") in COMMANDS


# ---------------------------------------------------------------------------
# a few real processes: what in-process runs cannot show (the interpreter's own
# exit path, real standard streams)


@pytest.mark.parametrize(
    ("name", "data", "argv"),
    [
        ("deep.json", b'{"rules": {"A": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}",
         ["check"]),
        ("deep_graph.json", b'{"positions": {"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}",
         ["graph"]),
        ("empty_name.json", b'{"rules": {"": ["a"]}}', ["check"]),
        ("nul.txt", b"A -> a\x00 | a A\n", ["grundy", "{g}", "A", "aa"]),
        ("chain.txt", b"".join(b"A%d -> A%d\n" % (i, i + 1) for i in range(3000))
         + b"A3000 -> a\n", ["grundy", "{g}", "A0", "a", "--method", "naive"]),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_real_processes(tmp_path: Path, name: str, data: bytes, argv: list[str]) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    full = _argv(argv, str(path))
    outcome = run_process(full)
    problems = outcome.problems()
    if path.read_bytes() != data:
        problems.append("the input file changed")
    assert not problems, _report(outcome, problems)
    assert outcome.code in (0, 2), _report(outcome, ["unexpected exit code"])
    if name == "chain.txt":
        assert outcome.stdout == "1\n"
    else:
        assert outcome.code == 2 and outcome.stderr.count("\n") == 1


# ---------------------------------------------------------------------------
# sweeps under fault (issue 21 §1-6): real processes, some with a real Dask cluster

#: the sweeps a fault case runs, and how many rows each has (all ok without a budget)
SWEEPS: dict[str, tuple[list[str], int]] = {
    "grammars": (["sweep", "grammars", "--nonterminals", "1", "--letters", "ab", "--max-rules",
                  "3", "--max-body", "3"], 1610),
    "octal": (["octal", "survey", "--digits", "2", "--upto", "3000"], 63),
    "imark": (["imark", "survey", "--max-s", "2", "--max-d", "5", "--upto", "200"], 30),
}


def _fault_cases(request: pytest.FixtureRequest, ci: int, long: int) -> list[int]:
    return list(range(long if _long(request) else ci))


def _sweep_problems(out: Path, err: str, code: int, expected: int, whole: int) -> list[str]:
    """What a stopped sweep broke: the code, one line counting the rows, no foreign row."""
    from sweeprun import rows_in

    problems = []
    if code != expected:
        problems.append(f"exit {code}, not {expected}")
    if expected and (err.count("\n") != 1 or not err.startswith("error: ")):
        problems.append("stderr is not one error line")
    rows = rows_in(out) if out.exists() else []
    if any(r["status"] == "error" for r in rows):
        problems.append("an error row (a lost task written as a row)")
    if expected in (3, 143) and f"after {len(rows)} rows" not in err:
        problems.append(f"the line does not count the {len(rows)} rows of the file")
    if len({r["key"] for r in rows}) != len(rows) or len(rows) > whole:
        problems.append("duplicate rows")
    return problems


def _resumed(name: str, out: Path) -> list[str]:
    """Rerun the sweep locally on ``out``: every key once, none an error."""
    from sweeprun import cli, rows_in

    argv, whole = SWEEPS[name]
    done = cli(*argv, "--jobs", "2", "--out", str(out))
    rows = rows_in(out)
    if done.returncode != 0 or len(rows) != whole or len({r["key"] for r in rows}) != whole:
        return [f"the resume gave exit {done.returncode} and {len(rows)} rows, not {whole}"]
    return []


def _fault_outcome(argv: list[str], code: int, err: str, seconds: float) -> Outcome:
    return Outcome(argv, 0 if code in (3, 143) else code, "", err, seconds)


@pytest.mark.parametrize("fault", ["scheduler kill", "worker kill"])
def test_sweeps_survive_their_cluster(request: pytest.FixtureRequest, tmp_path: Path,
                                      fault: str) -> None:
    """Kill the scheduler, or one or both workers, after a random number of rows."""
    pytest.importorskip("distributed")
    import random

    from cluster import dask_cluster
    from sweeprun import finish, sweep_process, wait_rows

    rng = random.Random(f"{fault}-21")
    failures = []
    for case in _fault_cases(request, 1, 6):
        name = rng.choice(list(SWEEPS))
        argv, whole = SWEEPS[name]
        out = tmp_path / f"{fault.split()[0]}{case}.jsonl"
        at = rng.randrange(1, min(whole // 3, 100))
        both = fault == "worker kill" and rng.random() < 0.5
        started = time.perf_counter()
        with dask_cluster(tmp_path / f"c{case}", workers=2) as cluster:
            # small batches, so that the fault lands mid-run; larger ones for the long sweep
            batch = rng.choice([4, 8] if name == "grammars" else [1, 2])
            full = [*argv, "--scheduler", cluster.address, "--batch", str(batch),
                    "--connect-timeout", "2", "--out", str(out)]
            p = sweep_process(full)
            try:
                wait_rows(out, at, p)
                if fault == "scheduler kill":
                    cluster.scheduler.kill()
                else:
                    cluster.workers[0].kill()
                    if both:
                        cluster.workers[1].kill()
            except AssertionError:  # it ended before the fault: a clean case all the same
                pass
            code, err = finish(p)
        expected = 3 if fault == "scheduler kill" or both else 0
        if p.returncode == 0 and fault == "scheduler kill" and out.exists():
            expected = 0  # the sweep was over before the kill
        problems = _sweep_problems(out, err, code, expected, whole) + _resumed(name, out)
        TALLY.add(f"sweep: {fault}", _fault_outcome(full, code, err,
                                                    time.perf_counter() - started), problems)
        if problems:
            failures.append(f"{' '.join(full)}: {'; '.join(problems)}\n{err[-1500:]}")
    assert not failures, "\n\n".join(failures)


def test_sigterm_stops_sweeps_like_ctrl_c(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """SIGTERM to the sweep or to its group, after a random number of rows, on local pools."""
    import random

    from sweeprun import finish, group_gone, sweep_process, wait_rows

    rng = random.Random("sigterm-21")
    failures = []
    for case in _fault_cases(request, 2, 10):
        name = rng.choice(["grammars", "grammars", "imark"])
        argv, whole = SWEEPS[name]
        argv = [*argv[:-1], "4"] if name == "grammars" else argv  # 11382 rows: time to stop
        whole = 11382 if name == "grammars" else whole
        out = tmp_path / f"term{case}.jsonl"
        group = rng.random() < 0.5
        full = [*argv, "--jobs", "2", "--out", str(out)]
        started = time.perf_counter()
        p = sweep_process(full, stdout=subprocess.DEVNULL)
        try:
            wait_rows(out, rng.randrange(1, 60), p)
            (os.killpg if group else os.kill)(p.pid, signal.SIGTERM)
        except AssertionError:
            pass
        code, err = finish(p)
        problems = [] if group_gone(p.pid) else ["a worker outlived the sweep"]
        if code == -signal.SIGTERM and " skipped as already done, " in err:
            # the signal came as the finished sweep exited (its summary printed, the
            # handler gone): the shell sees 143, and the rows are whole, as 0 has them
            code = 0
        expected = 143 if code != 0 else 0
        problems += _sweep_problems(out, err, code, expected, whole)
        if code == 143 and "terminated (SIGTERM)" not in err:
            problems.append("the line does not say SIGTERM")
        TALLY.add("sweep: SIGTERM", _fault_outcome(full, code, err,
                                                   time.perf_counter() - started), problems)
        if problems:
            failures.append(f"{' '.join(full)}: {'; '.join(problems)}\n{err[-1500:]}")
    assert not failures, "\n\n".join(failures)


def _odd_targets(tmp: Path) -> dict[str, str]:
    """Names of odd --out targets, made afresh: each a path the sweep must refuse or use."""
    import socket as sockets

    (tmp / "fifo").exists() or os.mkfifo(tmp / "fifo")
    if not (tmp / "sock").exists():
        s = sockets.socket(sockets.AF_UNIX)
        s.bind(str(tmp / "sock"))
        _SOCKETS.append(s)
    (tmp / "dir").mkdir(exist_ok=True)
    for link, to in (("to-dir", tmp / "dir"), ("dangling", tmp / "absent.jsonl"),
                     ("loop", tmp / "loop"), ("to-fifo", tmp / "fifo"),
                     ("to-null", Path(os.devnull))):
        if not (tmp / link).is_symlink():
            (tmp / link).symlink_to(to)
    (tmp / "zeros.jsonl").write_bytes(b"\0" * 4096)
    (tmp / "other.jsonl").write_text('{"key": "x", "S": [1]}\n')
    (tmp / "edited.jsonl").write_text('{"key": "x", "status": "ok"}\nnot a row\n')
    (tmp / "torn.jsonl").write_text('{"key": "ab: N0 -> a", "sta')
    targets = {"/dev/full": "/dev/full", "/dev/null": os.devnull, "/dev/zero": "/dev/zero",
               "empty name": ""}
    for name in ("fifo", "sock", "dir", "to-dir", "dangling", "loop", "to-fifo", "to-null",
                 "zeros.jsonl", "other.jsonl", "edited.jsonl", "torn.jsonl"):
        targets[name] = str(tmp / name)
    targets["missing folder"] = str(tmp / "no" / "such" / "rows.jsonl")
    targets["new file"] = str(tmp / "new.jsonl")
    return targets


_SOCKETS: list[Any] = []


def _close_sockets() -> None:
    """Close the sockets bound for the targets (their files stay as the targets)."""
    while _SOCKETS:
        _SOCKETS.pop().close()


def test_odd_out_targets(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Every odd --out target: refused at once (no file left behind, nothing changed) or
    written as a sweep file; never a hang, a traceback or a read of a device."""
    import random

    request.addfinalizer(_close_sockets)

    rng = random.Random("out-21")
    targets = _odd_targets(tmp_path)
    cases = list(targets) * (3 if _long(request) else 1)
    failures = []
    small = ["--nonterminals", "1", "--letters", "ab", "--max-rules", "2", "--max-body", "1"]
    for target in cases:
        path = _odd_targets(tmp_path)[target]  # made afresh: a case may have used it
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()
                  and not p.is_symlink() and p.stat().st_size < 10**6 and not
                  p.name.startswith("new")}
        command = rng.choice([["sweep", "grammars", *small],
                              ["octal", "survey", "--digits", "1", "--upto", "500"]])
        fmt = rng.choice([[], ["--format", "csv"]])
        argv = [*command, *fmt, "--jobs", "1", "--out", path]
        outcome = run_cli(argv)
        problems = outcome.problems()
        # a new file, or one whose torn JSON row is cut off, is written; all else refused
        writable = target in ("new file", "dangling") or (target == "torn.jsonl" and not fmt)
        if writable and outcome.code != 0:
            problems.append(f"a writable file was refused: {outcome.stderr[-300:]}")
        if not writable and outcome.code != 2:
            problems.append(f"exit {outcome.code}: not refused")
        for name, data in before.items():
            if (tmp_path / name).read_bytes() != data and name != "torn.jsonl":
                problems.append(f"{name} changed")
        if outcome.code == 2 and (tmp_path / "absent.jsonl").exists():
            problems.append("a refused start left a file behind")
        TALLY.add("sweep: odd --out target", outcome, problems)
        if problems:
            failures.append(_report(outcome, problems))
        for leftover in ("new.jsonl", "absent.jsonl"):
            with contextlib.suppress(FileNotFoundError):
                (tmp_path / leftover).unlink()
    assert not failures, "\n\n".join(failures)


HUGE = ["10^100", "9" * 400, "2^63", "2^64", "1e300", "99999999999999999999"]


def test_huge_sweep_option_values(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """Huge values for every number option of the sweeps, on the default local pool (a
    real process: its workers are forks): they run as unbounded or are refused in a line."""
    import random

    rng = random.Random("huge-21")
    options = {"grammars": ["--batch", "--max-states", "--max-seconds", "--jobs"],
               # octal survey --upto 10^100: a code never proven runs without end; issue 21
               # §10 (the octal owner's) gives long octal runs their default budget
               "octal": ["--batch", "--max-states", "--max-seconds", "--jobs"],
               "summarize": ["--top"]}
    rows = tmp_path / "rows.jsonl"
    assert main(["sweep", "grammars", "--nonterminals", "1", "--letters", "ab", "--max-rules",
                 "2", "--max-body", "1", "--jobs", "1", "--out", str(rows)]) == 0
    failures = []
    for _ in range(40 if _long(request) else 8):
        name = rng.choice(list(options))
        option = rng.choice(options[name])
        value = rng.choice(HUGE)
        argv = {"grammars": ["sweep", "grammars", "--nonterminals", "2", "--letters", "ab",
                             "--max-rules", "2", "--max-body", "1"],
                "octal": ["octal", "survey", "--digits", "1", "--upto", "500"],
                "summarize": ["sweep", "summarize", str(rows)]}[name] + [option, value]
        if rng.random() < 0.3 and name != "summarize":
            argv += ["--scheduler", "local", "--connect-timeout", rng.choice(HUGE)]
        outcome = run_process(argv)
        problems = outcome.problems()
        if outcome.code == 0 and name != "summarize":
            got = [json.loads(line) for line in outcome.stdout.splitlines()]
            if any(r["status"] == "error" for r in got):
                problems.append("error rows: the value broke the jobs")
        TALLY.add("sweep: huge option value", outcome, problems)
        if problems:
            failures.append(_report(outcome, problems))
    assert not failures, "\n\n".join(failures)
# huge option values and budgets in time (issue 21 §9–10, §13): a limit is exit 3, a
# size that cannot fit is refused at once, and --max-seconds T holds in CPU time


def _modular(tmp: Path, name: str, specs: list[str]) -> str:
    path = tmp / name
    if not path.exists():
        code = main(["family", "modular", *specs, "-o", str(path)])
        assert code == 0
    return str(path)


#: commands given absurd sizes: each must answer, refuse or stop at once, cleanly
HUGE_COMMANDS: list[list[str]] = [
    ["imark", "value", "--S", "1", "--D", "2,3", "10^18", "--c", "10^12"],
    ["imark", "value", "--S", "1", "--D", "2,3", "10^18", "--c", "10^9", "--max-seconds", "2"],
    ["imark", "value", "--S", "1", "--D", "2,3", "10^18", "--max-c", "10^100"],
    ["imark", "sequence", "--S", "1", "--D", "2,3", "--upto", "10^100"],
    ["game-graph", "{e3}", "--max-length", "10^100", "--max-nodes", "10^100"],
    ["game-graph", "{e3}", "--max-length", "10^9"],
    ["count", "{e3}", "A", "0", "--length", "10^100"],
    ["count", "{e3}", "A", "0", "--gf", "--max-dfa-states", "10^100"],
    ["regex", "{e3}", "A", "0", "--max-dfa-states", "10^100", "--max-states", "10^100"],
    ["max", "{e3}", "A", "10^100", "--max-states", "10^100", "--max-seconds", "1e300"],
    ["dfa", "{e3}", "A", "10^100", "--format", "svg", "--max-draw-states", "10^100"],
    ["grundy", "{e3}", "A", "ab", "--max-seconds", "1e-300"],
    ["period", "{e3}", "A", "--max-states", "10^100"],
]


@pytest.mark.parametrize("template", HUGE_COMMANDS, ids=lambda t: " ".join(t[:2]))
def test_huge_option_values(template: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Should answer, refuse or stop at once: a refusal counted as the readings of the
    budgets' clock, a check each after at most a stride of work (tests/workclock.py), not
    in seconds of a machine that may be loaded (issue 34 §7); an answer within the
    watchdog's time (a hang)."""
    from workclock import work_clock

    argv = [str(EXAMPLES / "example3.txt") if a == "{e3}" else a for a in template]
    clock = work_clock(monkeypatch, step=0.01)
    outcome = run_cli(argv)
    TALLY.add("huge option value", outcome)
    problems = outcome.problems()
    if outcome.code == 3 and clock.readings > 40:  # an answer may take work: the watchdog
        problems.append(f"{clock.readings} checks of its budget: not refused up front")
    assert not problems, _report(outcome, problems)


#: seconds of the budget the cases below are given
T = 0.5


def _budget_cases(tmp: Path) -> list[list[str]]:
    # 8,399 states, explored in a blink; its forward DFAs take seconds of subset construction
    small = _modular(tmp, "small.json", ["13:1", "17:2", "19:3"])
    big = _modular(tmp, "big.json", ["101:1", "103:2", "107:3", "109:4"])  # ~10⁸ states
    # count on `small` now takes about 1 s of CPU in all (the compiled exploration): too
    # close to T to be sure to meet the budget; 47,027 states take about 4 s
    wide = _modular(tmp, "wide.json", ["31:1", "37:2", "41:3"])
    e3 = str(EXAMPLES / "example3.txt")
    return [
        ["dfa", small, "A", "0", "--forward"],
        ["regex", small, "A", "0"],
        ["count", wide, "A", "0", "--length", "100"],
        ["max", big, "A"],
        ["spectrum", big],
        ["period", big, "A"],
        ["game-graph", e3, "--max-length", "16", "--max-nodes", "10^7"],
        ["imark", "value", "--S", "1", "--D", "2,3", "10^18", "--c", "5000000"],
        ["grundy", str(EXAMPLES / "dyck.txt"), "S", "ab" * 600, "--method", "cyk"],
    ]


def test_budgets_hold_in_time(tmp_path: Path) -> None:
    """Should stop every long phase at --max-seconds T, in a real process, with the work
    done by then bounded by the checks of its budget (14 s for a 3 s budget before, the
    checks counted units, not elapsed work).

    As a count, not a time (CPU time failed on a loaded machine, issue 34 §7): the child's
    budgets run on a clock that moves 0.02 s each time it is read (tests/workclock.py),
    so T is 25 readings whatever the load, and the phase must stop within a few readings
    of that.  (The work between two readings is bounded by the meter's stride, or the
    phase's own chunk: tests/test_budget.py, tests/test_crawl.py.)"""
    from workclock import child_env, child_readings

    for i, argv in enumerate(_budget_cases(tmp_path)):
        argv = [*argv, "--max-seconds", str(T)]
        folder = tmp_path / f"clock{i}"
        folder.mkdir()
        outcome = run_process(argv, child_env(folder, step=0.02))
        readings = child_readings(folder)
        TALLY.add("budget in time", outcome)
        problems = outcome.problems()
        if outcome.code != 3:
            problems.append(f"exit {outcome.code}, not 3: the case is too small to test")
        if not 0 < readings <= 80:
            problems.append(f"the budget's clock was read {readings} times (T is 25)")
        assert not problems, _report(outcome, problems)
