"""Record MisereSolver's misère quotients as test data (issue 37 item 6).

Runs Aaron Siegel's MisereSolver — built by ``benchmarks/fetch_miseresolver.sh`` from
CGSuite's sources at a pinned commit, driven by ``benchmarks/miseresolver/Record.java``
— on each code of :data:`RECORDS` up to its heap bound, and writes
``tests/games/data/miseresolver.json``: per code the heap bound, the order, the size of
the P-portion, the solver's elements (words in its own generators), its generators'
actions, its P-portion, each heap's element, its printed presentation, the solver's
commit and the command line.  ``tests/games/test_miseresolver.py`` checks the library's
quotients against these records up to an isomorphism that maps each heap's element to
the heap's element.

    sh benchmarks/fetch_miseresolver.sh        # then export SDG_MISERESOLVER=…
    python -m benchmarks.record_miseresolver   # rewrites the data file

The bounds are the library's (docs/misere.md §5): a code whose quotient stays finite to
heap 100 is recorded at 100, a growing one where the library's order limit stops it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

#: the CGSuite commit fetch_miseresolver.sh builds
COMMIT = "e909ab8bc330e39bc837d26b22bc8a96f9fa512a"
#: (code, heap bound) recorded
RECORDS = [("0.77", 100), ("0.75", 100), ("0.31", 100), ("0.33", 100), ("0.52", 100),
           ("0.71", 100), ("0.07", 24), ("0.07", 33), ("0.137", 32), ("0.36", 21),
           ("0.106", 19), ("0.26", 20), ("0.26", 30), ("0.26", 54), ("0.3F", 11), ("0.4112", 16)]
DATA = Path(__file__).resolve().parent.parent / "tests" / "games" / "data" / "miseresolver.json"
_MAIN = "org.cgsuite.core.misere.solver.Record"


def record(classes: str, code: str, upto: int) -> dict[str, Any]:
    """MisereSolver's quotient of ``code``'s heaps 1..``upto``, with how it was made."""
    command = ["java", "-ea", "-cp", "$SDG_MISERESOLVER", _MAIN, code, str(upto)]
    out = subprocess.run([classes if a == "$SDG_MISERESOLVER" else a for a in command],
                         check=True, capture_output=True, text=True).stdout
    got: dict[str, Any] = json.loads(out)
    if got["code"] != code or got["maxheap"] != upto or len(got["heaps"]) != upto + 1:
        raise SystemExit(f"record_miseresolver: unexpected output for {code} {upto}")
    return {"commit": COMMIT, "command": " ".join(command), **got}


def main(argv: list[str] | None = None) -> int:
    """Record every code of :data:`RECORDS` (or those named in ``argv``)."""
    classes = os.environ.get("SDG_MISERESOLVER")
    if not classes:
        print("error: set SDG_MISERESOLVER (sh benchmarks/fetch_miseresolver.sh)",
              file=sys.stderr)
        return 2
    wanted = set(argv or [])
    rows = [record(classes, code, upto) for code, upto in RECORDS
            if not wanted or code in wanted]
    # one field a line: the long lists stay readable in a diff
    records = ",\n".join(
        "  {\n" + ",\n".join(f"   {json.dumps(k)}: {json.dumps(v)}" for k, v in row.items())
        + "\n  }" for row in rows)
    text = ('{\n "solver": "MisereSolver (CGSuite, org.cgsuite.core.misere.solver)",\n'
            f' "records": [\n{records}\n ]\n}}')
    json.loads(text)
    DATA.parent.mkdir(parents=True, exist_ok=True)
    tmp = DATA.with_suffix(".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(DATA)
    print(f"wrote {DATA} ({len(rows)} records)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
