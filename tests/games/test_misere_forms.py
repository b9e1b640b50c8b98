"""Misère canonical forms and genus (issue 37 §4, §6) against CGSuite and the definitions.

Golden strings: CGSuite's own test suite (``MisereCanonicalGameTestCase.scala`` and
``GameHeapTest.scala`` in aaron-siegel/cgsuite).  Definitions, written here on raw game
trees (a game is the tuple of its options), sharing nothing with the library:

* misère outcome of a sum: the player to move wins iff some move leads to a loss, or
  there is no move at all;
* G⁻(G) = 1 for a game with no move, else the mex of its options' G⁻;
* genus: γₙ = G⁻(G + n copies of *2);
* equal canonical forms ⇒ the same misère outcome beside every test game; different
  forms ⇒ some small game tells them apart (Conway: simplest forms are unique).
"""

from __future__ import annotations

import functools
import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdg_automata.games.misere.canonical import (
    MisereGame,
    graph_forms,
    heap_forms,
    misere_form,
    nim_heap,
)
from sdg_automata.games.misere.genus import genus_of
from sdg_automata.games.misere.phylum import Phylum, phylum_of

Raw = tuple  # a raw game: the sorted tuple of its options (raw games)


def L(*options: MisereGame) -> MisereGame:
    return misere_form(options)


n = nim_heap

#: (game, CGSuite's form, birthday, genus, misère nim value, nim value, outcome)
CGSUITE_CASES = [
    (lambda: n(0), "*[0]", 0, "0", 1, 0, "N"),
    (lambda: n(1), "*[1]", 1, "1", 0, 1, "P"),
    (lambda: n(2), "*[2]", 2, "2", 2, 2, "N"),
    (lambda: L(n(2)), "*[2#]", 3, "0^0", 0, 0, "P"),
    (lambda: L(L(n(2))), "*[2##]", 4, "1^1", 1, 1, "N"),
    (lambda: n(2) + n(2), "*[2[2]]", 4, "0^0", 0, 0, "P"),
    (lambda: L(n(2) + L(n(2))), "*[2[#2#]]", 6, "0^0", 0, 0, "P"),
    (lambda: L(L(n(2)), n(0)), "*[2#0]", 4, "1^2", 2, 1, "N"),
    (lambda: L(L(n(2)), n(1)), "*[2#1]", 4, "2^1420", 1, 2, "N"),
    (lambda: L(n(4) + n(2)), "*[4[2#]]", 7, "0^0", 0, 0, "P"),
    (lambda: L(L(L(n(2))), L(L(n(2)), n(1))), "*[(2#1)2##]", 5, "0^0", 0, 0, "P"),
    (lambda: L(L(L(n(2))), L(L(L(n(2)), n(0)), n(0), n(1))), "*[((2#0)10)2##]", 6, "0^0", 0, 0,
     "P"),
    # a wild game of tame genus: written in full, although 0^1 has the same sequence
    (lambda: L(L(L(n(2)), n(1)) + n(1), L(L(n(2)), L(n(2)) + n(1), L(L(n(2)), n(0)))),
     "*[((2#0)2[#1]2#)(2#1)[1]]", 6, "0^120", 1, 0, "N"),
    (lambda: L(L(L(n(2)), n(2), n(0)), L(L(n(2)), n(3)), n(1)), "*[(2#20)2[#1]1]", 5, "0^2", 2,
     0, "N"),
]


@pytest.mark.parametrize("case", CGSUITE_CASES, ids=[c[1] for c in CGSUITE_CASES])
def test_cgsuites_test_cases(case: tuple[object, ...]) -> None:
    make, form, birthday, genus, minus, plus, outcome = case
    g = make()  # type: ignore[operator]
    assert str(g) == form
    assert (g.birthday, g.misere_nim_value, g.nim_value, g.outcome) == (birthday, minus, plus,
                                                                        outcome)
    assert genus_of(g).ascii == genus


