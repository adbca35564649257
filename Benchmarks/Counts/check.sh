#!/usr/bin/env bash
# Fails when a scenario of weft-counts costs Weft more instructions per operation than its committed baseline
# (Benchmarks/Counts/baseline.tsv) plus a headroom, 5% unless HEADROOM says otherwise or the scenario's row gives
# its own (a third column). Instruction counts do not depend on the machine's load, so this is a check that can
# fail on a slower path, not a timed assertion; the headroom covers what moves between runs of one binary
# (allocation addresses, a few instructions per operation, and, for a scenario whose work spans tasks on several
# threads, which thread's code path runs). Run by .ci/run.
#
#   Benchmarks/Counts/check.sh              # every scenario in the baseline
#   Benchmarks/Counts/check.sh scope graph  # some of them
#   Benchmarks/Counts/check.sh --update     # measure every scenario and rewrite the baseline's numbers
set -euo pipefail
cd "$(dirname "$0")"
n="${N:-2000}"
warm="${WARM:-20}"
headroom="${HEADROOM:-0.05}"
source ./measure.sh

per_operation() { # scenario
    local none all
    none=$(instructions "$1" weft "$warm")
    all=$(instructions "$1" weft $((warm + n)))
    echo $(((all - none) / n))
}

update=0
if [[ "${1:-}" == "--update" ]]; then
    update=1
    shift
fi
mapfile -t rows < <(grep -v '^#' baseline.tsv | grep .)
known=$("$binary" --list | cut -f1)
failed=0
updated=()
for row in "${rows[@]}"; do
    IFS=$'\t' read -r name baseline own <<< "$row"
    if [[ $# -gt 0 && ! " $* " =~ " $name " ]]; then
        updated+=("$row")
        continue
    fi
    if ! grep -qx "$name" <<< "$known"; then
        echo "FAIL  $name: in baseline.tsv but not a scenario of weft-counts"
        failed=1
        continue
    fi
    now=$(per_operation "$name")
    limit=$(python3 -c "import math; print(math.floor($baseline * (1 + ${own:-$headroom})))")
    change=$(python3 -c "print(f'{($now - $baseline) / $baseline * 100:+.1f}%')")
    if ((now > limit)); then
        echo "FAIL  $name: $now instructions per operation, baseline $baseline ($change), limit $limit"
        failed=1
    elif ((now * 10 < baseline * 9)); then
        echo "ok    $name: $now instructions per operation, baseline $baseline ($change): lower the baseline"
    else
        echo "ok    $name: $now instructions per operation, baseline $baseline ($change)"
    fi
    updated+=("$name"$'\t'"$now${own:+$'\t'$own}")
done
if [[ $# -eq 0 ]]; then
    while read -r name; do
        if ! grep -q "^$name"$'\t' baseline.tsv; then
            echo "FAIL  $name: a scenario of weft-counts with no baseline in baseline.tsv"
            failed=1
        fi
    done <<< "$known"
fi
if ((update)); then
    { grep '^#' baseline.tsv; printf '%s\n' "${updated[@]}"; } > baseline.tsv.new
    mv baseline.tsv.new baseline.tsv
    echo "baseline.tsv rewritten"
    exit 0
fi
exit "$failed"
