"""``python -m benchmarks``: run every benchmark and print its tables."""

from benchmarks.run import main

raise SystemExit(main())
