"""The exception hierarchy.

One root, :class:`SdgError`.  Errors caused by the caller's input also inherit
:class:`ValueError` (the convention of lark's ``ConfigurationError``), so code
that already catches ``ValueError`` keeps working.  The command line maps
:class:`InputError` to exit code 2 and :class:`BudgetExceeded` to exit code 3.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

__all__ = [
    "BudgetExceeded",
    "ConvergenceError",
    "EngineNotice",
    "GameGraphError",
    "GraphCycleError",
    "GrammarError",
    "GrammarSyntaxError",
    "InputError",
    "Interrupted",
    "InvalidCertificate",
    "KernelCacheWarning",
    "MisereSumError",
    "ResourceError",
    "SdgBug",
    "SdgError",
    "UnitCycleError",
    "UnknownPositionError",
    "VisualUnavailable",
    "brief",
]


def brief(text: str, limit: int = 40) -> str:
    """``repr(text)``, cut in the middle when long: error messages stay one short line
    however large the input (a megabyte-long name is a fuzzer's favourite)."""
    if len(text) <= limit:
        return repr(text)
    half = limit // 2
    return f"{text[:half]!r}…{text[-half:]!r} ({len(text):,} characters)"


class SdgError(Exception):
    """Root of every exception raised by sdg_automata."""


class EngineNotice(UserWarning):
    """A run goes elsewhere than asked, for the same answer: one chosen for the compiled
    kernels runs in Python instead (the automaton does not fit their fixed width), or a
    sharded search runs in this process (its levels are too narrow to shard).  The
    command line prints it as one ``note:`` line on stderr."""


class KernelCacheWarning(UserWarning):
    """numba's on-disk cache of the compiled kernels is not usable here (no writable
    directory, or a damaged file): the kernels are compiled in memory instead, or the
    damaged entry is replaced.  The answer is the same, only the start is slower.  The
    command line prints it as one ``warning:`` line on stderr."""


class SdgBug(SdgError):
    """An internal consistency check failed: a bug in sdg_automata, never the input's fault.

    Please report it with the command that raised it.
    """


class InputError(SdgError, ValueError):
    """The caller's input is at fault.

    Parameters
    ----------
    message:
        What is wrong, without the location.
    source:
        The file (or ``"<string>"``) the input came from, when known.
    line:
        The 1-based line in ``source``, when known.
    """

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        super().__init__(str(self))

    def located(self, source: str | None, line: int | None = None) -> InputError:
        """The same error, placed at ``source:line`` (kept if already placed)."""
        clone = type(self).__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.source = self.source or source
        clone.line = self.line or line
        Exception.__init__(clone, str(clone))
        return clone

    def __str__(self) -> str:
        where = ""
        if self.source:
            where = self.source + (f":{self.line}" if self.line else "") + ": "
        elif self.line:
            where = f"line {self.line}: "
        return where + self.message


class GrammarError(InputError):
    """A grammar that is not a valid input (SPEC §1).

    Attributes
    ----------
    rule:
        The offending rule (a :class:`~sdg_automata.grammar.Rule`), when one is to
        blame; parsers use it to add the line number.  Typed as any hashable key, since
        errors sit below the grammar layer and may not name its types.
    """

    def __init__(
        self,
        message: str,
        *,
        rule: Hashable | None = None,
        source: str | None = None,
        line: int | None = None,
    ):
        self.rule = rule
        super().__init__(message, source=source, line=line)


class GrammarSyntaxError(GrammarError):
    """A grammar file that cannot be read as the text or JSON format."""


class UnitCycleError(GrammarError):
    """A cycle of unit rules ``A -> B -> … -> A``: it would make plays infinite.

    Attributes
    ----------
    cycle:
        The nonterminals along the cycle, first one repeated at the end.
    """

    def __init__(self, cycle: tuple[str, ...], *, rule: Hashable | None = None):
        self.cycle = cycle
        super().__init__("unit-rule cycle " + " -> ".join(cycle), rule=rule)


class GameGraphError(InputError):
    """A game graph that is not a finite acyclic digraph (SPEC §7)."""


class GraphCycleError(GameGraphError):
    """A game graph with a cycle: plays could be infinite (SPEC §7).

    Attributes
    ----------
    cycle:
        The positions along the cycle, the first one repeated at the end.
    """

    def __init__(self, cycle: Sequence[Hashable], *, shown: str | None = None,
                 source: str | None = None, line: int | None = None):
        self.cycle = tuple(cycle)
        shown = shown or " -> ".join(map(str, self.cycle))
        super().__init__("the game graph has a cycle " + shown, source=source, line=line)


class UnknownPositionError(InputError, KeyError):
    """A position asked about is not in the game graph.

    It is both an :class:`~sdg_automata.errors.InputError` (a ``ValueError``)
    and a ``KeyError``, like a failed look-up in
    :attr:`~sdg_automata.games.impartial.GraphSolution.grundy`.
    """


class MisereSumError(InputError):
    """A misère sum was asked for: the XOR of Grundy numbers does not decide it (SPEC §7)."""

    def __init__(self) -> None:
        super().__init__(
            "misère sums are not decided by the XOR of Grundy numbers (SPEC §7); the misère "
            "quotient decides them: misere_quotient(GraphFamily(graph=...)), or "
            "graph FILE --misere --sum")


class VisualUnavailable(InputError):
    """SVG or PNG was asked for, but pygraphviz (the ``visual`` extra) is missing."""


class InvalidCertificate(SdgError):
    """A certificate that was read whole but does not prove what it claims (a value, the
    period, the preperiod, the hash or the length is wrong): ``octal verify`` exits 1."""


class BudgetExceeded(SdgError):
    """A computation stopped at its budget (states or seconds) without an answer.

    Attributes
    ----------
    explored:
        How many states had been explored when the budget ran out.
    partial:
        What was proven before it ran out, for a computation whose answer grows in proven
        steps (a misère quotient proven for its first components: a
        :class:`~sdg_automata.games.misere.quotient.MisereQuotient` whose ``stopped``
        says why); ``None`` otherwise.
    """

    def __init__(self, message: str, *, explored: int = 0, partial: object | None = None):
        self.explored = explored
        self.partial = partial
        super().__init__(message)


class Interrupted(SdgError):
    """A long computation was interrupted (Ctrl-C); says how far it got.

    Attributes
    ----------
    explored:
        How many states had been explored.
    """

    def __init__(self, message: str, *, explored: int = 0):
        self.explored = explored
        super().__init__(message)


class ResourceError(SdgError):
    """Something the run depends on, outside its input, failed or ran out: the Dask
    scheduler or its workers were lost, the disk is full.

    The command line maps it to exit code 3, like a budget: nothing wrong was
    written, and a sweep rerun with the same ``--out`` resumes where it stopped.
    """


class ConvergenceError(SdgError):
    """The i-Mark convergence technique could not prove a value (SPEC §6).

    No value is ever returned in that case: this exception is the answer.
    """
