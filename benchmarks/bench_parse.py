"""Reading grammars: linear in the number of rules (issue 15).

Measured side by side in one run, for n = 10³, 10⁴ (and 10⁵ without
``--quick``) rules of the shape ``N_i -> a N_{i+1} | b | a b N_{7i mod n}``:

* the JSON and the text format, parsed and validated into a ``Grammar``;
* ``json.loads`` of the same JSON text alone: the floor no JSON reader beats;
* seconds per rule, and its growth from one size to the next (1.0 is linear;
  the first version was quadratic: 4,000 rules took 16 s, 10,000 five minutes).

``python -m benchmarks bench_parse [--quick]`` prints the table; ``run()``
returns the rows.
"""

from __future__ import annotations

import json
from typing import Any

from benchmarks.common import best_of, show
from sdg_automata.grammar.parse import grammar_from_json, grammar_from_text


def _texts(n: int) -> tuple[str, str]:
    rules = {f"N{i}": [f"a N{i + 1}", "b", f"a b N{i * 7 % n}"] for i in range(n)}
    rules[f"N{n}"] = ["a"]
    as_json = json.dumps({"rules": rules}, indent=2)
    as_text = "".join(f"{h} -> {' | '.join(alts)}\n" for h, alts in rules.items())
    return as_json, as_text


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure; one dict per size."""
    rows: list[dict[str, Any]] = []
    previous: dict[str, float] = {}
    for n in [10**3, 10**4] if quick else [10**3, 10**4, 10**5]:
        as_json, as_text = _texts(n)
        repeat = 3 if n <= 10**4 else 1
        loads_s, _ = best_of(lambda t=as_json: json.loads(t), repeat)
        json_s, g1 = best_of(lambda t=as_json: grammar_from_json(t), repeat)
        text_s, g2 = best_of(lambda t=as_text: grammar_from_text(t), repeat)
        assert g1 == g2 and len(g1.rules) == 3 * n + 1
        row: dict[str, Any] = {"rules": 3 * n + 1, "json_s": json_s, "text_s": text_s,
                               "json_loads_s": loads_s, "json_over_loads": json_s / loads_s}
        for key, secs in (("json", json_s), ("text", text_s)):
            per = secs / n
            row[f"{key}_per_rule_growth"] = per / previous[key] if key in previous else None
            previous[key] = per
        rows.append(row)
    show("Parsing and validating grammars (best of 3; 1 at 10⁵ rules)",
         ["rules", "JSON s", "text s", "json.loads s", "JSON / loads",
          "s/rule growth JSON", "s/rule growth text"],
         [[r["rules"], r["json_s"], r["text_s"], r["json_loads_s"], r["json_over_loads"],
           r["json_per_rule_growth"], r["text_per_rule_growth"]] for r in rows])
    return rows
