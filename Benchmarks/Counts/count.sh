#!/usr/bin/env bash
# Instruction counts per operation, Weft beside the same work written by hand, both compiled alike (release,
# cross-module, same sink), measured with valgrind's callgrind: for each scenario and side, the count of a
# run doing N operations minus the count of a run doing none (setup only), divided by N. Counts do not depend
# on the machine's load, so the same binary gives the same numbers.
#
#   Benchmarks/Counts/count.sh                 # every scenario, as a Markdown table
#   Benchmarks/Counts/count.sh transient graph # some of them
#   N=5000 Benchmarks/Counts/count.sh          # operations per run (default 2000)
set -euo pipefail
cd "$(dirname "$0")"
command -v valgrind >/dev/null || { echo "count.sh needs valgrind (apt-get install valgrind)"; exit 1; }
n="${N:-2000}"
swift build -c release --product weft-counts >/dev/null
binary="$(mktemp)"
trap 'rm -f "$binary"' EXIT
# valgrind 3.19 cannot read the DWARF 5 debug information Swift writes: measure a stripped copy.
cp "$(swift build -c release --show-bin-path)/weft-counts" "$binary"
strip -g "$binary"
chmod +x "$binary"

instructions() { # scenario side count
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$1" "$2" "$3" 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_operation() { # scenario side
    local none all
    none=$(instructions "$1" "$2" 0)
    all=$(instructions "$1" "$2" "$n")
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
