"""The command line: ``check`` and ``grundy``, outputs and exit codes.

Expected Grundy numbers come from SPEC §2 (Example 3's tables list wᴿ, and
CSub's 𝒢(a) = 1, 𝒢(aa) = 2), never from running the code.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import run

ROOT = Path(__file__).resolve().parents[2]




def assert_input_error(code, out, err, *fragments):
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


# ---------------------------------------------------------------------------
# check


def test_check_text(capsys, examples_dir):
    path = examples_dir / "example3.txt"
    code, out, err = run(["check", path], capsys)
    assert code == 0 and err == ""
    assert out.splitlines()[0] == f"{path}: valid right-linear grammar"
    assert "start:        A" in out
    assert "nonterminals: A, B" in out
    assert "terminals:    a, b" in out
    assert "rules:        7" in out


def test_check_json(capsys, examples_dir):
    path = examples_dir / "csub.json"
    code, out, err = run(["check", path, "--json"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0]) == {"schema": "check/1", "grammar": str(path),
                                    "kind": "right-linear", "start": "A",
                                    "nonterminals": ["A"], "terminals": "ab", "rules": 6}


@pytest.mark.parametrize(("text", "kind"), [("A -> B a | a\nB -> b", "left-linear"),
                                            ("A -> a A b | a b", "linear"),
                                            ("A -> A A | a", "context-free")])
def test_check_kinds(capsys, tmp_path, text, kind):
    path = tmp_path / "g.txt"
    path.write_text(text, encoding="utf-8")
    code, out, _ = run(["check", path, "--json"], capsys)
    assert code == 0 and json.loads(out)["kind"] == kind


# ---------------------------------------------------------------------------
# grundy

# SPEC §2, Example 3 (wᴿ listed): a ∈ A_1, aa ∈ A_2, b ∈ A_0, baa ∈ A_2, ab ∈ B_0,
# b ∈ B_1, bb ∈ A_0 and B_1; a ∉ L(B)
EXAMPLE3_A = {"a": 1, "aa": 2, "b": 0, "aab": 2, "ba": 1, "abba": 0, "bb": 0}
EXAMPLE3_B = {"ba": 0, "b": 1, "bb": 1, "a": None, "ab": None}


@pytest.mark.parametrize("suffix", ["txt", "json"])
@pytest.mark.parametrize("method", ["auto", "dfa", "brute", "cyk", "naive"])
def test_grundy_example3(capsys, examples_dir, suffix, method):
    path = examples_dir / f"example3.{suffix}"
    for head, table in (("A", EXAMPLE3_A), ("B", EXAMPLE3_B)):
        code, out, err = run(["grundy", path, head, *table, "--method", method], capsys)
        assert code == 0 and err == ""
        expected = ["not a position" if v is None else str(v) for v in table.values()]
        assert out.splitlines() == expected


def test_grundy_csub(capsys, examples_dir):
    code, out, _ = run(["grundy", examples_dir / "csub.txt", "A", "a", "aa"], capsys)
    assert code == 0 and out == "1\n2\n"


def test_grundy_json_lines(capsys, examples_dir):
    code, out, err = run(["grundy", examples_dir / "example3.txt", "B", "ba", "a", "--json"],
                         capsys)
    assert code == 0 and err == ""
    head = '{"schema": "grundy/1", '
    assert out.splitlines() == [head + '"nonterminal": "B", "word": "ba", "grundy": 0}',
                                head + '"nonterminal": "B", "word": "a", "grundy": null}']
    code, out, _ = run(["grundy", examples_dir / "example3.txt", "A", "aab", "--json"], capsys)
    assert out == head + '"nonterminal": "A", "word": "aab", "grundy": 2}\n'


def test_words_from_file(capsys, tmp_path, examples_dir):
    words = tmp_path / "words.txt"
    words.write_text("a\n\n  aa \nb\n", encoding="utf-8")
    code, out, err = run(["grundy", examples_dir / "example3.txt", "A", "aab",
                          "--words-from", words], capsys)
    assert code == 0 and err == ""
    # arguments first, then one line per line of the file: a blank line is the empty
    # word, not a position, so the n-th answer is about the n-th line (issue 15)
    assert out.splitlines() == ["2", "1", "not a position", "2", "0"]
    words.write_bytes(b"\xef\xbb\xbfa\r\n\r\naa\x0cb\n")  # a BOM, CRLF, a form feed
    code, out, err = run(["grundy", examples_dir / "example3.txt", "A", "--words-from", words],
                         capsys)
    assert code == 0 and out.splitlines() == ["1", "not a position", "not a position"]
    assert "U+000C" not in err and "'\\x0c'" in err  # the form feed is a letter, not a line end


def test_words_from_stdin(capsys, monkeypatch, examples_dir):
    monkeypatch.setattr(sys, "stdin", io.StringIO("a\naa\n"))
    code, out, _ = run(["grundy", examples_dir / "csub.txt", "A", "--words-from", "-"], capsys)
    assert code == 0 and out == "1\n2\n"


def test_letters_outside_the_alphabet(capsys, examples_dir):
    code, out, err = run(["grundy", examples_dir / "example3.txt", "A", "abc", "a"], capsys)
    assert code == 0
    assert out.splitlines() == ["not a position", "1"]
    assert err.startswith("warning: ")
    assert "'c'" in err and "not a position" in err
    assert len(err.splitlines()) == 1


def test_position(capsys, examples_dir):
    # 𝒢_A(aab) = 2 (baa ∈ A_2), 𝒢_B(ba) = 0 (ab ∈ B_0): XOR 2
    code, out, err = run(["grundy", examples_dir / "example3.txt",
                          "--position", "A:aab", "B:ba"], capsys)
    assert code == 0 and err == ""
    assert out.splitlines() == ["A:aab\t2", "B:ba\t0", "xor\t2"]


def test_position_json_and_non_position(capsys, examples_dir):
    code, out, _ = run(["grundy", examples_dir / "example3.txt", "--json",
                        "--position", "A:a", "A:aa"], capsys)
    assert code == 0
    assert json.loads(out) == {"schema": "grundy/1",
                               "position": [{"nonterminal": "A", "word": "a", "grundy": 1},
                                            {"nonterminal": "A", "word": "aa", "grundy": 2}],
                               "grundy": 3}
    code, out, _ = run(["grundy", examples_dir / "example3.txt",
                        "--position", "A:aab", "B:a"], capsys)
    assert code == 0
    assert out.splitlines() == ["A:aab\t2", "B:a\tnot a position", "xor\tnot a position"]


def test_version(capsys):
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.startswith("sdg-automata ")


# ---------------------------------------------------------------------------
# bad input: exit 2, one `error:` line, no traceback


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_file(capsys, tmp_path):
    missing = tmp_path / "missing.txt"
    assert_input_error(*run(["grundy", missing, "A", "a"], capsys), "missing.txt",
                       "no such file")
    assert_input_error(*run(["check", missing], capsys), "missing.txt")


def test_directory(capsys, tmp_path):
    assert_input_error(*run(["check", tmp_path], capsys), str(tmp_path), "directory")


def test_non_utf8(capsys, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_bytes(b"A -> a | \xff\n")
    assert_input_error(*run(["check", path], capsys), "bad.txt", "UTF-8")


def test_invalid_json(capsys, tmp_path):
    path = _write(tmp_path, "g.json", '{\n  "rules": {\n    "A": ["a",]\n  }\n}\n')
    assert_input_error(*run(["check", path], capsys), f"{path}:3:", "invalid JSON", "column")


def test_unit_cycle(capsys, tmp_path):
    path = _write(tmp_path, "cyc.txt", "A -> B | a\nB -> C | b\nC -> A | c\n")
    assert_input_error(*run(["grundy", path, "A", "a"], capsys), f"{path}:3:",
                       "A -> B -> C -> A")


@pytest.mark.parametrize("rhs", ["ε", "epsilon", '""', "a |"])
def test_epsilon(capsys, tmp_path, rhs):
    path = _write(tmp_path, "eps.txt", f"A -> a A\n  | {rhs}\n")
    assert_input_error(*run(["check", path], capsys), f"{path}:2:", "ε")


def test_ambiguous_token(capsys, tmp_path):
    path = _write(tmp_path, "amb.txt", "A -> aaA | a\n")
    assert_input_error(*run(["check", path], capsys), f"{path}:1:", "a a A")


def test_unknown_nonterminal(capsys, examples_dir):
    assert_input_error(*run(["grundy", examples_dir / "example3.txt", "Z", "a"], capsys),
                       "'Z'", "A, B")
    assert_input_error(*run(["grundy", examples_dir / "example3.txt", "--position", "Z:a"],
                            capsys), "'Z'")


@pytest.mark.parametrize("argv", [
    ["grundy", "{ex3}", "A", "a", "--frobnicate"],
    ["grundy", "{ex3}", "A", "a", "--method", "fast"],
    ["frobnicate"],
    ["check"],
])
def test_bad_options(capsys, examples_dir, argv):
    argv = [a.replace("{ex3}", str(examples_dir / "example3.txt")) for a in argv]
    assert_input_error(*run(argv, capsys))


@pytest.mark.parametrize(("extra", "fragment"), [
    ([], "no words"),
    (["--position", "Aaab"], "NONTERMINAL:WORD"),
    (["--position", "A:a", "B:b", "--words-from", "x"], "--position"),
])
def test_usage_errors(capsys, examples_dir, extra, fragment):
    argv = ["grundy", examples_dir / "example3.txt"]
    if not extra or extra[0] != "--position":
        argv.append("A")
    assert_input_error(*run(argv + extra, capsys), fragment)


def test_missing_words_file(capsys, tmp_path, examples_dir):
    assert_input_error(*run(["grundy", examples_dir / "example3.txt", "A", "--words-from",
                             tmp_path / "nope.txt"], capsys), "nope.txt")


def test_dfa_on_context_free_grammar(capsys, tmp_path):
    path = _write(tmp_path, "cf.txt", "A -> A A | a\n")
    assert_input_error(*run(["grundy", path, "A", "aa", "--method", "dfa"], capsys),
                       "context-free")


# ---------------------------------------------------------------------------
# a real process


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_subprocess_run(examples_dir):
    proc = subprocess.run(
        [sys.executable, "-m", "sdg_automata", "grundy", str(examples_dir / "example3.txt"), "A",
         "a", "aa", "aab", "--json"],
        capture_output=True, text=True, env=_env(), timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert [json.loads(line)["grundy"] for line in proc.stdout.splitlines()] == [1, 2, 2]


def test_subprocess_error(tmp_path):
    path = _write(tmp_path, "cyc.txt", "A -> B | a\nB -> A | b\n")
    proc = subprocess.run([sys.executable, "-m", "sdg_automata", "check", str(path)],
                          capture_output=True, text=True, env=_env(), timeout=60, check=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: ") and len(proc.stderr.splitlines()) == 1
    assert "Traceback" not in proc.stderr and "A -> B -> A" in proc.stderr
