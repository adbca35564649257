# Sourced by count.sh and linear.sh: builds weft-counts (release) and defines `instructions SCENARIO SIDE COUNT`,
# the instructions callgrind counts for one run. Expects to run in Benchmarks/Counts.
command -v valgrind >/dev/null || { echo "$(basename "$0") needs valgrind (apt-get install valgrind)"; exit 1; }
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
