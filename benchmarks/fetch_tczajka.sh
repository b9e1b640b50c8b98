#!/bin/sh
# Fetch and build tczajka/octal-games' C++ octal solver, the floor of the octal rows of
# benchmarks/bench_floor.py (issue 36).  Its code is not part of this repository (MIT
# licensed, Copyright (c) 2018 Tomek Czajka): this script clones it at a pinned commit
# into a cache directory and builds old/src/analyze_exec.cc there with the machine's C++
# compiler (-O2, as its own Makefile does).
#
#   sh benchmarks/fetch_tczajka.sh            # prints the line to export
#   export SDG_TCZAJKA=~/.cache/sdg_automata/tczajka/analyze
#   python -m benchmarks bench_floor
#
# One change is made to the copy, and only to a copy: the program stops at the first
# power of two where it proves a period; with OCTAL_NO_STOP set in its environment it
# goes on (the benchmark compares values per value to 2^24 of games it solves earlier,
# 0.16 and 0.56).  Unset, it is the author's program.  The change is a sed of one line,
# checked below.
#
# Environment: TCZAJKA_REPO (default https://github.com/tczajka/octal-games; a local
# clone or mirror works), TCZAJKA_CACHE (default $XDG_CACHE_HOME/sdg_automata/tczajka,
# else ~/.cache/sdg_automata/tczajka), CXX (default c++).
set -eu

COMMIT=57e893a908ed2c0b1b2baa0e83a5a2a7698316ec  # 2025-04-22, "main"; old/ unchanged since 2018
REPO=${TCZAJKA_REPO:-https://github.com/tczajka/octal-games}
CACHE=${TCZAJKA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sdg_automata/tczajka}
CXX=${CXX:-c++}

mkdir -p "$CACHE"
if [ ! -d "$CACHE/src/.git" ]; then
    rm -rf "$CACHE/src"
    git clone --quiet --no-checkout "$REPO" "$CACHE/src"
fi
git -C "$CACHE/src" -c advice.detachedHead=false checkout --quiet "$COMMIT"

src="$CACHE/src/old/src"
sed -e 's/if(check_period()) break;/if(!std::getenv("OCTAL_NO_STOP") \&\& check_period()) break;/' \
    -e 's/#include <iostream>/#include <iostream>\n#include <cstdlib>/' \
    "$src/analyze_exec.cc" > "$CACHE/analyze_exec.cc"
if ! grep -q 'OCTAL_NO_STOP' "$CACHE/analyze_exec.cc"; then
    echo "fetch_tczajka.sh: the source at $COMMIT is not the one expected (no check_period line)" >&2
    exit 1
fi
"$CXX" -O2 -std=c++11 -I"$src" -o "$CACHE/analyze" "$CACHE/analyze_exec.cc" \
    "$src/game.cc" "$src/hadamard.cc" "$src/game_util.cc"
"$CACHE/analyze" .77 | grep -q "Found period start=71 period=12" || {
    echo "fetch_tczajka.sh: the build does not solve Kayles (0.77) as published" >&2
    exit 1
}
echo "export SDG_TCZAJKA=$CACHE/analyze"
