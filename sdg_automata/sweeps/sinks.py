"""Where a sweep's rows go: JSON Lines, CSV or an aligned terminal table, one row at a time.

Each row is written and flushed as soon as its job is done (issue 12: *streamed*),
so a reader of the output -- a pipe, ``tail -f``, a resumed sweep -- never waits for
the sweep to end, and a killed sweep leaves at most its last row torn
(:func:`~sdg_automata.sweeps.resume.resume` cuts it off).
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Literal, Protocol, get_args

__all__ = ["FORMATS", "CsvSink", "Format", "JsonlSink", "Sink", "TableSink", "plain_cells"]

Format = Literal["jsonl", "csv", "table"]
#: the output formats, for the command line's ``choices=``
FORMATS: tuple[str, ...] = get_args(Format)


class Sink(Protocol):
    """Where rows go, one at a time, flushed."""

    def write(self, row: dict[str, Any]) -> None: ...


def _stdout() -> IO[str]:
    return sys.stdout  # looked up per write: a progress display may have wrapped it


@dataclass
class JsonlSink:
    """JSON Lines: one object per line, flushed per row (the default for ``--out``)."""

    stream: IO[str] | None = None

    def write(self, row: dict[str, Any]) -> None:
        out = self.stream or _stdout()
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        out.flush()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


@dataclass
class CsvSink:
    """CSV with a header line; nested fields (dicts, lists) as JSON in their cell."""

    columns: tuple[str, ...]
    stream: IO[str] | None = None
    header: bool = True
    cells: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    def write(self, row: dict[str, Any]) -> None:
        out = self.stream or _stdout()
        if self.cells is not None:
            row = self.cells(row)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if self.header:
            writer.writerow(self.columns)
            self.header = False
        writer.writerow([_cell(row.get(c)) for c in self.columns])
        out.write(buffer.getvalue())
        out.flush()


@dataclass
class TableSink:
    """Aligned rows for a terminal, one line per row as it arrives, header first.

    ``cells`` turns a row into its display cells (the sweep's :attr:`Sweep.brief`).
    Widths are fixed by the header and the first row, at least ``least`` and at
    most ``width``; longer cells are cut (the last column never is).
    """

    cells: Callable[[dict[str, Any]], dict[str, str]]
    width: int = 24
    least: int = 10
    stream: IO[str] | None = None
    _widths: list[int] = field(default_factory=list, repr=False)

    def _line(self, cells: Sequence[str]) -> str:
        *first, last = cells
        cut = [c if len(c) <= w else c[:w - 1] + "…" for c, w in zip(first, self._widths,
                                                                       strict=True)]
        return "  ".join(c.ljust(w) for c, w in zip(cut, self._widths, strict=True)) + "  " + last

    def write(self, row: dict[str, Any]) -> None:
        out = self.stream or _stdout()
        cells = self.cells(row)
        if not self._widths:
            self._widths = [max(len(h), self.least, min(self.width, len(c)))
                            for h, c in cells.items()][:-1]
            out.write(self._line(list(cells)) + "\n")
        out.write(self._line(list(cells.values())) + "\n")
        out.flush()


def plain_cells(columns: Sequence[str]) -> Callable[[dict[str, Any]], dict[str, str]]:
    """Display cells that are the row's fields as they are (nested ones as JSON)."""
    def cells(row: dict[str, Any]) -> dict[str, str]:
        return {c: _cell(row.get(c)) for c in columns}

    return cells
