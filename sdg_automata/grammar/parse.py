"""Reading and writing grammars: the text format and the JSON format.

Text format (one rule per line; close to pyformlang's but not the same, see
:mod:`sdg_automata.grammar.interop` for the differences)::

    # Example 3 of the seed paper
    start: A            # optional; default: the first left-hand side
    A -> a A | a a A | B | a | a a
    B -> b A | b
      | a B             # a line starting with '|' continues the rule above
    terminals: c        # optional: letters that occur in no rule

JSON format::

    {"start": "A",
     "rules": {"A": ["a A", "a a A", "B", "a", "a a"], "B": ["b A", ["b"]]},
     "terminals": "c"}

Nonterminals are exactly the rule heads.  Any other token is read as a
sequence of one-character terminals (``ab`` is ``a b``), except that a token
containing a nonterminal's name (``aaA``) is refused as ambiguous.  ε
alternatives are refused: the game has no ε rules (pyformlang's ``$`` and
``Є`` included).  Names and letters are checked by
:func:`~sdg_automata.grammar.check_name` and :func:`~sdg_automata.grammar.check_letter`;
a control character anywhere in a text grammar is refused with its line.
Files are read as ``utf-8-sig`` (a byte-order mark is dropped); JSON goes
through :func:`~sdg_automata.grammar.jsontext.load_json` (no duplicate keys, bounded
nesting).  Reading is linear in the size of the grammar: the line of an
offending JSON rule is looked up only when there is an error to report.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Hashable, Iterable
from os import PathLike
from typing import Any

from ..errors import GrammarError, GrammarSyntaxError, InputError, brief
from ..runtime.files import CAPS, DEFAULT_CAP, read_capped
from . import EPSILON_SPELLINGS, Grammar, Rule, check_name
from .jsontext import json_lines, load_json

__all__ = ["grammar_from_json", "grammar_from_text", "grammar_to_json", "grammar_to_text",
           "load_grammar", "parse_grammar", "read_text"]

_ARROW = re.compile(r"->|→|::=")
_DIRECTIVE = re.compile(r"^(start|terminals)\s*:\s*(.*)$")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# C0 and C1 control characters other than tab and the line breaks: a text file
# holding one is damaged (a NUL, a stray escape), never a grammar
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")

Alternative = str | list[Any]
"""One right-hand side as written: a spaced string, or (JSON) a list of symbols."""


class _Tokens:
    """Reads the tokens of right-hand sides against a fixed set of nonterminal names.

    Built once per grammar, so each token costs time in its own length: a token
    is a nonterminal, an ε spelling, or a run of one-letter terminals, and it
    is ambiguous when some nonterminal's name occurs inside it (``aaA``).
    """

    def __init__(self, heads: Iterable[str]):
        self.heads = frozenset(heads)
        self.firsts = frozenset(h[0] for h in self.heads)
        self.lengths = sorted({len(h) for h in self.heads})

    def symbols(self, token: str) -> list[str]:
        """Turn one token of a right-hand side into symbols."""
        if token in self.heads:
            return [token]
        if token in EPSILON_SPELLINGS:
            raise GrammarError(f"ε alternative {token!r}: the game has no ε rules")
        clash = self._clash(token)
        if clash:
            spaced = " ".join(self._split(token))
            raise GrammarError(
                f"ambiguous token {brief(token)} contains the nonterminal {brief(clash)}: "
                f"separate the symbols with spaces, e.g. {brief(spaced, 60)}"
            )
        return list(token)

    def _clash(self, token: str) -> str | None:
        """The first nonterminal name (by position, then length) inside ``token``."""
        for i, c in enumerate(token):
            if c in self.firsts:
                for n in self.lengths:
                    if token[i:i + n] in self.heads:
                        return token[i:i + n]
        return None

    def _split(self, token: str) -> list[str]:
        # best-effort suggestion only: longest nonterminal names first
        out: list[str] = []
        i = 0
        longest = self.lengths[::-1]
        while i < len(token):
            n = next((n for n in longest if token[i:i + n] in self.heads), 1)
            out.append(token[i:i + n])
            i += n
        return out

    def body(self, alternative: Alternative) -> tuple[str, ...]:
        """The symbols of one right-hand side."""
        tokens = alternative if isinstance(alternative, list) else alternative.split()
        if not tokens or (len(tokens) == 1 and tokens[0] == ""):
            raise GrammarError("empty alternative (ε): the game has no ε rules")
        body: list[str] = []
        for tok in tokens:
            if not isinstance(tok, str):
                raise GrammarSyntaxError(f"a symbol must be a string, not {_json_type(tok)}")
            if tok == "":
                raise GrammarError('ε alternative "": the game has no ε rules')
            body.extend(self.symbols(tok))
        return tuple(body)


def _build(
    entries: list[tuple[str, Alternative]],
    locate: Callable[[int], int | None],
    start: str | None,
    terminals: str,
    source: str,
    start_line: int | None = None,
) -> Grammar:
    """Make the Grammar; attach ``source:line`` to any error.

    ``locate(k)`` is the line of ``entries[k]``; it is called only to report an
    error, so it may be slow (JSON locations are found by a scan of the text).
    """
    if not entries:
        raise GrammarError("the grammar has no rules", source=source)
    first: dict[str, int] = {}
    for k, (head, _) in enumerate(entries):
        if head not in first:
            first[head] = k
            fault = check_name(head)
            if fault:
                raise GrammarError(fault, source=source, line=locate(k))
    tokens = _Tokens(first)
    rules: list[Rule] = []
    where: dict[Hashable, int] = {}
    for k, (head, alt) in enumerate(entries):
        try:
            rule = Rule(head, tokens.body(alt))
        except GrammarError as e:
            raise e.located(source, locate(k)) from None
        rules.append(rule)
        where.setdefault(rule, k)
    if start is not None and start not in first:
        raise GrammarError(f"start symbol {brief(start)} has no rules", source=source,
                           line=start_line)
    try:
        return Grammar(rules=rules, start=start, terminals=terminals)
    except GrammarError as e:
        at = where.get(e.rule) if e.rule else None
        raise e.located(source, locate(at) if at is not None else None) from None


def grammar_from_text(text: str, *, source: str = "<string>") -> Grammar:
    """Parse the text format (see the module docstring).

    Raises
    ------
    GrammarSyntaxError, GrammarError
        With ``source`` and the line number in the message; a control
        character anywhere in the text is refused.
    """
    entries: list[tuple[str, Alternative]] = []
    lines: list[int] = []
    start: str | None = None
    start_line: int | None = None
    terminals = ""
    head: str | None = None
    text = text.removeprefix("\ufeff")
    for number, raw in enumerate(_LINE_BREAK.split(text), 1):
        bad = _CONTROL.search(raw)
        if bad:
            raise GrammarSyntaxError(f"control character U+{ord(bad.group()):04X} at column "
                                     f"{bad.start() + 1}", source=source, line=number)
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        directive = _DIRECTIVE.match(line)
        if directive and not _ARROW.search(line):
            key, value = directive.group(1), directive.group(2).strip()
            if key == "start":
                if not value or len(value.split()) != 1:
                    raise GrammarSyntaxError("'start:' needs one nonterminal", source=source,
                                             line=number)
                start, start_line = value, number
            else:
                terminals += "".join(value.split())
            continue
        if line.startswith("|"):
            if head is None:
                raise GrammarSyntaxError("'|' continuation before any rule", source=source,
                                         line=number)
            rhs = line[1:]
        else:
            parts = _ARROW.split(line, maxsplit=1)
            if len(parts) != 2:
                raise GrammarSyntaxError(
                    f"expected 'HEAD -> body | body ...', got {brief(raw.strip(), 60)}",
                    source=source, line=number)
            head = parts[0].strip()
            if not head or len(head.split()) != 1:
                raise GrammarSyntaxError(f"the left-hand side {brief(parts[0].strip())} must be "
                                         "one nonterminal name", source=source, line=number)
            rhs = parts[1]
        for alt in rhs.split("|"):
            entries.append((head, alt.strip()))
            lines.append(number)
    return _build(entries, lines.__getitem__, start, terminals, source, start_line)


def grammar_from_json(text: str, *, source: str = "<string>") -> Grammar:
    """Parse the JSON format (see the module docstring).

    Raises
    ------
    GrammarSyntaxError
        Invalid JSON (with line and column), a duplicate key, nesting deeper
        than the format's, or a wrong shape.
    GrammarError
        An invalid grammar; the message names the line of the offending rule.
    """
    data = load_json(text, source=source, error=GrammarSyntaxError)
    found: list[Any] = []  # the line map, made on the first error only

    def line_of(*path: Any) -> int | None:
        if not found:
            found.append(json_lines(text))
        at: dict[tuple[Any, ...], int] = found[0]
        while path and path not in at:
            path = path[:-1]  # the nearest enclosing value that has a line
        return at.get(path)

    def fail(message: str, *path: Any) -> GrammarSyntaxError:
        return GrammarSyntaxError(message, source=source, line=line_of(*path) if path else 1)

    if not isinstance(data, dict):
        raise fail("the JSON grammar must be an object with a 'rules' key, not "
                   f"{_json_type(data)}")
    unknown = set(data) - {"start", "rules", "terminals"}
    if unknown:
        first = sorted(unknown)[0]
        raise fail(f"unknown key {brief(first)} (expected start, rules, terminals)", first)
    rules = data.get("rules")
    if not isinstance(rules, dict):
        raise fail("'rules' must be an object mapping each nonterminal to a list "
                   "of alternatives", "rules")
    start = data.get("start")
    if start is not None and not isinstance(start, str):
        raise fail("'start' must be a string", "start")
    terminals = data.get("terminals", "")
    if isinstance(terminals, list) and all(isinstance(t, str) for t in terminals):
        terminals = "".join(terminals)
    if not isinstance(terminals, str):
        raise fail("'terminals' must be a string of letters", "terminals")
    entries: list[tuple[str, Alternative]] = []
    paths: list[tuple[str, int]] = []
    for head, alts in rules.items():
        if isinstance(alts, str):
            alts = [alts]
        if not isinstance(alts, list) or not alts:
            raise fail(f"the alternatives of {brief(head)} must be a non-empty list",
                       "rules", head)
        for i, alt in enumerate(alts):
            if not isinstance(alt, (str, list)):
                raise fail(f"alternative {i + 1} of {brief(head)} must be a string or a list "
                           f"of symbols, not {_json_type(alt)}", "rules", head, i)
            entries.append((head, alt))
            paths.append((head, i))
    return _build(entries, lambda k: line_of("rules", *paths[k]), start,
                  "".join(terminals.split()), source,
                  line_of("start") if start is not None and start not in rules else None)


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def parse_grammar(text: str, *, source: str = "<string>") -> Grammar:
    r"""Parse a grammar from text in either format (SPEC §1; the documentation's "Input files").

    Parameters
    ----------
    text:
        The text format (one rule per line, alternatives separated by ``|``) or,
        when it starts with ``{``, the JSON format.  A leading byte-order mark is
        dropped.
    source:
        The name error messages give the text (a file name; default ``"<string>"``).

    Returns
    -------
    Grammar
        The validated grammar.

    Raises
    ------
    GrammarSyntaxError
        When the text is neither format (the message names ``source`` and the line).
    GrammarError
        For an invalid grammar: an ε alternative, an ambiguous token such as
        ``aaA``, a start symbol without rules.
    UnitCycleError
        For a cycle of unit rules (``A -> B``, ``B -> A``).

    Examples
    --------
    >>> g = parse_grammar("A -> a A | a a A | B | a | a a   # Example 3\n"
    ...                   "B -> b A | b")
    >>> g
    Grammar(start='A', rules=7, kind='right-linear')
    >>> parse_grammar('{"start": "S", "rules": {"S": ["a S b", "a b"]}}').kind
    'linear'
    >>> parse_grammar("A -> a | ")
    Traceback (most recent call last):
    ...
    sdg_automata.errors.GrammarError: <string>:1: empty alternative (ε): the game has no ε rules
    """
    text = text.removeprefix("\ufeff")
    if text.lstrip().startswith("{"):
        return grammar_from_json(text, source=source)
    return grammar_from_text(text, source=source)


def read_text(path: str | PathLike[str], *, what: str = "file") -> str:
    """The UTF-8 text of an input file (``"-"``: standard input).

    Every text input is read as ``utf-8-sig``: a byte-order mark, which some
    editors put first, is dropped instead of becoming part of the first name
    or word.  Only a regular file is read, and at most the cap of its kind
    (:func:`~sdg_automata.runtime.files.read_capped`, :data:`~sdg_automata.runtime.files.CAPS`):
    a FIFO, a device or a file of absurd size is refused before a byte is read.

    Raises
    ------
    InputError
        Saying which file and why: missing, a directory, not a regular file, over its
        cap, unreadable, not UTF-8; standard input closed.
    """
    path = os.fspath(path)
    if path == "-":
        return _read_stdin(what)
    if not path:  # not the current directory, as a path library would read it
        raise InputError(f"the {what} name is empty: give a file name, or '-' for stdin")
    data = read_capped(path, what=what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path!r} is not UTF-8 text ({e.reason})") from None


def _read_stdin(what: str) -> str:
    try:
        if getattr(sys.stdin, "buffer", None) is None:  # a test's StringIO, or none at all
            if sys.stdin is None:
                raise InputError("cannot read standard input: it is closed")
            text: str = sys.stdin.read(CAPS.get(what, DEFAULT_CAP) + 1)
            if len(text) > CAPS.get(what, DEFAULT_CAP):
                raise InputError(f"standard input holds more than a {what} may have")
            return text.removeprefix("\ufeff")
        return read_capped("-", what=what).decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"standard input is not UTF-8 text ({e.reason})") from None
    except (OSError, ValueError) as e:  # ValueError: reading a closed file
        if isinstance(e, InputError):
            raise
        raise InputError(f"cannot read standard input: {getattr(e, 'strerror', None) or e}"
                         ) from None


def load_grammar(path: str | PathLike[str]) -> Grammar:
    """Read a grammar file: ``.json`` (or any file starting with ``{``) or the text format.

    Parameters
    ----------
    path:
        The file, read as UTF-8 (an optional byte-order mark is dropped).

    Returns
    -------
    Grammar
        The validated grammar; error messages name ``path`` and the line.

    Raises
    ------
    InputError
        The file is missing, unreadable or not UTF-8, or holds an invalid grammar
        (a :class:`~sdg_automata.errors.GrammarError`, with the line).

    Examples
    --------
    The paper's Example 3, bundled with the repository:

    >>> g = load_grammar("examples/example3.txt")
    >>> g.start, g.nonterminals, sorted(g.terminals)
    ('A', ('A', 'B'), ['a', 'b'])
    >>> load_grammar("examples/no-such-file.txt")
    Traceback (most recent call last):
    ...
    sdg_automata.errors.InputError: cannot read 'examples/no-such-file.txt': no such file
    """
    path = os.fspath(path)
    text = read_text(path, what="grammar file")
    if path.lower().endswith(".json"):
        return grammar_from_json(text, source=path)
    return parse_grammar(text, source=path)


_SPECIAL = re.compile(r"[\s|#]|->|→")


def _token(symbol: str, grammar: Grammar) -> str:
    if _SPECIAL.search(symbol) or (not grammar.is_nonterminal(symbol)
                                   and symbol in EPSILON_SPELLINGS):
        raise GrammarError(f"symbol {symbol!r} cannot be written in the text format; use JSON")
    return symbol


def grammar_to_text(grammar: Grammar) -> str:
    """Write a grammar in the text format; :func:`parse_grammar` reads it back to an equal grammar.

    Parameters
    ----------
    grammar:
        Any grammar.

    Returns
    -------
    str
        A ``start:`` line, then one line per nonterminal with its alternatives
        (and a ``terminals:`` line when Σ has letters no rule uses).

    Examples
    --------
    >>> g = load_grammar("examples/example3.txt")
    >>> print(grammar_to_text(g), end="")
    start: A
    A -> a A | a a A | B | a | a a
    B -> b A | b
    >>> parse_grammar(grammar_to_text(g)) == g
    True
    """
    lines = [f"start: {grammar.start}"]
    for head in grammar.nonterminals:
        alts = (" ".join(_token(s, grammar) for s in r.body) for r in grammar.rules_of(head))
        lines.append(f"{_token(head, grammar)} -> " + " | ".join(alts))
    used = {s for r in grammar.rules for s in r.body}
    extra = [t for t in grammar.terminals if t not in used]
    if extra:
        lines.append("terminals: " + "".join(_token(t, grammar) for t in extra))
    return "\n".join(lines) + "\n"


def grammar_to_json(grammar: Grammar, *, indent: int | None = 2) -> str:
    """Write a grammar in the JSON format (alternatives as spaced strings when unambiguous).

    Parameters
    ----------
    grammar:
        Any grammar.
    indent:
        As :func:`json.dumps`'s; ``None`` writes one line.

    Returns
    -------
    str
        ``{"start": ..., "rules": {...}}`` (and ``"terminals"`` when Σ has letters
        no rule uses), ending with a newline; :func:`parse_grammar` reads it back.

    Examples
    --------
    >>> g = load_grammar("examples/example3.txt")
    >>> print(grammar_to_json(g, indent=None), end="")
    {"start": "A", "rules": {"A": ["a A", "a a A", "B", "a", "a a"], "B": ["b A", "b"]}}
    >>> parse_grammar(grammar_to_json(g)) == g
    True
    """
    def alt(rule: Rule) -> str | list[str]:
        if any(_SPECIAL.search(s) for s in rule.body):
            return list(rule.body)
        return " ".join(rule.body)

    data: dict[str, Any] = {
        "start": grammar.start,
        "rules": {h: [alt(r) for r in grammar.rules_of(h)] for h in grammar.nonterminals},
    }
    used = {s for r in grammar.rules for s in r.body}
    extra = "".join(t for t in grammar.terminals if t not in used)
    if extra:
        data["terminals"] = extra
    return json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
