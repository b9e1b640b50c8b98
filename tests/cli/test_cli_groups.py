"""The table of command groups (``sdg_automata.cli.GROUPS``): each group module with the
commands it registers, so that a command line imports the one group it runs.

The table is written out (importing every group to learn its commands would cost the
start-up it saves); these tests hold it to what each group really registers, so it
cannot drift, and check that a parser built for one command knows that command's group
and that every other command line still sees every command.
"""

from __future__ import annotations

import importlib

import pytest

from sdg_automata import cli
from sdg_automata.cli.parser import Commands, Parser


def _registered(module: str) -> list[str]:
    """The commands the group ``module`` registers, in its order."""
    group = importlib.import_module(module, cli.__name__)
    sub = Parser(prog="t").add_subparsers(dest="command")
    group.register(sub)
    return list(sub.choices)


def _commands(parser: object) -> list[str]:
    sub = next(a for a in parser._actions if isinstance(a, Commands))  # type: ignore[attr-defined]
    return list(sub.choices)


@pytest.mark.parametrize("module", list(cli.GROUPS))
def test_each_group_registers_the_commands_the_table_lists(module: str) -> None:
    """Should list, for each group, exactly the commands it registers, in its order."""
    assert _registered(module) == list(cli.GROUPS[module])


def test_no_command_is_listed_twice() -> None:
    commands = [c for listed in cli.GROUPS.values() for c in listed]
    assert len(commands) == len(set(commands)), commands


def test_every_group_module_of_the_package_is_in_the_table() -> None:
    """Should miss no module of ``sdg_automata.cli`` that has a ``register`` function."""
    import pkgutil

    registering = set()
    for info in pkgutil.iter_modules(cli.__path__):
        module = importlib.import_module(f".{info.name}", cli.__name__)
        if callable(getattr(module, "register", None)):
            registering.add(f".{info.name}")
    assert registering == set(cli.GROUPS)


@pytest.mark.parametrize("module", list(cli.GROUPS))
def test_a_parser_for_one_command_knows_its_group(module: str) -> None:
    """Should give the parser of a command its own group's commands, in their order."""
    for command in cli.GROUPS[module]:
        assert _commands(cli.build_parser(lazy=True, command=command)) == list(cli.GROUPS[module])


@pytest.mark.parametrize("command", [None, "-h", "--help", "--version", "nope", "Max"])
def test_any_other_command_line_sees_every_command(command: str | None) -> None:
    """Should register every group for --help, --version, no command or an unknown one,
    in the table's order (what ``--help`` lists and an unknown command's error names)."""
    every = [c for listed in cli.GROUPS.values() for c in listed]
    assert _commands(cli.build_parser(lazy=True, command=command)) == every
    assert _commands(cli.build_parser()) == every


def test_a_command_runs_with_its_group_alone(capsys: pytest.CaptureFixture[str]) -> None:
    """Should run a command, refuse an unknown one listing every command, and print the
    whole list for --help."""
    assert cli.main(["check", "examples/example3.txt"]) == 0
    assert "valid right-linear grammar" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stopped:
        cli.main(["nope"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert all(f"'{c}'" in err for listed in cli.GROUPS.values() for c in listed), err
    with pytest.raises(SystemExit):
        cli.main(["max", "--help"])
    assert "--strategy" in capsys.readouterr().out
