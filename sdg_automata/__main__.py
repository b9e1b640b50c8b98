"""The ``python -m sdg_automata`` entry point."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
