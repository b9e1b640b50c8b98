"""Grammar enumeration once per isomorphism class, against brute force.

The brute force here shares nothing with :mod:`sdg_automata.generators.enumeration`
but the rules of the game: it writes out every grammar of the size as rule
sets over named symbols, keeps those that :class:`Grammar` accepts and whose
nonterminals all derive a word, and groups them by trying every renaming
explicitly (letters permuted, nonterminals other than N0 permuted).
"""

from __future__ import annotations

import itertools

import pytest

from sdg_automata.derivation.semantics import naive_grundy
from sdg_automata.errors import InputError, UnitCycleError
from sdg_automata.generators.enumeration import GrammarShape, count_classes, grammar_classes
from sdg_automata.grammar import Grammar, Rule

RuleSet = frozenset[tuple[str, tuple[str, ...]]]


def all_grammars(n: int, letters: str, max_rules: int, max_body: int,
                 unit: bool) -> list[RuleSet]:
    names = [f"N{i}" for i in range(n)]
    words = [w for k in range(max_body + 1) for w in itertools.product(letters, repeat=k)]
    out = []
    per_head = []
    for h in names:
        bodies = [w + t for w in words for t in [()] + [(x,) for x in names]
                  if (w or t) and (w or unit) and (w or t != (h,))]
        per_head.append([frozenset((h, b) for b in c) for r in range(1, max_rules + 1)
                         for c in itertools.combinations(bodies, r)])
    for choice in itertools.product(*per_head):
        rules = frozenset().union(*choice)
        try:
            Grammar(rules=[Rule(h, b) for h, b in sorted(rules)], start="N0")
        except UnitCycleError:
            continue
        if productive(rules) == set(names):
            out.append(rules)
    return out


def productive(rules: RuleSet) -> set[str]:
    heads = {h for h, _ in rules}
    done: set[str] = set()
    while True:
        more = {h for h, b in rules if all(s not in heads or s in done for s in b)}
        if more <= done:
            return done
        done |= more


def renamed(rules: RuleSet, mapping: dict[str, str]) -> RuleSet:
    return frozenset((mapping.get(h, h), tuple(mapping.get(s, s) for s in b)) for h, b in rules)


def isomorphic(g: RuleSet, h: RuleSet, n: int, letters: str) -> bool:
    """Some renaming maps g onto h: tried one by one."""
    for sigma in itertools.permutations(letters):
        for pi in itertools.permutations([f"N{i}" for i in range(1, n)]):
            mapping = dict(zip(letters, sigma, strict=True))
            mapping.update(zip([f"N{i}" for i in range(1, n)], pi, strict=True))
            if renamed(g, mapping) == h:
                return True
    return False


def classes_by_brute_force(n: int, letters: str, r: int, body: int, unit: bool) -> list[RuleSet]:
    reps: list[RuleSet] = []
    for g in all_grammars(n, letters, r, body, unit):
        if not any(isomorphic(g, rep, n, letters) for rep in reps):
            reps.append(g)
    return reps


SIZES = [
    (1, "ab", 2, 1, False), (1, "ab", 2, 2, False), (1, "abc", 2, 1, False),
    (2, "ab", 1, 1, False), (2, "ab", 1, 2, False), (2, "ab", 2, 1, False),
    (2, "a", 2, 2, True), (2, "ab", 1, 1, True), (3, "a", 1, 2, False), (3, "ab", 1, 1, True),
    (2, "abc", 1, 1, False),
]


@pytest.mark.parametrize(("n", "letters", "r", "body", "unit"), SIZES)
def test_one_grammar_per_class(n: int, letters: str, r: int, body: int, unit: bool) -> None:
    """Should yield exactly one grammar of every class the brute force finds."""
    shape = GrammarShape(nonterminals=n, letters=letters, max_rules=r, max_body=body,
                         unit_rules=unit)
    ours = [frozenset(shape.rules(c)) for c in grammar_classes(shape)]
    reps = classes_by_brute_force(n, letters, r, body, unit)
    assert len(ours) == len(reps) == count_classes(shape)
    for rep in reps:  # every class is hit exactly once
        assert sum(isomorphic(rep, g, n, letters) for g in ours) == 1
    codes = list(grammar_classes(shape))
    assert codes == sorted(codes)


def test_canonical_form_is_least_code() -> None:
    """Should pick the member of least code: for one class, compare with all renamings."""
    shape = GrammarShape(nonterminals=2, letters="ab", max_rules=2, max_body=1)
    for code in itertools.islice(grammar_classes(shape), 0, None, 7):
        for sigma, pi in shape.renamings:
            mapping = {shape.letters[i]: shape.letters[j] for i, j in enumerate(sigma)}
            mapping.update({f"N{i}": f"N{j}" for i, j in enumerate(pi)})
            image = renamed(frozenset(shape.rules(code)), mapping)
            other = tuple(shape._set_index[tuple(sorted(
                shape.bodies.index((tuple(shape.letters.index(c) for c in b if c.islower()),
                                    int(b[-1][1:]) if b and b[-1].startswith("N") else -1))
                for h2, b in image if h2 == f"N{h}"))] for h in range(2))
            assert code <= other


def test_grammars_are_valid_and_right_linear() -> None:
    shape = GrammarShape(nonterminals=2, letters="ab", max_rules=2, max_body=2, unit_rules=True)
    for code in itertools.islice(grammar_classes(shape), 200):
        g = shape.grammar(code)
        assert g.is_right_linear and g.nonterminals == ("N0", "N1") and g.terminals == ("a", "b")
        # every nonterminal derives something: it has a position of some length <= 4
        for head in g.nonterminals:
            assert any(naive_grundy(g, head, "".join(w)) is not None
                       for k in range(1, 5) for w in itertools.product("ab", repeat=k))


@pytest.mark.parametrize("bad", [
    {"nonterminals": 0}, {"letters": ""}, {"letters": "aa"}, {"letters": "aB"},
    {"max_rules": -1}, {"max_body": True},
])
def test_bad_shapes(bad: dict[str, object]) -> None:
    args: dict[str, object] = {"nonterminals": 1, "letters": "ab", "max_rules": 1, "max_body": 1}
    args.update(bad)
    with pytest.raises(InputError):
        GrammarShape(**args)  # type: ignore[arg-type]
