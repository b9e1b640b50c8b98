"""Octal certificates: what an independent checker needs to accept a proven period.

:func:`write_certificate` writes a certified :class:`~sdg_automata.games.octal.period.OctalPeriod`
as a value file (:mod:`sdg_automata.games.octal.valuefile`, schema
``octal-certificate/1``): the code, the least preperiod and period, the values the
periodicity theorem needs and, when the sparse-space method was in use, the claim of
its mask.  :func:`sdg_automata.games.octal.verify.verify` checks it from the rules
alone (``docs/octal.md`` §7).
"""

from __future__ import annotations

from typing import Any

from ...errors import InputError, SdgBug
from . import valuefile as octal_file
from .period import OctalPeriod, theorem_values
from .rules import OctalGame
from .space import rare_heaps

__all__ = ["CERTIFICATE_RARE_LIST", "write_certificate"]

#: rare heaps listed in a certificate's header at most (past that only their number)
CERTIFICATE_RARE_LIST = 1 << 16
#: the certificate's statement of how many values the periodicity theorem needs, by the
#: most heaps a move leaves (2: octal codes; 3: hexadecimal codes with a digit 8–F)
_THEOREM = {2: "2*max(preperiod,1) + 2*period + t values",
            3: "3*preperiod + 3*period + t + 3 values"}


def write_certificate(result: OctalPeriod, path: str) -> dict[str, Any]:
    """Write the certificate of a certified ``result`` to ``path`` (atomically); its header.

    The file (:mod:`sdg_automata.games.octal.valuefile`, ``docs/octal.md`` §7) holds the code,
    the least preperiod n₀ and period p, the values 𝒢(0), …, 𝒢(N − 1) with
    N = 2·max(n₀, 1) + 2p + t (3n₀ + 3p + t + 3 for a hexadecimal code: what the
    periodicity theorem needs) and, when the
    sparse-space method was in use at the end of the run, its mask and the rare
    heaps among them (the claim :func:`sdg_automata.games.octal.verify.verify` re-counts
    and then uses to check each value quickly).
    """
    if result.preperiod is None or result.period is None:
        raise InputError(f"{result.code} has no proven period (checked to "
                         f"{result.checked_to}): there is nothing to certify")
    game = OctalGame.parse(result.code)
    count = theorem_values(result.preperiod, result.period, game.t, game.heaps)
    values = result.computed[:count]
    if len(values) < count:
        raise SdgBug(f"a certified period computed {len(values)} values of {count}")
    sparse: dict[str, Any] | None = None
    if result.sparse is not None:
        sp = result.sparse
        rare = rare_heaps(values, sp, max(1, int(values.max()).bit_length()))
        sparse = {"mask": sp.mask, "positional": sp.positional, "rare_parity": sp.rare_parity,
                  "rare": len(rare),
                  "rare_heaps": rare.tolist() if len(rare) <= CERTIFICATE_RARE_LIST else None}
    header = {"schema": octal_file.CERTIFICATE, "code": result.code,
              "preperiod": result.preperiod, "period": result.period,
              "theorem": _THEOREM[game.heaps], "sparse": sparse,
              "checked_to": result.checked_to, "generator": "sdg-automata"}
    octal_file.write(path, header, values)
    return header
