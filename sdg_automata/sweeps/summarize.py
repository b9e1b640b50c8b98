"""What a researcher wants from a sweep's rows: tables, and plots through matplotlib.

Grammar sweeps (rows of :mod:`sdg_automata.sweeps.grammars`):

* the distribution of max 𝒢_{G,A} over L(G, A) (SPEC §5) per nonterminal;
* the largest automata (reachable states, SPEC §4);
* the smallest grammar reaching each Grundy value, with its witness, where
  *smallest* orders grammars by (nonterminals, rules, letters in all bodies,
  key); the value is the largest over the grammar's nonterminals.

i-Mark surveys (rows of :mod:`sdg_automata.sweeps.imark`): which (S, D)
converge, and with which c (SPEC §6).

Octal surveys (rows of :func:`sdg_automata.sweeps.octal.survey_sweep`): the proven
preperiod and period of each code, the codes not proven within their values,
and how many codes have each period.

Rows whose status is not ``"ok"`` are counted, never summarized as if they
were answers.  A key with several rows (a job run again by ``--retry-errors``)
counts by its last row, as resuming does.  Plots (:func:`plot`, the ``plot``
extra): a histogram of the grammars' maximum values by grammar size (rules), a
heat map of c over (S, D), or the codes' periods against their preperiods,
returned as a matplotlib ``Figure`` (written to a file only when asked).
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import InputError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PLOT_HINT", "PLOT_SUFFIXES", "SAVE_METADATA", "Summary", "figure_class",
           "grammar_size", "load_rows", "plot", "plot_suffix", "summarize"]

Kind = Literal["grammars", "imark", "octal"]


def load_rows(path: str | Path) -> list[dict[str, Any]]:
    """The rows of a sweep's output, JSON Lines or CSV (cells read back as written).

    A torn last line (a sweep still running, or killed: the bytes after the
    last newline) is left out; any other line that is not a row is an
    :class:`~sdg_automata.errors.InputError`.  A key with several rows counts
    by its last one.
    """
    from ..grammar.parse import read_text

    text = read_text(path, what="sweep output")
    rows: dict[str, dict[str, Any]] = {}
    if text.startswith("key,") or text.startswith('"key"'):
        complete = text[:text.rfind("\n") + 1]  # a torn last record left out
        reader = csv.DictReader(io.StringIO(complete))
        for record in reader:
            if None in record or None in record.values():
                raise InputError("not as many fields as the header names", source=str(path),
                                 line=reader.line_num)
            row = {k: _from_cell(k, v) for k, v in record.items()}
            rows[str(row["key"])] = row
    else:
        for i, line in enumerate(text.split("\n")[:-1], start=1):  # after the last \n: torn
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError:
                raise InputError("not a JSON row", source=str(path), line=i) from None
            if not isinstance(row, dict) or "key" not in row:
                raise InputError("not a row of a sweep (no 'key')", source=str(path), line=i)
            rows[str(row["key"])] = row
    if not rows:
        raise InputError("no rows", source=str(path))
    return list(rows.values())


#: CSV columns kept as text (a code such as 0.70 is not the number 0.7)
_TEXT = frozenset({"key", "status", "grammar", "code", "error"})
#: CSV columns written as sets, {1,2} (the i-Mark survey's S and D)
_SETS = frozenset({"S", "D"})


def _from_cell(column: str | None, cell: str | None) -> Any:
    """A CSV cell as the row had it (the inverse of the sweep's CSV writer): empty is
    None, True/False are booleans (Python's spelling), sets are lists, nested fields JSON."""
    if cell is None or cell == "":
        return None
    if column in _TEXT:
        return cell
    if column in _SETS and cell.startswith("{") and cell.endswith("}"):
        try:
            return [int(v) for v in cell[1:-1].split(",") if v]
        except ValueError:
            return cell
    if cell in ("True", "False"):
        return cell == "True"
    try:
        return json.loads(cell)
    except ValueError:
        return cell


def _kind(rows: Sequence[dict[str, Any]]) -> Kind:
    if all("grammar" in r for r in rows):
        return "grammars"
    if all("S" in r and "D" in r for r in rows):
        return "imark"
    if all("code" in r and "period" in r for r in rows):
        return "octal"
    raise InputError("the rows are not a grammar sweep's, an i-Mark survey's or an octal "
                     "survey's")


def grammar_size(row: dict[str, Any]) -> tuple[int, int, int]:
    """(nonterminals, rules, letters in all bodies) of a grammar row."""
    from ..grammar.parse import parse_grammar

    g = parse_grammar(row["grammar"])
    letters = sum(1 for r in g.rules for s in r.body if not g.is_nonterminal(s))
    return len(g.nonterminals), len(g.rules), letters


def _top(row: dict[str, Any]) -> tuple[int | None, str | None, str | None]:
    """The largest maximum over the grammar's nonterminals, which one, and its witness."""
    best: tuple[int | None, str | None, str | None] = (None, None, None)
    for head, value in (row.get("max") or {}).items():
        if value is not None and (best[0] is None or value > best[0]):
            best = (value, head, (row.get("witness") or {}).get(head))
    return best


@dataclass(frozen=True, kw_only=True)
class Summary:
    """The tables of :func:`summarize` (each a header row, then rows); ``to_json`` shows them.

    The command line prints them as plain-text tables (``render.text_table``).
    """

    kind: Kind
    status: dict[str, int]
    tables: dict[str, list[list[Any]]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "status": self.status,
                "tables": {name: [dict(zip(t[0], r, strict=True)) for r in t[1:]]
                           for name, t in self.tables.items()}}


def summarize(rows: Sequence[dict[str, Any]], *, top: int = 5) -> Summary:
    """The summary tables of a sweep's rows (grammars, i-Mark or octal, told apart by their
    fields)."""
    kind = _kind(rows)
    status = dict(sorted(Counter(str(r.get("status", "ok")) for r in rows).items()))
    ok = [r for r in rows if r.get("status", "ok") == "ok"]
    return Summary(kind=kind, status=status, tables=_TABLES[kind](ok, top))


def _grammar_tables(ok: Sequence[dict[str, Any]], top: int) -> dict[str, list[list[Any]]]:
    heads = sorted({h for r in ok for h in r["max"]}, key=lambda h: (len(h), h))
    values = sorted({v for r in ok for v in r["max"].values() if v is not None})
    per_head = {h: Counter(r["max"].get(h) for r in ok) for h in heads}
    distribution: list[list[Any]] = [["max", *heads]]
    distribution += [[v, *(per_head[h][v] for h in heads)] for v in values]
    largest: list[list[Any]] = [["states", "max", "key"]]
    largest += [[r["states"], _top(r)[0], r["key"]]
                for r in sorted(ok, key=lambda r: (-r["states"], r["key"]))[:top]]
    smallest: dict[int, tuple[tuple[int, int, int, str], dict[str, Any]]] = {}
    for r in ok:
        value = _top(r)[0]
        if value is None:
            continue
        order = (*grammar_size(r), r["key"])
        if value not in smallest or order < smallest[value][0]:
            smallest[value] = (order, r)
    first: list[list[Any]] = [["value", "nonterminals", "rules", "letters", "nonterminal",
                               "witness", "key"]]
    for value in sorted(smallest):
        (n, rules, letters, key), r = smallest[value]
        _, head, witness = _top(r)
        first.append([value, n, rules, letters, head, witness, key])
    return {"maximum per nonterminal (grammars)": distribution,
            f"largest automata (top {top})": largest,
            "smallest grammar reaching each value": first}


def _show(values: Sequence[int]) -> str:
    return "{" + ",".join(map(str, values)) + "}"


def _imark_tables(ok: Sequence[dict[str, Any]], top: int) -> dict[str, list[list[Any]]]:
    table: list[list[Any]] = [["S", "D", "c", "worst start", "result"]]
    for r in sorted(ok, key=lambda r: (len(r["S"]), r["S"], len(r["D"]), r["D"])):
        result = "converges" if r["converges"] else f"no convergence from {r['failed_start']}"
        table.append([_show(r["S"]), _show(r["D"]), r["c"], r["worst_start"], result])
    counts = Counter(r["c"] for r in ok if r["converges"])
    dist: list[list[Any]] = [["c", "instances"]]
    dist += [[c, n] for c, n in sorted(counts.items())]
    dist.append(["none", sum(1 for r in ok if not r["converges"])])
    return {"convergence per instance": table, "instances by c": dist}


def _code_order(row: dict[str, Any]) -> tuple[int, str]:
    return len(row["code"]), row["code"]


def _octal_tables(ok: Sequence[dict[str, Any]], top: int) -> dict[str, list[list[Any]]]:
    proven = sorted((r for r in ok if r["certified"]), key=_code_order)
    table: list[list[Any]] = [["code", "preperiod", "period", "values"]]
    table += [[r["code"], r["preperiod"], r["period"], r["checked_to"]] for r in proven]
    still: list[list[Any]] = [["code", "values"]]
    still += [[r["code"], r["checked_to"]]
              for r in sorted((r for r in ok if not r["certified"]), key=_code_order)]
    counts = Counter(r["period"] for r in proven)
    by_period: list[list[Any]] = [["period", "codes"]]
    by_period += [[p, n] for p, n in sorted(counts.items())]
    longest: list[list[Any]] = [["preperiod", "period", "code"]]
    longest += [[r["preperiod"], r["period"], r["code"]]
                for r in sorted(proven, key=lambda r: (-r["preperiod"], -r["period"],
                                                       _code_order(r)))[:top]]
    return {"proven periods (octal games)": table, "not proven within their values": still,
            "codes by period": by_period, f"longest preperiods (top {top})": longest}


_TABLES = {"grammars": _grammar_tables, "imark": _imark_tables, "octal": _octal_tables}


# ---------------------------------------------------------------------------
# plots


#: what to install for plots (every ``--plot`` and plot function says it)
PLOT_HINT = 'pip install "sdg_automata[plot]"'
#: the file types a plot is written as, by suffix
PLOT_SUFFIXES = (".png", ".svg", ".pdf")
#: ``savefig``'s metadata by suffix: no date, so the same figure gives the same file
SAVE_METADATA: dict[str, dict[str, None] | None] = {
    ".png": None, ".svg": {"Date": None}, ".pdf": {"CreationDate": None}}


def plot_suffix(path: str | Path) -> str:
    """The suffix of a plot file (``.png``, ``.svg`` or ``.pdf``), checked.

    Raises
    ------
    InputError
        For an empty name or another suffix.
    """
    suffix = Path(path).suffix.lower()
    if not str(path) or suffix not in PLOT_SUFFIXES:
        raise InputError(f"--plot writes .png, .svg or .pdf files, not {str(path)!r}")
    return suffix


def figure_class() -> type[Figure]:
    """matplotlib's ``Figure``, imported; the command line calls it before reading any
    row, so that ``--plot`` without matplotlib is refused before any output.

    Raises
    ------
    InputError
        Without matplotlib, naming the extra that brings it.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise InputError(f"plots need matplotlib, which is not installed: {PLOT_HINT}") from None
    return Figure


def plot(rows: Sequence[dict[str, Any]], out: str | Path | None = None) -> Figure:
    """The sweep's picture as a matplotlib ``Figure``, also written to ``out`` when given
    (``.png``, ``.svg`` or ``.pdf``; the command line writes
    :func:`sdg_automata.render.plots.figure_bytes` of it atomically instead).

    Grammars: a histogram of each grammar's largest maximum, one bar group per
    number of rules.  i-Mark: a heat map of c over (S, D), grey where the
    instance does not converge.  Octal: each proven code's period against its
    preperiod.  The figure is made without pyplot, so no backend is chosen or
    changed and nothing is left open: a notebook shows the returned figure once
    its inline backend is on (``%matplotlib inline``), a script saves it
    (``fig.savefig``).

    Raises
    ------
    InputError
        Without matplotlib (``pip install "sdg_automata[plot]"``), or for
        another file type.
    """
    suffix = None if out is None else plot_suffix(out)
    figure = figure_class()
    ok = [r for r in rows if r.get("status", "ok") == "ok"]
    if not ok:
        raise InputError("no row with status 'ok' to plot")
    fig = _PLOTS[_kind(rows)](figure, ok)
    if out is not None:
        try:
            fig.savefig(out, dpi=120, bbox_inches="tight",
                        metadata=SAVE_METADATA[suffix or ".png"])
        except OSError as e:
            raise InputError(f"cannot write {str(out)!r}: {e.strerror or e}") from None
    return fig


def _grammar_plot(figure: type[Figure], ok: Sequence[dict[str, Any]]) -> Figure:
    by_size: dict[int, Counter[int]] = {}
    for r in ok:
        value = _top(r)[0]
        if value is not None:
            by_size.setdefault(grammar_size(r)[1], Counter())[value] += 1
    sizes = sorted(by_size)
    values = sorted({v for c in by_size.values() for v in c})
    fig = figure(figsize=(7, 4))
    ax = fig.subplots()
    width = 0.8 / max(1, len(sizes))
    for i, size in enumerate(sizes):
        xs = [v + (i - (len(sizes) - 1) / 2) * width for v in values]
        bars = ax.bar(xs, [by_size[size][v] for v in values], width=width,
                      label=f"{size} rule" + ("" if size == 1 else "s"))
        # each bar's count written on it: on the log axis a bar of 1 or 2 is a sliver
        ax.bar_label(bars, labels=[str(by_size[size][v]) if by_size[size][v] else ""
                                   for v in values], fontsize=7, padding=1)
    ax.set_yscale("log")
    # a bar of 1 grammar still rises from the axis, and the tallest one's label fits
    ax.set_ylim(0.5, 3 * max((n for c in by_size.values() for n in c.values()), default=1))
    ax.set_xticks(values)
    ax.set_xlabel("largest maximum Grundy value over the grammar's nonterminals")
    ax.set_ylabel("grammars (isomorphism classes)")
    ax.set_title(f"Maximum Grundy value by grammar size ({len(ok)} grammars)")
    ax.legend(title="grammar size", fontsize="small")
    return fig


def _imark_plot(figure: type[Figure], ok: Sequence[dict[str, Any]]) -> Figure:
    import math

    from matplotlib import colormaps

    s_sets = sorted({tuple(r["S"]) for r in ok}, key=lambda s: (len(s), s))
    d_sets = sorted({tuple(r["D"]) for r in ok}, key=lambda d: (len(d), d))
    grid = [[math.nan] * len(d_sets) for _ in s_sets]
    labels = [[""] * len(d_sets) for _ in s_sets]
    for r in ok:
        i, j = s_sets.index(tuple(r["S"])), d_sets.index(tuple(r["D"]))
        if r["converges"]:
            grid[i][j] = math.log2(r["c"])
            labels[i][j] = str(r["c"])
        else:
            labels[i][j] = "×"
    fig = figure(figsize=(max(5, 0.45 * len(d_sets) + 2), max(3, 0.4 * len(s_sets) + 1.5)))
    ax = fig.subplots()
    cmap = colormaps["viridis"].with_extremes(bad="lightgrey")
    image = ax.imshow(grid, cmap=cmap, aspect="auto")
    for i in range(len(s_sets)):
        for j in range(len(d_sets)):
            ax.text(j, i, labels[i][j], ha="center", va="center", fontsize=7,
                    color="black" if math.isnan(grid[i][j]) else "white")
    ax.set_xticks(range(len(d_sets)), [_show(d) for d in d_sets], rotation=90, fontsize=7)
    ax.set_yticks(range(len(s_sets)), [_show(s) for s in s_sets], fontsize=7)
    ax.set_xlabel("D")
    ax.set_ylabel("S")
    ax.set_title("i-Mark(S, D): the window c that converges (× none)")
    fig.colorbar(image, ax=ax, label="log₂ c")
    return fig


def _octal_plot(figure: type[Figure], ok: Sequence[dict[str, Any]]) -> Figure:
    proven = [r for r in ok if r["certified"]]
    fig = figure(figsize=(6, 4.5))
    ax = fig.subplots()
    ax.scatter([r["preperiod"] + 1 for r in proven], [r["period"] for r in proven], s=14)
    if len(proven) <= 40:
        for r in proven:
            ax.annotate(r["code"], (r["preperiod"] + 1, r["period"]), fontsize=6,
                        xytext=(3, 2), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("preperiod + 1")
    ax.set_ylabel("period")
    ax.set_title(f"Octal games: proven periods ({len(proven)} codes, "
                 f"{len(ok) - len(proven)} not proven)")
    return fig


_PLOTS = {"grammars": _grammar_plot, "imark": _imark_plot, "octal": _octal_plot}
