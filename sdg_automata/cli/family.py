"""``family``: instances with an independently known answer (SPEC §5, §7)."""

from __future__ import annotations

import argparse
import sys

from ..errors import InputError
from ..grammar import Grammar
from .arguments import positive
from .exits import ExitCode
from .parser import Commands, Parser
from .writing import add_output, output

__all__ = ["EXAMPLES", "register"]

#: example command lines of this group's commands (``--help`` ends with them; a test runs them)
EXAMPLES = {
    "family": ("sdg-automata family modular 3:1 5:2 7:3 -o mod.json && "
               "sdg-automata max mod.json A",),
    "family modular": ("sdg-automata family modular 3:1 5:2 7:3 -o mod.json",),
    "family random": ("sdg-automata family random --dfas 3 --states 4 --seed 7",),
    "family intersection": ("sdg-automata family intersection --dfas 4 --states 6 --length 12 "
                            "-o planted.json && sdg-automata max planted.json A 4 "
                            "--strategy sat",),
    "family subtraction": ("sdg-automata family subtraction 1,3,4 -o s134.txt",),
    "family ring": ("sdg-automata family ring 10 -o ring10.json && "
                    "sdg-automata max ring10.json A --strategy pdr",),
    "family counting": ("sdg-automata family counting 24 -o c24.json && "
                        "sdg-automata max c24.json A --strategy pdr",
                        "sdg-automata family counting 12 --length 26 -o c12.json && "
                        "sdg-automata max c12.json A --strategy pdr"),
}


def _add_family(p: Parser) -> None:
    p.description = (
        "Write a grammar whose Max-Grundy answer is known without the automaton "
        "(JSON or text, to stdout or -o FILE) and print that ground truth on "
        "stderr. modular: the SPEC §5 reduction on the unary DFAs of aⁿ with "
        "n ≡ R (mod P) and n even, answered by the Chinese remainder theorem; "
        "random: the same reduction on random binary DFAs, answered by "
        "automata-lib products; intersection: the same on random DFAs sharing a "
        "planted word, so max 𝒢(A) = COUNT; ring: the same on COUNT ring DFAs with an "
        "empty intersection, so max 𝒢(A) = COUNT − 1, which k-induction never proves and "
        "PDR does; counting: the same on COUNT DFAs counting a's modulo twice the odd "
        "primes, with an empty intersection or a shortest common word a^LENGTH; "
        "subtraction: A → aᵏA | aᵏ for k ∈ S (SPEC §7).")
    kinds = p.add_subparsers(dest="family", metavar="FAMILY")
    kinds.required = True
    kinds.command("modular", _add_modular,
                  help="unary DFAs n ≡ R (mod P), n even; ground truth by the CRT")
    kinds.command("random", _add_random,
                  help="random binary DFAs (made even-length); ground truth by products")
    kinds.command("intersection", _add_intersection,
                  help="random DFAs sharing a planted word; max 𝒢(A) = COUNT")
    kinds.command("ring", _add_ring,
                  help="ring DFAs with an empty intersection; max 𝒢(A) = COUNT − 1")
    kinds.command("counting", _add_counting,
                  help="DFAs counting a's modulo 2·p; max 𝒢(A) = COUNT − 1, or COUNT with a "
                       "shortest witness a^LENGTH")
    kinds.command("subtraction", _add_subtraction,
                  help="A → aᵏA | aᵏ for k ∈ S (the subtraction game when 1 ∈ S)")


def _add_modular(m: Parser) -> None:
    m.description = ("D_i accepts aⁿ with n ≡ R_i (mod P_i) and n even; max 𝒢(A) is the "
                     "largest j whose first j congruences have a common solution.")
    m.add_argument("specs", metavar="P:R", nargs="+",
                   help="modulus and residue of one DFA, e.g. 5:2 (0 ≤ R < P)")
    m.set_defaults(func=_cmd_family_modular)
    _add_grammar_output(m)


def _add_random(r: Parser) -> None:
    r.description = ("COUNT random DFAs on N states over {a, b}, each crossed with the "
                     "even-length DFA; max 𝒢(A) is the largest j with "
                     "L(D_1) ∩ … ∩ L(D_j) ∖ {ε} ≠ ∅.")
    _add_random_dfas(r, count=3, states=6)
    r.set_defaults(func=_cmd_family_random)
    _add_grammar_output(r)


