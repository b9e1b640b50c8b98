"""Reading and writing grammars: the text format and the JSON format.

Text format (one rule per line; close to pyformlang's but not the same, see
:mod:`sdg_automata.interop` for the differences)::

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
alternatives are refused: the game has no ε rules.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import Any

from .errors import GrammarError, GrammarSyntaxError, InputError
from .grammar import EPSILON_SPELLINGS, Grammar, Rule

__all__ = ["grammar_from_json", "grammar_from_text", "grammar_to_json", "grammar_to_text",
           "load_grammar", "parse_grammar", "read_text"]

_ARROW = re.compile(r"->|→|::=")
_DIRECTIVE = re.compile(r"^(start|terminals)\s*:\s*(.*)$")


def _symbols(token: str, heads: Iterable[str]) -> list[str]:
    """Turn one token of a right-hand side into symbols."""
    heads = set(heads)
    if token in heads:
        return [token]
    if token in EPSILON_SPELLINGS:
        raise GrammarError(f"ε alternative {token!r}: the game has no ε rules")
    clash = sorted(h for h in heads if h in token)
    if clash:
        spaced = " ".join(_split_ambiguous(token, clash))
        raise GrammarError(
            f"ambiguous token {token!r} contains the nonterminal {clash[0]!r}: "
            f"separate the symbols with spaces, e.g. {spaced!r}"
        )
    return list(token)


def _split_ambiguous(token: str, heads: list[str]) -> list[str]:
    # best-effort suggestion only: longest nonterminal names first
    out: list[str] = []
    i = 0
    names = sorted(heads, key=len, reverse=True)
    while i < len(token):
        for h in names:
            if token.startswith(h, i):
                out.append(h)
                i += len(h)
                break
        else:
            out.append(token[i])
            i += 1
    return out


def _body(alternative: str | list[Any], heads: Iterable[str]) -> tuple[str, ...]:
    tokens = alternative if isinstance(alternative, list) else alternative.split()
    if not tokens or (len(tokens) == 1 and tokens[0] == ""):
        raise GrammarError("empty alternative (ε): the game has no ε rules")
    body: list[str] = []
    for tok in tokens:
        if not isinstance(tok, str):
            raise GrammarSyntaxError(f"a symbol must be a string, not {tok!r}")
        if tok == "":
            raise GrammarError('ε alternative "": the game has no ε rules')
        body.extend(_symbols(tok, heads))
    return tuple(body)


def _build(
    entries: list[tuple[str, str | list[Any], int | None]],
    start: str | None,
    terminals: str,
    source: str,
    start_line: int | None = None,
) -> Grammar:
    """Make the Grammar; attach ``source:line`` to any error."""
    if not entries:
        raise GrammarError("the grammar has no rules", source=source)
    heads = dict.fromkeys(h for h, _, _ in entries)
    rules: list[Rule] = []
    lines: dict[Rule, int | None] = {}
    for head, alt, line in entries:
        try:
            rule = Rule(head, _body(alt, heads))
        except GrammarError as e:
            raise e.located(source, line) from None
        rules.append(rule)
        lines.setdefault(rule, line)
    if start is not None and start not in heads:
        raise GrammarError(f"start symbol {start!r} has no rules", source=source, line=start_line)
    try:
        return Grammar(rules=rules, start=start, terminals=terminals)
    except GrammarError as e:
        raise e.located(source, lines.get(e.rule) if e.rule else None) from None


def grammar_from_text(text: str, *, source: str = "<string>") -> Grammar:
    """Parse the text format (see the module docstring).

    Raises
    ------
    GrammarSyntaxError, GrammarError
        With ``source`` and the line number in the message.
    """
    entries: list[tuple[str, str | list[Any], int | None]] = []
    start: str | None = None
    start_line: int | None = None
    terminals = ""
    head: str | None = None
    for number, raw in enumerate(text.splitlines(), 1):
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
                    f"expected 'HEAD -> body | body ...', got {raw.strip()!r}",
                    source=source, line=number)
            head = parts[0].strip()
            if not head or len(head.split()) != 1:
                raise GrammarSyntaxError(f"the left-hand side {parts[0].strip()!r} must be one "
                                         "nonterminal name", source=source, line=number)
            rhs = parts[1]
        entries.extend((head, alt.strip(), number) for alt in rhs.split("|"))
    return _build(entries, start, terminals, source, start_line)


def grammar_from_json(text: str, *, source: str = "<string>") -> Grammar:
    """Parse the JSON format (see the module docstring).

    Raises
    ------
    GrammarSyntaxError
        Invalid JSON (with line and column) or a wrong shape.
    GrammarError
        An invalid grammar; the message names the line of the offending rule.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise GrammarSyntaxError(f"invalid JSON: {e.msg} (column {e.colno})", source=source,
                                 line=e.lineno) from None
    if not isinstance(data, dict):
        raise GrammarSyntaxError("the JSON grammar must be an object with a 'rules' key",
                                 source=source, line=1)
    unknown = set(data) - {"start", "rules", "terminals"}
    if unknown:
        first = sorted(unknown)[0]
        raise GrammarSyntaxError(f"unknown key {first!r} (expected start, rules, terminals)",
                                 source=source, line=_json_line(text, first, key=True))
    rules = data.get("rules")
    if not isinstance(rules, dict):
        raise GrammarSyntaxError("'rules' must be an object mapping each nonterminal to a list "
                                 "of alternatives", source=source,
                                 line=_json_line(text, "rules", key=True))
    start = data.get("start")
    if start is not None and not isinstance(start, str):
        raise GrammarSyntaxError("'start' must be a string", source=source,
                                 line=_json_line(text, "start", key=True))
    terminals = data.get("terminals", "")
    if isinstance(terminals, list) and all(isinstance(t, str) for t in terminals):
        terminals = "".join(terminals)
    if not isinstance(terminals, str):
        raise GrammarSyntaxError("'terminals' must be a string of letters", source=source,
                                 line=_json_line(text, "terminals", key=True))
    entries: list[tuple[str, str | list[Any], int | None]] = []
    rules_line = _json_line(text, "rules", key=True)
    for head, alts in rules.items():
        line = _json_line(text, head, after=rules_line, key=True)
        if isinstance(alts, str):
            alts = [alts]
        if not isinstance(alts, list) or not alts:
            raise GrammarSyntaxError(f"the alternatives of {head!r} must be a non-empty list",
                                     source=source, line=line)
        for alt in alts:
            if not isinstance(alt, (str, list)):
                raise GrammarSyntaxError(f"alternative {alt!r} of {head!r} must be a string or "
                                         "a list of symbols", source=source, line=line)
            entries.append((head, alt, _json_line(text, alt, after=line) or line))
    return _build(entries, start, "".join(terminals.split()), source,
                  _json_line(text, "start", key=True))


