"""Sequences as pictures through matplotlib (the ``plot`` extra): Grundy sequences and
counts of words by length.

* :func:`plot_octal` — G(n) of an octal game (:class:`~sdg_automata.games.octal.OctalPeriod`),
  the proven preperiod shaded and the first period marked between two lines;
* :func:`plot_imark` — G(n) of i-Mark(S, D) for n ≤ N (:class:`IMarkSequence`);
* :func:`plot_counts` — the number of words of each length with 𝒢(A, w) = C
  (:class:`CountsByLength`), on a log axis (they grow exponentially).

Each returns a matplotlib ``Figure`` made without pyplot, as
:func:`sdg_automata.sweeps.summarize.plot` does (no backend is chosen or changed; a
notebook shows the figure once its inline backend is on), or draws into the
``ax`` given.  :func:`figure_bytes` gives a figure as the bytes of a ``.png``,
``.svg`` or ``.pdf`` file (the command line writes them atomically:
``octal CODE --plot FILE``, ``imark sequence ... --plot FILE``,
``count ... --plot FILE``); notebooks show :class:`~sdg_automata.games.octal.OctalPeriod`,
:class:`IMarkSequence` and :class:`CountsByLength` as a table with the picture
(:mod:`sdg_automata.render` registers them).

matplotlib is imported only inside the functions that draw: importing this
module costs nothing, and a missing extra is an
:class:`~sdg_automata.errors.InputError` naming it (:func:`require_plot`).
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError
from ..sweeps.summarize import SAVE_METADATA, figure_class, plot_suffix

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ..automaton.counting import ClassMachine
    from ..games.octal.period import OctalPeriod
    from ..grammar import Grammar
    from ..runtime.budget import Budget

__all__ = ["CountsByLength", "IMarkSequence", "counts_by_length", "figure_bytes", "imark_series",
           "plot_available", "plot_counts", "plot_imark", "plot_octal", "require_plot"]

#: an octal game's plot shows the preperiod and this many periods (at least)
PERIODS_SHOWN = 3
#: the most values a plot of a sequence draws (a line of 10⁶ points is still quick)
MAX_POINTS = 1_000_000

#: the colours of the marked ranges: the preperiod and the first period
_PREPERIOD = "#f2c6a0"
_PERIOD = "#a8d5a2"


def plot_available() -> bool:
    """Whether matplotlib can be imported."""
    try:
        figure_class()
    except InputError:
        return False
    return True


def require_plot() -> None:
    """Refuse at once, before any work, when matplotlib is missing.

    Raises
    ------
    InputError
        Naming the extra to install.
    """
    figure_class()


def figure_bytes(fig: Figure, path: str | Path) -> bytes:
    """The bytes of the file ``path`` (``.png``, ``.svg`` or ``.pdf``, by its suffix) that
    would hold ``fig``, for a caller that writes them (atomically); no date is embedded,
    so the same figure gives the same SVG or PDF."""
    suffix = plot_suffix(path)
    buffer = io.BytesIO()
    metadata = SAVE_METADATA[suffix]
    fig.savefig(buffer, format=suffix[1:], dpi=120, bbox_inches="tight", metadata=metadata)
    return buffer.getvalue()


def _axes(ax: Axes | None, figsize: tuple[float, float]) -> Axes:
    """``ax``, or the axes of a new figure made without pyplot."""
    if ax is not None:
        return ax
    require_plot()
    from matplotlib.figure import Figure

    new: Axes = Figure(figsize=figsize).subplots()
    return new


def _figure(ax: Axes) -> Figure:
    fig = ax.get_figure()
    assert fig is not None  # axes always belong to a figure here
    return fig  # type: ignore[return-value]  # a SubFigure only if the caller's ax is one


def _sequence(ax: Axes, values: Sequence[int]) -> None:
    """G(n) as dots joined by a thin line, integer ticks on the value axis."""
    from matplotlib.ticker import MaxNLocator

    ax.plot(range(len(values)), values, marker="." if len(values) <= 400 else "",
            markersize=4, linewidth=0.8, color="C0", label="G(n)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("n")
    ax.set_ylabel("G(n)")
    ax.set_xlim(-0.5, len(values) - 0.5)


def plot_octal(result: OctalPeriod, ax: Axes | None = None, *,
               upto: int | None = None) -> Figure:
    """𝒢(0), …, 𝒢(N − 1) of an octal game, the preperiod shaded and its first period
    marked (a span and a line at each of its ends), for a proven period.

    Parameters
    ----------
    result:
        What :meth:`~sdg_automata.games.octal.OctalGame.period` returned, certified.
    ax:
        Axes to draw into (default: a new figure's).
    upto:
        N, the values shown (default: the preperiod and :data:`PERIODS_SHOWN`
        periods, so the repetition shows; at most :data:`MAX_POINTS`).

    Raises
    ------
    InputError
        For a result without a proven period, or without matplotlib.
    """
    if result.preperiod is None or result.period is None:
        raise InputError(f"{result.code} has no proven period (checked to "
                         f"{result.checked_to}): nothing to plot")
    n0, p = result.preperiod, result.period
    n = min(MAX_POINTS, upto if upto is not None else n0 + PERIODS_SHOWN * p)
    axes = _axes(ax, (8, 3.5))
    values = result.first(n)
    if n0 > 0:
        axes.axvspan(-0.5, n0 - 0.5, color=_PREPERIOD, alpha=0.6, linewidth=0,
                     label=f"preperiod: n < {n0}")
    axes.axvspan(n0 - 0.5, n0 + p - 0.5, color=_PERIOD, alpha=0.6, linewidth=0,
                 label=f"first period: {n0} ≤ n < {n0 + p}")
    for x in (n0, n0 + p):
        axes.axvline(x - 0.5, color="0.3", linewidth=0.8, linestyle="--")
    _sequence(axes, values)
    axes.set_title(f"Octal game {result.code}: preperiod {n0}, period {p} "
                   "(proven by the octal periodicity theorem)")
    axes.legend(fontsize="small", loc="upper left")
    return _figure(axes)


@dataclass(frozen=True, kw_only=True)
class IMarkSequence:
    """𝒢(0), …, 𝒢(N) of i-Mark(S, D), computed bottom up (:func:`imark_series`)."""

    S: tuple[int, ...]
    D: tuple[int, ...]
    #: byte n is G(n)
    values: bytes

    @property
    def name(self) -> str:
        return f"i-Mark({{{', '.join(map(str, self.S))}}}, {{{', '.join(map(str, self.D))}}})"


def imark_series(S: Sequence[int], D: Sequence[int], *, upto: int) -> IMarkSequence:
    """The naive sequence 𝒢(0..upto) of i-Mark(S, D)
    (:func:`~sdg_automata.games.imark.imark_sequence`), to show or plot."""
    from ..games.imark.game import IMark
    from ..games.imark.naive import imark_sequence

    game = IMark.of(S, D)
    return IMarkSequence(S=tuple(game.S), D=tuple(game.D),
                         values=imark_sequence(game, upto=upto))


def plot_imark(sequence: IMarkSequence, ax: Axes | None = None) -> Figure:
    """G(n) of i-Mark(S, D) for 0 ≤ n ≤ N (no period is marked: none is proven).

    Raises
    ------
    InputError
        Without matplotlib, or for more than :data:`MAX_POINTS` values.
    """
    if len(sequence.values) > MAX_POINTS:
        raise InputError(f"a plot draws at most {MAX_POINTS:,} values, not "
                         f"{len(sequence.values):,}")
    axes = _axes(ax, (8, 3.5))
    _sequence(axes, list(sequence.values))
    axes.set_title(f"{sequence.name}: G(n) for n ≤ {len(sequence.values) - 1}")
    return _figure(axes)


@dataclass(frozen=True, kw_only=True)
class CountsByLength:
    """The number of words w of each length 0, …, N with 𝒢(A, w) = C
    (:func:`counts_by_length`; C ``None``: the words that are not positions)."""

    nonterminal: str
    value: int | None
    #: counts[n] is the number of such words of length n
    counts: tuple[int, ...]

    @property
    def name(self) -> str:
        what = "not positions" if self.value is None else f"G({self.nonterminal}, w) = {self.value}"
        return f"words w with {what}"


def counts_by_length(grammar: Grammar, nonterminal: str, value: int | None, *,
                     max_length: int, budget: Budget | None = None,
                     machine: ClassMachine | None = None) -> CountsByLength:
    """The counts of every length 0, …, ``max_length``, exactly, from one backward pass
    over the class's DFA (:meth:`~sdg_automata.automaton.counting.TransferTable.levels`);
    ``machine``: the classes already built (the command line builds them with its
    budget)."""
    from ..automaton.counting import ClassMachine
    from ..runtime.budget import UNLIMITED

    if max_length < 0:
        raise InputError(f"a length is a natural number, not {max_length}")
    limits = budget if budget is not None else UNLIMITED
    head = grammar.check_nonterminal(nonterminal)
    classes = machine if machine is not None else ClassMachine.build(grammar, head)
    table = classes.table(value, limits)
    meter = limits.start("counting", unit="levels")
    return CountsByLength(nonterminal=head, value=value,
                          counts=tuple(table.levels(max_length, meter)))


def plot_counts(counts: CountsByLength, ax: Axes | None = None) -> Figure:
    """The counts by length on a logarithmic scale (zero counts, which it cannot show, are
    listed in the title's note and drawn as no point).

    The scale is computed from the exact counts: each point is log₁₀ of its count, taken
    from the Python integer (:func:`math.log10` reads integers of any size), on a linear
    axis labelled in powers of ten.  A float axis cannot hold them: past 2¹⁰²⁴ a count is
    no float, and matplotlib's log scale overflows long before (an empty chart from
    lengths near 1,000 on; issue 34 §6).  The line carries the gid ``counts`` in an SVG.

    Raises
    ------
    InputError
        Without matplotlib.
    """
    import math

    from matplotlib.ticker import FuncFormatter, MaxNLocator

    axes = _axes(ax, (7, 4))
    shown = [(n, c) for n, c in enumerate(counts.counts) if c > 0]
    xs = [n for n, _ in shown]
    ys = [math.log10(c) for _, c in shown]
    (line,) = axes.plot(xs, ys, marker="o" if len(xs) <= 400 else "", markersize=3,
                        linewidth=0.8, color="C0")
    line.set_gid("counts")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"$10^{{{y:g}}}$"))
    zeros = len(counts.counts) - len(shown)
    axes.set_xlabel("length n")
    axes.set_ylabel("words of length n")
    axes.set_title(f"{counts.name}, by length" + (
        f" ({zeros} length{'s' if zeros > 1 else ''} with none)" if zeros else ""))
    return _figure(axes)
