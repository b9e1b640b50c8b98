"""The ``python -m sdg_automata`` and ``sdg-automata`` entry points."""

import gc
import sys


def run() -> None:
    """Load the command line, run it, and exit with its exit code.

    The cyclic garbage collector is off while the command line loads, and then told to
    leave alone what loading made (:func:`gc.freeze`): modules, classes and the parser
    live until the process exits anyway, yet every collection that loading triggers
    scans all of them and frees nothing — 21 M of the 283 M instructions of ``max
    examples/example3.json A 2`` (callgrind; ``benchmarks/bench_startup.py`` measures
    the CPU time).  Only this process-level entry does it, never :func:`.cli.main`: a
    library caller's objects are not frozen.
    """
    gc.disable()
    try:
        from .cli import main
    except KeyboardInterrupt:  # Ctrl-C while the command line loads: one line, not a traceback
        print("error: interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        gc.freeze()
        gc.enable()
    raise SystemExit(main())


if __name__ == "__main__":
    run()