def _add_intersection(i: Parser) -> None:
    i.description = ("COUNT random DFAs on N states over LETTERS, each accepting exactly the "
                     "words that end where a random planted word of LENGTH letters ends (then "
                     "crossed with the even-length DFA): the planted word is in every L(D_i), "
                     "so max 𝒢(A) = COUNT without any product. Explicit search runs out long "
                     "before SAT does on these (max --strategy sat).")
    _add_random_dfas(i, count=8, states=10)
    i.add_argument("--letters", default="abc", metavar="LETTERS",
                   help="the alphabet, one character per letter (default abc)")
    i.add_argument("--length", type=positive, default=30, metavar="LENGTH",
                   help="length of the planted word, even (default 30)")
    i.set_defaults(func=_cmd_family_intersection)
    _add_grammar_output(i)


def _add_ring(r: Parser) -> None:
    r.description = ("COUNT DFAs over {a, b}: D_i counts the a's modulo the i-th odd prime "
                     "(3, 5, 7, …) and accepts a count ≡ 0 at even lengths, and the last one "
                     "counts modulo 3 and accepts a count ≡ 1. The first COUNT − 1 accept bb, "
                     "all COUNT accept nothing: max 𝒢(A) = COUNT − 1. The states where the "
                     "two mod-3 rings disagree loop among themselves, so k-induction (max "
                     "--strategy sat) never proves it; PDR (--strategy pdr) does.")
    r.add_argument("count", metavar="COUNT", type=positive, help="how many DFAs (at least 2)")
    r.set_defaults(func=_cmd_family_ring)
    _add_grammar_output(r)


def _add_counting(c: Parser) -> None:
    c.description = ("COUNT DFAs over {a, b}: D_i counts the a's modulo 2·p_i (p_i the i-th "
                     "odd prime: 3, 5, 7, …; a ring of 2·p_i states), at even lengths. "
                     "Without --length: D_1 … D_{COUNT−1} accept a count ≡ 0 (even counts), "
                     "D_COUNT every odd count, so the intersection is empty and max 𝒢(A) = "
                     "COUNT − 1 (witness bb). With --length N: every D_i accepts a count "
                     "≡ N (mod 2·p_i), so by the Chinese remainder theorem a^N is the "
                     "shortest common word and max 𝒢(A) = COUNT (+ NOISE). --noise adds "
                     "random DFAs on --states states accepting exactly the words that end "
                     "where a^N ends: the witness stays a^N, the product explicit search "
                     "walks grows.")
    c.add_argument("count", metavar="COUNT", type=positive, help="how many rings (at least 2)")
    c.add_argument("--length", type=positive, metavar="N",
                   help="the length of the common word a^N (even); default: no common word")
    c.add_argument("--noise", type=positive, metavar="M",
                   help="add M random DFAs accepting a^N (with --length)")
    c.add_argument("--states", type=positive, default=10, metavar="S",
                   help="states of each noise DFA before the even-length product (default 10)")
    c.add_argument("--seed", type=int, default=0, help="random seed of the noise (default 0)")
    c.set_defaults(func=_cmd_family_counting)
    _add_grammar_output(c)


def _add_subtraction(s: Parser) -> None:
    s.description = "The unary grammar of the subtraction game with set S (SPEC §7)."
    s.add_argument("subtraction", metavar="S", help="comma-separated positive integers, e.g. 1,3,4")
    s.set_defaults(func=_cmd_family_subtraction)
    _add_grammar_output(s)


def _add_grammar_output(q: Parser) -> None:
    add_output(q)
    q.add_argument("--format", choices=["json", "text"], default=None,
                   help="grammar format (default: text when -o names a .txt file, else json)")


def _add_random_dfas(p: argparse.ArgumentParser, *, count: int, states: int) -> None:
    """``--dfas``, ``--states`` and ``--seed`` of a family of random DFAs."""
    p.add_argument("--dfas", type=positive, default=count, metavar="COUNT",
                   help=f"how many DFAs (default {count})")
    p.add_argument("--states", type=positive, default=states, metavar="N",
                   help=f"states of each random DFA before the even-length product "
                        f"(default {states})")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def _write_grammar(g: Grammar, args: argparse.Namespace) -> None:
    from ..grammar.parse import grammar_to_json, grammar_to_text

    fmt = args.format
    if fmt is None:  # the file's suffix decides, so `-o s134.txt` holds the text format
        fmt = "text" if str(args.output or "").lower().endswith(".txt") else "json"
    output(args, grammar_to_json(g) if fmt == "json" else grammar_to_text(g))


