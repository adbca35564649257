#!/usr/bin/env bash
# Instruction counts per operation, Weft beside the same work written by hand, both compiled alike (release,
# cross-module, same sink), measured with valgrind's callgrind: for each scenario and side, the count of a
# run doing N operations minus the count of a run doing none (setup only), divided by N. Counts do not depend
# on the machine's load, so the same binary gives the same numbers. Both runs first do WARM operations (default
# 20) as part of their setup: what happens once per process (the dynamic linker binding a symbol, the runtime
# filling its conformance and type caches on a first cast) is no operation's cost, and left in the N-operation
# run alone it would be divided among the N operations.
#
#   Benchmarks/Counts/count.sh                 # every scenario, as a Markdown table
#   Benchmarks/Counts/count.sh transient graph # some of them
#   N=5000 Benchmarks/Counts/count.sh          # operations per run (default 2000)
#   WARM=0 Benchmarks/Counts/count.sh          # no warm-up: first-use costs divided among the N operations
set -euo pipefail
cd "$(dirname "$0")"
n="${N:-2000}"
warm="${WARM:-20}"
source ./measure.sh

per_operation() { # scenario side
    local none all
    none=$(instructions "$1" "$2" "$warm")
    all=$(instructions "$1" "$2" $((warm + n)))
    echo $(((all - none) / n))
}

if [[ $# -gt 0 ]]; then names=("$@"); else mapfile -t names < <("$binary" --list | cut -f1); fi
echo "| scenario | hand-written | Weft | Weft / hand |"
echo "|---|--:|--:|--:|"
for name in "${names[@]}"; do
    hand=$(per_operation "$name" hand)
    weft=$(per_operation "$name" weft)
    ratio=$(python3 -c "print(f'{$weft / max($hand, 1):.2f}x')")
    echo "| $name | $hand | $weft | $ratio |"
done
