"""JSON input read safely: no duplicate keys, no unbounded nesting, lines for errors.

Both JSON inputs of the package, grammars (:mod:`sdg_automata.grammar.parse`) and game
graphs (:mod:`sdg_automata.games.impartial`), are read through :func:`load_json`,
so a file is refused for the same reasons, with the same words, whichever it
holds.  :func:`json_lines` finds where a value sits in the text; it runs only
when there is an error to report, so reading stays linear in the file.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

from ..errors import InputError, brief

__all__ = ["MAX_DEPTH", "json_lines", "load_json"]

#: Deepest nesting of arrays and objects accepted.  Grammars and game graphs
#: need 3 ({"rules": {"A": [["a", "A"]]}}); anything much deeper is a damaged
#: or hostile file, refused before the standard library's recursive decoder
#: would raise RecursionError on it.
MAX_DEPTH = 32

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+', re.S)
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]', re.S)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKET = re.compile(r"[\[\]{}]")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class _Duplicate(Exception):
    def __init__(self, key: str):
        self.key = key
        super().__init__(key)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
    return out


def _too_deep(text: str, limit: int) -> int | None:
    """The offset where nesting first exceeds ``limit``, or ``None`` (strings skipped)."""
    if text.count("[") + text.count("{") <= limit:  # the common small case
        return None
    # the depth after each bracket outside strings, at C speed: strings blanked, then a
    # running sum of +1/-1; the exact offset is searched only when the limit is passed
    brackets = _BRACKET.findall(_STRING.sub("", text))
    if max(accumulate(map(_STEP.__getitem__, brackets)), default=0) <= limit:
        return None
    depth = 0
    for m in _BRACKETS.finditer(text):
        c = m.group()[0]
        if c in "[{":
            depth += 1
            if depth > limit:
                return m.start()
        elif c in "]}":
            depth -= 1
    return None  # pragma: no cover - the running sum said otherwise


def load_json(text: str, *, source: str, error: type[InputError] = InputError,
              max_depth: int = MAX_DEPTH) -> Any:
    """Decode JSON ``text`` (a leading byte-order mark is ignored).

    Parameters
    ----------
    text:
        The JSON text.
    source:
        Where it came from, for error messages.
    error:
        The :class:`~sdg_automata.errors.InputError` subclass to raise.
    max_depth:
        The deepest nesting of arrays and objects accepted.

    Raises
    ------
    InputError
        (as ``error``) Invalid JSON, with line and column; a key repeated in
        one object (JSON parsers disagree on which value wins, so the file is
        ambiguous); nesting deeper than ``max_depth``; a number too long for
        Python to convert.
    """
    text = text.removeprefix("\ufeff")
    deep = _too_deep(text, max_depth)
    if deep is not None:
        line = text.count("\n", 0, deep) + 1
        column = deep - (text.rfind("\n", 0, deep) + 1) + 1
        raise error(f"JSON nested more than {max_depth} levels deep (column {column})",
                    source=source, line=line)
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as e:
        raise error(f"invalid JSON: {e.msg} (column {e.colno})", source=source,
                    line=e.lineno) from None
    except _Duplicate as e:
        raise error(f"duplicate key {brief(e.key)}", source=source,
                    line=json_lines(text).duplicate) from None
    except ValueError as e:  # a number of more than 4300 digits (int_max_str_digits)
        raise error(f"invalid JSON: {str(e).split(':')[0].lower()}", source=source) from None
    except RecursionError:  # pragma: no cover - _too_deep refuses such input first
        raise error("JSON nested too deeply", source=source) from None


class JsonLines(dict[tuple[Any, ...], int]):
    """Map from a path (keys and indices from the top) to the line where that value
    starts; an object member's path maps to the line of its key.

    Attributes
    ----------
    duplicate:
        The line of the first key repeated within one object, if any.
    """

    duplicate: int | None = None


def json_lines(text: str) -> JsonLines:
    """Where every value of JSON ``text`` starts, by path (see :class:`JsonLines`).

    Iterative and linear; meant for error messages, so it is run only when an
    error is reported.  Text that is not valid JSON gives a partial map.
    """
    lines = JsonLines()
    # one frame per open container: [is_object, current key or index, awaiting a key, keys seen]
    stack: list[list[Any]] = []
    line, at = 1, 0
    for m in _TOKEN.finditer(text):
        line += text.count("\n", at, m.start())
        at = m.start()
        tok = m.group()
        top = stack[-1] if stack else None
        if top is not None and top[0] and top[2] and tok[0] == '"':
            key = json.loads(tok)
            if key in top[3] and lines.duplicate is None:
                lines.duplicate = line
            top[3].add(key)
            top[1] = key
            lines.setdefault(tuple(f[1] for f in stack), line)
        elif tok in ("{", "["):
            lines.setdefault(tuple(f[1] for f in stack), line)
            stack.append([tok == "{", None if tok == "{" else 0, tok == "{", set()])
        elif tok in ("}", "]"):
            if stack:
                stack.pop()
        elif tok == ":":
            if top is not None:
                top[2] = False
        elif tok == ",":
            if top is not None:
                if top[0]:
                    top[2] = True
                else:
                    top[1] += 1
        else:
            lines.setdefault(tuple(f[1] for f in stack), line)
    return lines