#: CGSuite's columns IsNimHeap, IsTame, IsGenerallyTame, IsRestive, IsGenerallyRestive,
#: IsRestless, IsHalfTame of the same test cases (MisereCanonicalGameTestCase.scala)
CGSUITE_PHYLA = {
    "*[0]": "TTTFFFF", "*[1]": "TTTFFFF", "*[2]": "TTTFFFF", "*[2#]": "FTTFFFF",
    "*[2##]": "FTTFFFF", "*[2[2]]": "FTTFFFF", "*[2[#2#]]": "FTTFFFF", "*[2#0]": "FFFTTFT",
    "*[2#1]": "FFFFFTF", "*[4[2#]]": "FTTFFFF", "*[(2#1)2##]": "FFTFFFF",
    "*[((2#0)10)2##]": "FFTFFFF", "*[((2#0)2[#1]2#)(2#1)[1]]": "FFFFFFF",
    "*[(2#20)2[#1]1]": "FFFFTFT",
}


@pytest.mark.parametrize("case", CGSUITE_CASES, ids=[c[1] for c in CGSUITE_CASES])
def test_phyla_are_cgsuites(case: tuple[object, ...]) -> None:
    g = case[0]()  # type: ignore[operator]
    p, double = phylum_of(g), phylum_of(g + g)
    half_tame = not p.tame and double.tame and (g + g).nim_value == (g + g).misere_nim_value == 0
    flags = (p is Phylum.NIM_HEAP, p.hereditarily_tame, p.tame, p is Phylum.HEREDITARILY_RESTIVE,
             p.restive, p is Phylum.RESTLESS, half_tame)
    assert "".join("TF"[not f] for f in flags) == CGSUITE_PHYLA[str(g)]
    assert phylum_of(g + n(1)) is p  # G and G + * share their phylum


def test_the_wild_game_of_tame_genus_is_written_in_full() -> None:
    g = L(L(L(n(2)), n(1)) + n(1), L(L(n(2)), L(n(2)) + n(1), L(L(n(2)), n(0))))
    genus = genus_of(g)
    assert genus.sequence(6) == [1, 2, 0, 2, 0, 2] == genus_of(n(0)).sequence(6)  # 0^1's
    assert (genus.ascii, genus.text, genus.phylum) == ("0^120", "0¹²⁰", Phylum.WILD)


