"""The command line's exit codes and its one ``error:`` line (the "Command line" page of the
documentation, "Exit codes").

The exit codes are a public promise (:class:`ExitCode`); :func:`fail` is how a
command stops on bad usage or bad input.
"""

from __future__ import annotations

import enum
import errno
import sys
from typing import NoReturn

__all__ = ["EPILOG", "NO_ROOM", "ExitCode", "fail"]


class ExitCode(enum.IntEnum):
    """Exit statuses of the command line (a public promise)."""

    #: success; for decision commands, the answer is "yes"
    OK = 0
    #: a decision command's answer is "no"
    NO = 1
    #: bad usage or bad input (file, grammar, word, option)
    INPUT_ERROR = 2
    #: a budget (--max-states, --max-seconds, memory) ran out, or no value could be proven
    BUDGET = 3
    #: an internal consistency check failed: a bug in sdg_automata (please report it)
    BUG = 4
    #: interrupted by Ctrl-C
    INTERRUPTED = 130
    #: terminated by SIGTERM (handled as Ctrl-C is: one line saying how far it got)
    TERMINATED = 143


EPILOG = """exit codes: 0 success / yes, 1 no, 2 usage or input error,
3 budget or resource limit (or value not provable), 4 internal error (a bug),
130 interrupted, 143 terminated (SIGTERM)"""


#: errno values of a write that failed for want of room (disk, quota, file size limit):
#: a resource limit, exit 3, not bad input
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def fail(message: str, code: int = ExitCode.INPUT_ERROR) -> NoReturn:
    """Print one ``error:`` line on stderr and exit with ``code``."""
    if sys.stderr is not None:
        print(f"error: {message}", file=sys.stderr)
    raise SystemExit(code)
