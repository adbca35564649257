#!/usr/bin/env bash
# Builds the benchmarks in release mode, measures every scenario for hand-written wiring, Weft and
# Swinject, and prints one Markdown table (see README.md). About 3 minutes on 2 cores once built.
#
# Times are taken in ROUNDS rounds (default 5) of the whole suite, 0.6 s per benchmark each; a
# ratio is the median of the rounds' ratios. On a shared machine the load changes over minutes,
# and within a round the three libraries of a scenario run seconds apart. Allocations are counted
# in one more, short pass, by a second build that links the malloc interposer: the timed build does
# not, since the interposer slows every allocation of every side (see Package.swift). Each build has
# a scratch path of its own (.build-time, .build-allocations): modules left in one by the other would
# make the benchmark library believe the interposer is there.
# Extra arguments go to the benchmark plugin, e.g. `Benchmarks/run.sh --filter '1-.*'`; set
# RESULTS=DIRECTORY to keep the raw histograms (`python3 Benchmarks/summarize.py DIRECTORY`).
set -euo pipefail

rounds="${ROUNDS:-5}"
if [[ -n "${RESULTS:-}" ]]; then
    # Keep the exported histograms there (summarize.py can read them again later).
    results="$(mkdir -p "$RESULTS" && cd "$RESULTS" && pwd)"
    rm -rf "$results"/time-* "$results"/allocations*
else
    results="$(mktemp -d)"
    trap 'rm -rf "$results"' EXIT
fi
cd "$(dirname "$0")"

# Runs the suite once, exporting its histograms to $results/$1; the plugin's chatter goes to a log
# that is shown only if the run fails. The build is the one in $scratch.
scratch=.build-time
run() {
    local into="$results/$1"
    shift
    mkdir -p "$into"
    if ! swift package --scratch-path "$scratch" --allow-writing-to-directory "$into" benchmark run \
        --format histogramEncoded --path "$into" --no-progress --quiet "$@" >"$into.log" 2>&1; then
        cat "$into.log"
        exit 1
    fi
}

# The Weft being measured: the working tree of the repository this script is in.
git -C .. describe --always --dirty >"$results/weft-revision.txt" 2>/dev/null || rm -f "$results/weft-revision.txt"

echo "== Building (release, without the malloc interposer)"
swift build -c release --scratch-path "$scratch"

for round in $(seq "$rounds"); do
    echo "== Times, round $round of $rounds"
    run "time-$round" "$@"
done
echo "== Allocations (a build with the malloc interposer)"
export WEFT_BENCHMARKS_COUNT_ALLOCATIONS=1
scratch=.build-allocations
swift build -c release --scratch-path "$scratch"
run allocations "$@"

echo
python3 summarize.py "$results"
