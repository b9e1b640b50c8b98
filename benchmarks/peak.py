"""``python -m benchmarks.peak MODULE ARGS...``: run MODULE as ``__main__`` and report its
peak resident memory (VmHWM, which starts afresh at exec, unlike ``ru_maxrss`` of a child
forked from a large parent) on the last line of stderr as ``PEAK_KB n``."""

import runpy
import sys


def _report() -> None:
    with open("/proc/self/status", encoding="ascii") as f:
        peak = next(line.split()[1] for line in f if line.startswith("VmHWM:"))
    print(f"PEAK_KB {peak}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    module, sys.argv = sys.argv[1], sys.argv[1:]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    finally:
        _report()
