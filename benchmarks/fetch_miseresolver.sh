#!/bin/sh
# Fetch and build Aaron Siegel's MisereSolver, the program the published misère quotients
# (Plambeck-Siegel) were computed with, to compare sdg_automata's misère quotients with it
# (tests/games/data/miseresolver.json, benchmarks/record_miseresolver.py, issue 37).
#
#   sh benchmarks/fetch_miseresolver.sh          # prints the line to export
#   export SDG_MISERESOLVER=~/.cache/sdg_automata/miseresolver/classes
#   java -ea -cp "$SDG_MISERESOLVER" org.cgsuite.core.misere.solver.Record 0.77 100
#
# MisereSolver's Java source ships inside CGSuite (GPL v2 or later, Copyright (C) 2003-06
# Aaron Siegel), in lib/core/src/main/scala/org/cgsuite/core/misere/solver/; it is not
# part of this repository.  This script reads eight of its eleven files at a pinned
# commit, copies them into a cache directory and compiles them there with javac, beside
# two files of this repository (benchmarks/miseresolver/): HeapRuleset.java, the options
# of a heap of an octal or hexadecimal code (what MisereSolver takes from CGSuite's Scala
# HeapRuleset/TakeAndBreak), and Record.java, a driver that runs MisereSolver.next() to a
# heap bound and prints the quotient as JSON (in place of CommandLineInterface.java, which
# needs CGSuite's CGScript runtime; MsvLoader.java, its .msv file reader, is left out
# too).  The copy of MisereSolver.java is edited by sed, checked below: its CGSuite and
# Scala imports are removed, heapOptions calls HeapRuleset, and the constructor that
# reads an .msv file (through MsvLoader) is removed.  Nothing else is changed.
#
# Environment: CGSUITE_REPO (default https://github.com/aaron-siegel/cgsuite; a local git
# directory — a clone or a bare mirror — is read in place), MISERESOLVER_CACHE (default
# $XDG_CACHE_HOME/sdg_automata/miseresolver, else ~/.cache/sdg_automata/miseresolver),
# JAVAC (default javac), JAVA (default java).
set -eu

COMMIT=e909ab8bc330e39bc837d26b22bc8a96f9fa512a  # 2024-01-15, CGSuite "main"
REPO=${CGSUITE_REPO:-https://github.com/aaron-siegel/cgsuite}
CACHE=${MISERESOLVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sdg_automata/miseresolver}
JAVAC=${JAVAC:-javac}
JAVA=${JAVA:-java}
HERE=$(cd "$(dirname "$0")" && pwd)
SOLVER=lib/core/src/main/scala/org/cgsuite/core/misere/solver
FILES="BipartiteMonoid CommutativeMonoid DirectSumMonoid ExplicitFiniteMonoid MisereSolver
       Pretension Relation Word"

mkdir -p "$CACHE"
if [ -d "$REPO" ]; then
    GIT_DIR_OF=$REPO
else
    if [ ! -d "$CACHE/cgsuite.git" ]; then
        git clone --quiet --bare --filter=blob:none "$REPO" "$CACHE/cgsuite.git"
    fi
    GIT_DIR_OF=$CACHE/cgsuite.git
fi
git -C "$GIT_DIR_OF" cat-file -e "$COMMIT^{commit}" || {
    echo "fetch_miseresolver.sh: $REPO has no commit $COMMIT" >&2
    exit 1
}

src=$CACHE/src
rm -rf "$src" "$CACHE/classes"
mkdir -p "$src" "$CACHE/classes"
for f in $FILES; do
    git -C "$GIT_DIR_OF" show "$COMMIT:$SOLVER/$f.java" > "$src/$f.java"
done
git -C "$GIT_DIR_OF" show "$COMMIT:$SOLVER/MisereSolver.java" | sed \
    -e '/^import org\.cgsuite\./d' \
    -e '/^import scala\./d' \
    -e '/public List<int\[\]> heapOptions(int heapSize) {/,/^    }$/c\
    public List<int[]> heapOptions(int heapSize) { return rules.heapOptions(heapSize); }' \
    -e '/public MisereSolver(InputStream msvInputStream)/,/^    }$/d' \
    > "$src/MisereSolver.java"
# the edits took, and nothing of CGSuite's Scala side is left
if ! grep -q 'return rules.heapOptions(heapSize); }' "$src/MisereSolver.java" \
   || grep -q 'msvInputStream\|CollectionConverters\|import scala\|import org.cgsuite' \
        "$src/MisereSolver.java"; then
    echo "fetch_miseresolver.sh: MisereSolver.java at $COMMIT is not the one expected" >&2
    exit 1
fi
cp "$HERE/miseresolver/HeapRuleset.java" "$HERE/miseresolver/Record.java" "$src/"
"$JAVAC" -nowarn -encoding UTF-8 -d "$CACHE/classes" "$src"/*.java
# a smoke test: Kayles to heap 12, one element per heap 0..12
"$JAVA" -ea -cp "$CACHE/classes" org.cgsuite.core.misere.solver.Record 0.77 12 \
    | grep -q '"heaps": \[0\(, [0-9]*\)\{12\}\]' || {
    echo "fetch_miseresolver.sh: the build does not run Kayles (0.77) to heap 12" >&2
    exit 1
}
echo "export SDG_MISERESOLVER=$CACHE/classes"
