"""Octal games: Grundy sequences by the sparse-space method, periods proven, certificates checked.

One module per concept (``docs/octal.md`` has the mathematics):

* :mod:`~sdg_automata.games.octal.rules` — :class:`OctalGame`, the code ``0.d₁d₂…`` and
  its moves, and the unary grammar whose SDG it is (SPEC §2);
* :mod:`~sdg_automata.games.octal.space` — the sparse space (:class:`SparseSpace`): the
  mask that makes few values *rare*, detected from the values (§4);
* :mod:`~sdg_automata.games.octal.values` — the values 𝒢(0), …, 𝒢(N − 1): the
  definition (:func:`naive_values`), the full mex and the sparse-space method, in
  Python or by the compiled kernels of :mod:`sdg_automata.kernels.octal`;
* :mod:`~sdg_automata.games.octal.period` — periods proven by the octal periodicity
  theorem (Guy–Smith), made least (:class:`OctalPeriod`, §2–3);
* :mod:`~sdg_automata.games.octal.checkpoint` — a long run's values kept and resumed (§8);
* :mod:`~sdg_automata.games.octal.valuefile` — the file format of certificates and
  checkpoints, the only code the solver and the checker share;
* :mod:`~sdg_automata.games.octal.certificate` — writing a certificate of a proven
  period (:func:`write_certificate`, §7);
* :mod:`~sdg_automata.games.octal.verify` — the independent checker (§7), which
  loads neither the value engine nor the period search.

A survey of every code of a few digits runs on the sweep engine:
:mod:`sdg_automata.sweeps.octal`.

The names below load their module on first use (PEP 562), so that importing the
checker does not load the solver.

>>> from sdg_automata.games.octal import OctalGame
>>> game = OctalGame.parse("0.77")           # Kayles
>>> [int(v) for v in game.values(12)]
[0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6]
>>> p = game.period()
>>> p.preperiod, p.period, p.certified
(71, 12, True)

References
----------
.. [1] E. R. Berlekamp, J. H. Conway, R. K. Guy, *Winning Ways for your
   Mathematical Plays*, ch. 4 ("Take and break"), the periodicity theorem.
.. [2] R. K. Guy, C. A. B. Smith, "The G-values of various games", Proc.
   Cambridge Philos. Soc. 52 (1956) 514–526.
.. [3] A. Gangolli, T. Plambeck, "A note on periodicity in some octal games",
   Int. J. Game Theory 18 (1989) 311–320 (the rare/common split).
.. [4] A. Flammenkamp, "Octal games", https://wwwhomes.uni-bielefeld.de/achim/octal.html
   (the sparse space phenomenon; tables of results).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...runtime.lazy import lazy_names

if TYPE_CHECKING:
    from .certificate import write_certificate
    from .checkpoint import CHECKPOINT_SECONDS
    from .period import DEFAULT_MAX_N, JSON_VALUES, OctalPeriod
    from .rules import OctalGame
    from .space import SparseSpace
    from .values import COMPILED_FROM, Method, load_kernels, naive_values

__all__ = [
    "CHECKPOINT_SECONDS",
    "COMPILED_FROM",
    "DEFAULT_MAX_N",
    "JSON_VALUES",
    "Method",
    "OctalGame",
    "OctalPeriod",
    "SparseSpace",
    "load_kernels",
    "naive_values",
    "write_certificate",
]

#: each name of the package -> the module that defines it
_LAZY = {
    "OctalGame": "rules",
    "SparseSpace": "space",
    "COMPILED_FROM": "values", "Method": "values", "load_kernels": "values",
    "naive_values": "values",
    "DEFAULT_MAX_N": "period", "JSON_VALUES": "period", "OctalPeriod": "period",
    "CHECKPOINT_SECONDS": "checkpoint",
    "write_certificate": "certificate",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY)
