"""The default size limits of misère computations, in a module of their own so that the
command line reads them without loading the solver (numpy)."""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_ORDER"]

#: the largest quotient built by default (its tables are order × letters, its proofs about
#: order² work)
DEFAULT_MAX_ORDER = 4096