def _json_line(text: str, value: Any, after: int | None = None, *, key: bool = False
               ) -> int | None:
    """The line where the JSON literal ``value`` first appears (from line ``after`` on);
    with ``key``, only where it is an object key (followed by ``:``)."""
    needle = json.dumps(value, ensure_ascii=False)
    offset = 0
    if after:
        offset = sum(len(s) for s in text.splitlines(keepends=True)[: after - 1])
    if key:
        found = re.compile(re.escape(needle) + r"\s*:").search(text, offset)
        at = found.start() if found else -1
    else:
        at = text.find(needle, offset)
    if at < 0 and isinstance(value, list):  # pretty-printed lists: look for the first element
        return after
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def parse_grammar(text: str, *, source: str = "<string>") -> Grammar:
    """Parse either format: JSON when the text starts with ``{``, else the text format."""
    if text.lstrip().startswith("{"):
        return grammar_from_json(text, source=source)
    return grammar_from_text(text, source=source)


def read_text(path: str | PathLike[str], *, what: str = "file") -> str:
    """The UTF-8 text of an input file (``"-"``: standard input).

    Raises
    ------
    InputError
        Saying which file and why: missing, a directory, unreadable, not UTF-8.
    """
    if str(path) == "-":
        import sys

        return sys.stdin.read()
    name = repr(str(path))
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"cannot read {name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name} is a directory, not a {what}") from None
    except UnicodeDecodeError as e:
        raise InputError(f"{name} is not UTF-8 text ({e.reason})") from None
    except OSError as e:
        raise InputError(f"cannot read {name}: {e.strerror}") from None


def load_grammar(path: str | Path) -> Grammar:
    """Read a grammar file (``.json`` or the text format).

    Raises
    ------
    InputError
        The file is missing, unreadable or not UTF-8, or holds an invalid grammar.
    """
    path = Path(path)
    text = read_text(path, what="grammar file")
    if path.suffix.lower() == ".json":
        return grammar_from_json(text, source=str(path))
    return parse_grammar(text, source=str(path))


_SPECIAL = re.compile(r"[\s|#]|->|→")


def _token(symbol: str, grammar: Grammar) -> str:
    if _SPECIAL.search(symbol) or (not grammar.is_nonterminal(symbol)
                                   and symbol in EPSILON_SPELLINGS):
        raise GrammarError(f"symbol {symbol!r} cannot be written in the text format; use JSON")
    return symbol


def grammar_to_text(grammar: Grammar) -> str:
    """Write the text format; :func:`grammar_from_text` reads it back to an equal grammar."""
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
    """Write the JSON format (alternatives as spaced strings when unambiguous)."""
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