def _cmd_family_modular(args: argparse.Namespace) -> int:
    from ..generators.families import ModularSpec, modular_family, modular_truth

    specs = [ModularSpec.parse(text) for text in args.specs]
    g = modular_family(specs)  # InputError when no D_i accepts a non-empty word
    best, length = modular_truth(specs)
    _write_grammar(g, args)
    if best:
        detail = f", shortest witness a^{length}"
    else:
        first = specs[0]
        detail = f" (no even n ≡ {first.residue} mod {first.modulus}: D1 is empty)"
    print(f"ground truth (CRT): max 𝒢(A) = {best}{detail}", file=sys.stderr)
    return ExitCode.OK


def _cmd_family_random(args: argparse.Namespace) -> int:
    from ..generators.families import intersection_grammar, product_truth, random_family

    dfas = random_family(args.dfas, args.states, seed=args.seed)
    g = intersection_grammar(dfas)  # InputError when every language is ⊆ {ε}
    best, length = product_truth(dfas)
    detail = f", shortest witness length {length}" if best else ""
    print(f"ground truth (automata-lib products): max 𝒢(A) = {best}{detail}", file=sys.stderr)
    _write_grammar(g, args)
    return ExitCode.OK


def _cmd_family_intersection(args: argparse.Namespace) -> int:
    from ..errors import brief
    from ..generators.families import intersection_grammar, planted_intersection

    dfas, word = planted_intersection(args.dfas, args.states, length=args.length,
                                      seed=args.seed, alphabet=args.letters)
    g = intersection_grammar(dfas)
    _write_grammar(g, args)
    print(f"ground truth (planted word): max 𝒢(A) = {args.dfas}; every DFA accepts "
          f"{brief(word, 80)} (length {len(word)}), a shortest witness may be shorter",
          file=sys.stderr)
    return ExitCode.OK


def _cmd_family_ring(args: argparse.Namespace) -> int:
    from ..generators.families import intersection_grammar, ring_intersection

    g = intersection_grammar(ring_intersection(args.count))  # InputError below 2 DFAs
    _write_grammar(g, args)
    print(f"ground truth (residues): max 𝒢(A) = {args.count - 1}, shortest witness bb; "
          f"no word is in all {args.count} languages", file=sys.stderr)
    return ExitCode.OK


def _cmd_family_counting(args: argparse.Namespace) -> int:
    from ..generators.families import counting_intersection, counting_truth, intersection_grammar

    noise = args.noise or 0
    dfas = counting_intersection(args.count, length=args.length, noise=noise,
                                 states=args.states, seed=args.seed)
    _write_grammar(intersection_grammar(dfas), args)
    best, shortest = counting_truth(args.count, length=args.length, noise=noise)
    if args.length is None:
        print(f"ground truth (residues): max 𝒢(A) = {best}, shortest witness bb; D1 accepts "
              f"even counts only, D{args.count} odd ones: no word is in all {args.count} "
              "languages", file=sys.stderr)
    else:
        print(f"ground truth (Chinese remainder theorem): max 𝒢(A) = {best}, shortest "
              f"witness a^{shortest} (every common word has at least {shortest} a's)",
              file=sys.stderr)
    return ExitCode.OK


def _cmd_family_subtraction(args: argparse.Namespace) -> int:
    from ..generators.families import subtraction_grammar

    try:
        ks = [int(part) for part in args.subtraction.split(",")]
    except ValueError:
        raise InputError(f"{args.subtraction!r} is not a comma-separated list of positive "
                         "integers (e.g. 1,3,4)") from None
    g = subtraction_grammar(ks)  # InputError for an empty S or k < 1
    _write_grammar(g, args)
    shown = "{" + ", ".join(map(str, sorted(set(ks)))) + "}"
    if 1 in ks:
        print(f"note: 1 ∈ S, so 𝒢(A, aⁿ) is the Grundy value of n in the subtraction game "
              f"with S = {shown}", file=sys.stderr)
    else:
        print(f"note: 1 ∉ S: lengths outside the numerical semigroup generated by {shown} are "
              "not positions and no move lands on them, so values differ from the classic "
              "subtraction game (SPEC §7)", file=sys.stderr)
    return ExitCode.OK


def register(sub: Commands) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    sub.command("family", _add_family,
                help="write an instance with an independently known answer")
