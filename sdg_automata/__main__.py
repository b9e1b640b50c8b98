"""The ``python -m sdg_automata`` entry point."""

import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while the command line loads: one line, not a traceback
    print("error: interrupted", file=sys.stderr)
    raise SystemExit(130) from None

if __name__ == "__main__":
    raise SystemExit(main())
