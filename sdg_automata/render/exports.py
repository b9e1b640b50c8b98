"""Exchange formats of automata-lib DFAs: automata-lib's JSON, JFLAP's ``.jff`` and
regular expressions.

* :func:`dfa_to_json` / :func:`dfa_from_json` — automata-lib's constructor shape;
* :func:`dfa_to_jff` — JFLAP's ``.jff`` XML, for teaching tools;
* :func:`dfa_to_regex` — a regular expression in automata-lib's syntax.

Only the standard library is imported here; automata-lib is loaded by the
functions that need it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import BudgetExceeded, InputError
from .tables import Labeler, _order

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

__all__ = ["REGEX_STATE_LIMIT", "dfa_from_json", "dfa_to_jff", "dfa_to_json", "dfa_to_regex"]


def dfa_to_json(d: DFA, *, label: Labeler | None = None) -> str:
    """automata-lib's constructor shape, read back by :func:`dfa_from_json`.

    JSON object keys are strings, so states are written as strings (``label``,
    by default ``str``).  JSON has no sets either, so ``DFA(**json.loads(text))``
    is refused by automata-lib (it freezes the lists into tuples); use
    :func:`dfa_from_json`, or make ``states``, ``input_symbols`` and
    ``final_states`` sets first.  The DFA read back is ``d`` with its states
    renamed to those strings: the same transitions, initial and final states.

    >>> from sdg_automata import dfa, load_grammar
    >>> d = dfa(load_grammar("examples/example3.txt"), "A", 0)
    >>> e = dfa_from_json(dfa_to_json(d))
    >>> e == d, sorted(e.states) == sorted(map(str, d.states)), dict(e.transitions["0"])
    (True, True, {'a': '1', 'b': '2'})
    """
    name: Labeler = label or (lambda s: s if isinstance(s, str) else str(s))
    obj: Mapping[str, Any] = {
        "states": [name(s) for s in _order(d)],
        "input_symbols": sorted(d.input_symbols),
        "transitions": {name(s): {a: name(t) for a, t in sorted(d.transitions.get(s, {}).items())}
                        for s in _order(d)},
        "initial_state": name(d.initial_state),
        "final_states": [name(s) for s in _order(d) if s in d.final_states],
        "allow_partial": any(len(d.transitions.get(s, {})) < len(d.input_symbols)
                             for s in d.states),
    }
    return json.dumps(obj, ensure_ascii=False, indent=1) + "\n"


def dfa_from_json(text: str, *, source: str = "<string>") -> DFA:
    """The DFA written by :func:`dfa_to_json` (automata-lib's constructor shape),
    with its lists made sets; its inverse up to state names (states are strings).

    Raises
    ------
    InputError
        For invalid JSON, a missing key or an automaton automata-lib refuses, at ``source``.
    """
    from automata.base.exceptions import AutomatonException
    from automata.fa.dfa import DFA

    from ..grammar.jsontext import load_json

    # the one JSON reader of the package: duplicate keys, deep nesting and huge numbers
    # are refused as for grammars and game graphs
    data = load_json(text, source=source)
    try:
        return DFA(
            states=frozenset(data["states"]),
            input_symbols=frozenset(data["input_symbols"]),
            transitions={s: dict(t) for s, t in data["transitions"].items()},
            initial_state=data["initial_state"],
            final_states=frozenset(data["final_states"]),
            allow_partial=bool(data.get("allow_partial", True)),
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise InputError(f"not a DFA in automata-lib's constructor shape (states, input_symbols, "
                         f"transitions, initial_state, final_states): {e!r}",
                         source=source) from None
    except AutomatonException as e:
        raise InputError(f"invalid DFA: {e} (a DFA file holds one target per state and letter; "
                         "an NFA is taken from Python, as an automata-lib NFA)",
                         source=source) from None


def dfa_to_jff(d: DFA, *, label: Labeler | None = None) -> str:
    """JFLAP's ``.jff`` XML (``<type>fa</type>``), for teaching tools.

    States are ``q0``, ``q1``, … in the order of :func:`dfa_to_table` (``q0``
    initial), laid out on a grid; ``label`` (e.g. the item sets) goes into
    JFLAP's per-state ``<label>``.  A partial DFA simply has fewer
    ``<transition>`` elements, which JFLAP reads as rejection.
    """
    from xml.etree import ElementTree  # only here: keeps `import render` light

    root = ElementTree.Element("structure")
    ElementTree.SubElement(root, "type").text = "fa"
    automaton = ElementTree.SubElement(root, "automaton")
    order = _order(d)
    ids = {s: k for k, s in enumerate(order)}
    cols = max(1, math.ceil(math.sqrt(len(order))))
    for s, k in ids.items():
        state = ElementTree.SubElement(automaton, "state", id=str(k), name=f"q{k}")
        ElementTree.SubElement(state, "x").text = f"{80.0 + 160.0 * (k % cols):.1f}"
        ElementTree.SubElement(state, "y").text = f"{80.0 + 120.0 * (k // cols):.1f}"
        if label is not None:
            ElementTree.SubElement(state, "label").text = label(s)
        if s == d.initial_state:
            ElementTree.SubElement(state, "initial")
        if s in d.final_states:
            ElementTree.SubElement(state, "final")
    for s in order:
        for a, t in sorted(d.transitions.get(s, {}).items()):
            tr = ElementTree.SubElement(automaton, "transition")
            ElementTree.SubElement(tr, "from").text = str(ids[s])
            ElementTree.SubElement(tr, "to").text = str(ids[t])
            ElementTree.SubElement(tr, "read").text = a
    ElementTree.indent(root)
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>'
            "<!--Created with sdg_automata.-->\n" + ElementTree.tostring(root, encoding="unicode")
            + "\n")


# ---------------------------------------------------------------------------
# regular expressions

#: the largest DFA :func:`dfa_to_regex` converts by default: state elimination
#: grows the expression exponentially (about 1 MB at 50 states of a random DFA)
REGEX_STATE_LIMIT = 50

def dfa_to_regex(d: DFA, *, limit: int | None = REGEX_STATE_LIMIT) -> str | None:
    """A regular expression in automata-lib's syntax for L(d), or ``None`` when it is empty.

    By state elimination (automata-lib's ``GNFA.from_dfa(d).to_regex()``),
    whose output can grow exponentially with the states: minimize first.
    ``NFA.from_regex(r, input_symbols=...)`` reads the result back.

    Raises
    ------
    BudgetExceeded
        When ``d`` has more than ``limit`` states.
    InputError
        When a letter is one of automata-lib's regular-expression operators.
    """
    from automata.fa.gnfa import GNFA
    from automata.regex.parser import RESERVED_CHARACTERS  # the one set: automata-lib's

    if limit is not None and len(d.states) > limit:
        raise BudgetExceeded(f"the DFA has {len(d.states)} states; regular expressions by "
                             f"state elimination grow exponentially, so at most {limit} states "
                             "are taken (--max-dfa-states raises that limit)",
                             explored=len(d.states))
    bad = sorted(a for a in d.input_symbols
                 if len(a) != 1 or a in RESERVED_CHARACTERS or a == "\\")
    if bad:
        raise InputError(f"letter(s) {', '.join(map(repr, bad))} cannot be written in "
                         "automata-lib's regular-expression syntax")
    machine = d  # bound to a name: automata-lib's cached queries fail on temporaries
    if machine.isempty():
        return None
    regex = GNFA.from_dfa(machine).to_regex()
    assert isinstance(regex, str)
    return regex

