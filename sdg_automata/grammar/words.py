"""Words kept as runs of letters, for witnesses too long to spell out.

A shortest witness of a one-letter grammar can have 10⁸ letters (the lasso
of SPEC §5's hardness family); as a ``str`` it would take 100 MB and fill any
terminal.  :class:`Word` keeps it run-length encoded (``a^160949018`` is one
run), measures and compares it without expanding it, and expands it only when
asked (``str(word)``).  Searches return a plain ``str`` for witnesses of at most
:data:`LONG_WORD` letters and a :class:`Word` beyond.

>>> w = Word.power("a", 160949018)
>>> len(w), w.compact(), w
(160949018, 'a^160949018', <Word a^160949018 (160,949,018 letters)>)
>>> Word.of("aabbb").compact(), str(Word.of("aabbb"))
('a^2b^3', 'aabbb')
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import SdgBug

__all__ = ["BRIEF", "LONG_WORD", "Word", "brief", "word_json"]

#: witnesses longer than this are :class:`Word` objects (and JSON gives them as runs)
LONG_WORD = 1 << 16
#: words of at most this many letters are shown spelled out by :func:`brief`
BRIEF = 60


@dataclass(frozen=True, repr=False)
class Word:
    """A word as its maximal runs ``((letter, count), …)``: adjacent letters differ,
    counts are positive."""

    runs: tuple[tuple[str, int], ...]

    def __post_init__(self) -> None:
        previous = None
        for letter, count in self.runs:
            if len(letter) != 1 or count < 1 or letter == previous:
                raise SdgBug(f"a word's runs are maximal runs of one letter, not {self.runs!r}")
            previous = letter

    @classmethod
    def of(cls, letters: Iterable[str]) -> Word:
        """The runs of ``letters`` (a ``str`` or any iterable of letters)."""
        return cls.from_runs((a, 1) for a in letters)

    @classmethod
    def from_runs(cls, runs: Iterable[tuple[str, int]]) -> Word:
        """Runs merged where adjacent ones share their letter (empty runs dropped)."""
        out: list[tuple[str, int]] = []
        for letter, count in runs:
            if count <= 0:
                continue
            if out and out[-1][0] == letter:
                out[-1] = (letter, out[-1][1] + count)
            else:
                out.append((letter, count))
        return cls(tuple(out))

    @classmethod
    def power(cls, letter: str, n: int) -> Word:
        """``letter`` repeated n times."""
        return cls(((letter, n),) if n else ())

    def __len__(self) -> int:
        return sum(count for _, count in self.runs)

    def __str__(self) -> str:
        return "".join(letter * count for letter, count in self.runs)

    def __iter__(self) -> Iterator[str]:
        for letter, count in self.runs:
            for _ in range(count):
                yield letter

    def __repr__(self) -> str:  # never the spelled-out word: it may have 10⁸ letters
        return f"<Word {self.compact()} ({len(self):,} letters)>"

    def reversed(self) -> Word:
        return Word(self.runs[::-1])

    def compact(self) -> str:
        """``a^3ba^2``: each run as its letter, with ``^count`` when longer than one."""
        return "".join(letter if count == 1 else f"{letter}^{count}"
                       for letter, count in self.runs)

    def to_json(self) -> dict[str, Any]:
        """``{"runs": [["a", 160949018]], "length": 160949018, "compact": "a^160949018"}``."""
        return {"runs": [[letter, count] for letter, count in self.runs], "length": len(self),
                "compact": self.compact()}


def word_json(word: str | Word | None, *, full: bool = False) -> Any:
    """A witness in JSON: a string, or (a :class:`Word`, unless ``full``) its runs."""
    if isinstance(word, Word):
        return str(word) if full else word.to_json()
    return word


def brief(word: str | Word, limit: int = BRIEF, *, note: str = "") -> str:
    """A word for a person to read, in at most about ``limit`` characters.

    A ``str`` of at most ``limit`` letters is its ``repr`` (``'aa'``); a longer
    word is shown run-length with its length (``a^160949018b (length 160,949,019)``),
    and when even that is longer than ``limit``, by the ends of its runs, its
    length and its number of runs (``note`` is added there: the command line
    says how to get the rest).  The command line prints witnesses so, and
    notebooks show witnesses and items so.

    >>> brief("aa"), brief("a" * 99 + "b")
    ("'aa'", 'a^99b (length 100)')
    """
    if isinstance(word, str) and len(word) <= limit:
        return repr(word)
    runs = word if isinstance(word, Word) else Word.of(word)
    compact = runs.compact()
    if len(compact) <= limit:
        return f"{compact} (length {len(runs):,})"
    return (f"{compact[:24]}…{compact[-24:]} (length {len(runs):,}, "
            f"{len(runs.runs):,} runs{note})")