def test_grundys_game_22_is_cgsuites() -> None:
    # Grundy's game: split a heap into two unequal heaps (CGSuite, GameHeapTest)
    forms = [n(0)]
    for h in range(1, 23):
        forms.append(misere_form([forms[a] + forms[h - a] for a in range(1, (h + 1) // 2)]))
    assert str(forms[22]) == ("*[(((2[2]21)[2](2[2]21)20)(2[2]21)3)((2[2]21)[2](2[2]21)20)"
                              "(2[2]21)[1]2[2]1]")
    # GameHeapTest: [GrundysGame(n).Genus for n from 0 to 20]
    assert ",".join(genus_of(f).ascii for f in forms[:21]) == (
        "0,0,0,1,0,2,1,0,2,1,0,2,1,3^1431,2,1,3^1431,2,4^0564,3^1431,0^20")


def test_genus_sequences_of_0312_are_plambecks() -> None:
    # Plambeck's page on misère 0.312 (plambeck.org/oldhtml/mathematics/games/misere/
    # quaternary/0312/index.htm) writes each genus with more terms than needed: heaps 1–6
    # are 1^{03131}, 2^{20}, 0^{02}, 2^{1420}, 0^{02}, 1^{13}, and the heap of 4 twice,
    # A + A, is 0^{1202}
    published = ["1^03131", "2^20", "0^02", "2^1420", "0^02", "1^13"]
    forms = heap_forms("0.312", 6)
    for heap, symbol in enumerate(published, 1):
        g, terms = symbol.split("^")
        genus = genus_of(forms[heap])
        assert (genus.g, genus.sequence(len(terms))) == (int(g), [int(c) for c in terms]), heap
    twice = genus_of(forms[4] + forms[4])
    assert (twice.g, twice.sequence(4), twice.ascii) == (0, [1, 2, 0, 2], "0^120")


def test_wythoff_row_10_genus_is_cgsuites() -> None:
    # GameHeapTest: [Wythoff((10,n)).Genus for n from 0 to 20]: one term of two digits
    # in parentheses, and reversibly tame positions written g^γ₀
    @functools.cache
    def wythoff(a: int, b: int) -> MisereGame:
        return L(*[wythoff(x, b) for x in range(a)], *[wythoff(a, y) for y in range(b)],
                 *[wythoff(a - k, b - k) for k in range(1, min(a, b) + 1)])

    assert ",".join(genus_of(wythoff(10, b)).ascii for b in range(21)) == (
        "10,11,9,8^8,13^(13),12^(12),0^0,15^(15),16^(16),17^(17),14^(14),18^(18),7^7,6^6,"
        "2^2,3^3,1^1,4^4,5^5,23^(23),28^(28)")


#: CGSuite, GameHeapTest: [R(n).Genus for n from 0 to 20]
CGSUITE_GENUS = {
    "0.77": "0,1,2,3,1,4^146,3,2^2,1^1,4^046,2^2,6^46,4^046,1^1,2^2,7^57,1^13,4^64,3^31,2^20,"
            "1^031",
    "0.07": "0,0,1,1,2,0,3,1,1,0,3^1431,3,2^0520,2,4^146,0,5^057,2^0520,2,3^1431,3",
    "0.3F": "0,1,2,0,1,2,3^1431,4^0564,5^46,3^1431,4^0564,5^4875,6^(1,9,10,8),7^075,8^6875,"
            "6^(1,9,10,8),7^075,8^(6,10,8),9^(1,9,12,11,9),10^(0,11,13,9,11),11^(6,10,8)",
    "0.0330003": "0,0,1,1,2,0,0,1,1,2,0,0,1,1,2,0,0,1,1,2,0",
}
#: CGSuite, GameHeapTest: [R(n).MisereNimValue for n from 0 to 20]
CGSUITE_MISERE = {
    "0.77": [1, 0, 2, 3, 0, 1, 3, 2, 1, 0, 2, 4, 0, 1, 2, 5, 1, 6, 3, 2, 0],
    "0.07": [1, 1, 0, 0, 2, 1, 3, 0, 0, 1, 1, 3, 0, 2, 1, 1, 0, 0, 2, 1, 3],
    "0.3F": [1, 0, 2, 1, 0, 2, 1, 0, 4, 1, 0, 4, 1, 0, 6, 1, 0, 6, 1, 0, 6],
    "0.0330003": [1, 1, 0, 0, 2, 1, 1, 0, 0, 2, 1, 1, 0, 0, 2, 1, 1, 0, 0, 2, 1],
}


def _cgsuite_sequence(genus: str, length: int) -> tuple[int, list[int]]:
    """CGSuite's genus string expanded: g and γ₀ … (a single term continues as a nim heap
    or a tame or restive genus does; more terms alternate the last two)."""
    base, _, sup = genus.partition("^")
    g = int(base)
    terms = [int(t) for t in sup.strip("()").split(",")] if "," in sup else [int(c) for c in sup]
    if not terms:  # a nim heap: 0 and 1 swap their misère values
        first = 1 - g if g < 2 else g
        c = g
        return g, [first] + [c ^ (2 if i % 2 else 0) for i in range(1, length)]
    if len(terms) == 1:
        c = g if g == terms[0] or (g < 2 and terms[0] < 2) else terms[0]
        return g, terms + [c ^ (2 if i % 2 else 0) for i in range(1, length)]
    return g, [terms[i] if i < len(terms) else terms[len(terms) - 2 + (i - len(terms)) % 2]
               for i in range(length)]


@pytest.mark.parametrize("code", sorted(CGSUITE_GENUS))
def test_heaps_genus_and_misere_values_are_cgsuites(code: str) -> None:
    forms = heap_forms(code, 20)
    assert [f.misere_nim_value for f in forms] == CGSUITE_MISERE[code]
    wanted = re.findall(r"\d+(?:\^(?:\([0-9,]+\)|\d+))?", CGSUITE_GENUS[code])
    assert len(wanted) == 21
    assert [genus_of(form).ascii for form in forms] == wanted  # written as CGSuite writes
    for heap, (form, genus) in enumerate(zip(forms, wanted, strict=True)):
        g, sequence = _cgsuite_sequence(genus, 8)
        ours = genus_of(form)
        assert (ours.g, ours.sequence(8)) == (g, sequence), (code, heap)


# -- the definitions, on raw game trees ------------------------------------------------------


def raw(options: list[Raw]) -> Raw:
    return tuple(sorted(set(options)))


RAW_STAR2 = raw([raw([]), raw([raw([])])])


@functools.cache
def raw_wins(position: tuple[Raw, ...]) -> bool:
    """Misère: the player to move wins the sum of ``position``."""
    some = False
    for i, game in enumerate(position):
        for option in game:
            some = True
            if not raw_wins(tuple(sorted(position[:i] + (option,) + position[i + 1:]))):
                return True
    return not some


@functools.cache
def raw_minus(position: tuple[Raw, ...]) -> int:
    """G⁻ of the sum ``position`` from the definition."""
    options = {raw_minus(tuple(sorted(position[:i] + (o,) + position[i + 1:])))
               for i, game in enumerate(position) for o in game}
    if not options:
        return 1
    v = 0
    while v in options:
        v += 1
    return v


def form_of(game: Raw) -> MisereGame:
    return misere_form([form_of(o) for o in game])


def raw_games(depth: int) -> st.SearchStrategy[Raw]:
    if depth == 0:
        return st.just(raw([]))
    return st.lists(raw_games(depth - 1), max_size=3).map(raw)


#: small test games X (every game of birthday ≤ 2, and a few more)
def _pool() -> list[Raw]:
    day0 = [raw([])]
    day1 = [raw(list(c)) for k in range(2) for c in itertools.combinations(day0, k)]
    day2 = [raw(list(c)) for k in range(len(day1) + 1) for c in itertools.combinations(day1, k)]
    return sorted(set(day2 + [RAW_STAR2, raw([RAW_STAR2])]))


POOL = _pool()


@settings(max_examples=120)
@given(raw_games(3))
def test_a_form_is_equal_to_its_game(game: Raw) -> None:
    form = form_of(game)
    # the form, as a raw tree, beside every pool game: the game's outcome
    rebuilt = to_raw(form)
    for x in POOL:
        for y in POOL[:6]:
            assert raw_wins(tuple(sorted((game, x, y)))) == raw_wins(tuple(sorted((rebuilt, x, y))))
    assert form.misere_nim_value == raw_minus((game,))
    assert form.nim_value == normal_value(game)
    genus = genus_of(form)
    for k in range(4):
        assert genus.gamma(k) == raw_minus(tuple(sorted((game,) + (RAW_STAR2,) * k))), k


@settings(max_examples=80)
@given(raw_games(3), raw_games(3))
def test_different_forms_are_told_apart(a: Raw, b: Raw) -> None:
    fa, fb = form_of(a), form_of(b)
    separated = any(raw_wins(tuple(sorted((a, x)))) != raw_wins(tuple(sorted((b, x))))
                    for x in POOL + [to_raw(fa), to_raw(fb)])
    if fa == fb:
        assert not separated
    elif fa.birthday <= 2 and fb.birthday <= 2:
        assert separated, (str(fa), str(fb))
    assert fa + fb == form_of(raw_sum(a, b))  # the sum of forms is the form of the sum
    assert (fa + fb).outcome == ("N" if raw_wins(tuple(sorted((a, b)))) else "P")


@functools.cache
def raw_sum(a: Raw, b: Raw) -> Raw:
    return raw([raw_sum(x, b) for x in a] + [raw_sum(a, y) for y in b])


def to_raw(form: MisereGame) -> Raw:
    return raw([to_raw(o) for o in form.options])


@functools.cache
def normal_value(game: Raw) -> int:
    seen = {normal_value(o) for o in game}
    v = 0
    while v in seen:
        v += 1
    return v


def test_graph_positions_have_forms() -> None:
    forms = graph_forms({"a": ["b", "c", "d"], "b": ["d", "e"], "c": ["e"], "d": ["t"],
                         "e": ["d", "t"]})
    assert {p: str(f) for p, f in forms.items()} == {
        "a": "*[2]", "b": "*[0]", "c": "*[2#]", "d": "*[1]", "e": "*[2]", "t": "*[0]"}
    assert genus_of(forms["c"]).text == "0⁰" and genus_of(forms["a"]).text == "2"


# -- the genus symbol against the definition --------------------------------------------


def raw_gamma(game: Raw, k: int) -> int:
    """γₖ of ``game`` from the definition: G⁻ of the game plus k copies of *2."""
    return raw_minus(tuple(sorted((game,) + (RAW_STAR2,) * k)))


#: a tame genus g^γ₀ -> a nim position of that genus (Conway's tame genera)
def tame_representative(g: int, gamma0: int) -> tuple[Raw, ...]:
    if g >= 2:
        return (nim(g),)
    return {(0, 1): (), (1, 0): (nim(1),), (0, 0): (nim(2), nim(2)),
            (1, 1): (nim(2), nim(3))}[(g, gamma0)]


@functools.cache
def nim(size: int) -> Raw:
    return raw([nim(i) for i in range(size)])


#: games one move above the CGSuite test cases, nim heaps and their sums with *: every
#: phylum occurs (small random trees are nearly all nim heaps and tame)
SEEDS = sorted({nim(i) for i in range(4)} | {to_raw(c[0]()) for c in CGSUITE_CASES}  # type: ignore[operator]
               | {raw_sum(nim(1), to_raw(c[0]())) for c in CGSUITE_CASES})  # type: ignore[operator]
GAMES = st.one_of(raw_games(3), st.lists(st.sampled_from(SEEDS), min_size=1, max_size=3).map(raw))


@settings(max_examples=80, deadline=None)
@given(GAMES)
def test_the_written_genus_is_the_definitions_sequence(game: Raw) -> None:
    form = form_of(game)
    genus, phylum = genus_of(form), phylum_of(form)
    length = max(len(genus.gammas) + 4, 8)
    truth = [raw_gamma(game, k) for k in range(length)]
    assert genus.sequence(length) == truth
    assert genus.g == normal_value(game)
    if phylum.one_term_genus:  # tame or restive: g^γ₀, or g for a nim heap
        assert len(genus.gammas) == 1 and (genus.ascii == str(genus.g)) == form.is_nim_heap
    else:  # every term up to the alternating pair, at least two
        k = len(genus.gammas)
        assert k >= 2 and (k == 2 or truth[k - 1] != truth[k - 3])
        assert all(truth[i] == truth[i - 2] for i in range(k, length))
        assert genus.ascii == f"{genus.g}^" + "".join(map(str, truth[:k]))


@settings(max_examples=80, deadline=None)
@given(GAMES)
def test_a_tame_game_plays_as_the_nim_position_of_its_genus(game: Raw) -> None:
    # Conway: a (generally) tame game acts like a nim position in sums with nim heaps
    form = form_of(game)
    if not phylum_of(form).tame:
        return
    g, gamma0 = form.nim_value, form.misere_nim_value
    twin = tame_representative(g, gamma0)
    for heaps in itertools.combinations_with_replacement(range(4), 2):
        extra = tuple(nim(h) for h in heaps)
        assert raw_wins(tuple(sorted((game,) + extra))) == raw_wins(tuple(sorted(twin + extra)))
