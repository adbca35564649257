#!/usr/bin/env bash
# Runs the to-do server under load with wrk, three times, and checks it from its own counts (GET /stats): as many
# request scopes made and ended as requests answered, no unit of work or database connection left open, no error
# answer, and resident memory flat from the second run to the third (the first warms the server up). Then the
# same load against the same routes wired by hand (`--wiring hand`), for the requests per second side by side.
# Loopback only.
#
#   Examples/TodoServer/Scripts/load.sh                  # 20,000 requests per run over 64 connections
#   REQUESTS=5000 CONNECTIONS=16 Examples/TodoServer/Scripts/load.sh
#   CONFIGURATION=release Examples/TodoServer/Scripts/load.sh
set -euo pipefail
cd "$(dirname "$0")/.."
requests="${REQUESTS:-20000}"
connections="${CONNECTIONS:-64}"
threads=2
configuration="${CONFIGURATION:-debug}"
# Growth of resident memory from the end of the second run to the end of the third that still counts as flat.
allowed_growth_kib="${ALLOWED_GROWTH_KIB:-8192}"

if ! command -v wrk > /dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq > /dev/null
    apt-get install -y -qq wrk > /dev/null
fi
swift build -c "$configuration" --product todo-server > /dev/null
server="$(swift build -c "$configuration" --show-bin-path)/todo-server"
# The database goes to memory (/dev/shm) where there is one: this checks the server's scopes and memory, not the
# disk, and a commit's fsync on a busy disk (CI builds beside it) can take long enough to stall every writer.
work="$(mktemp -d -p /dev/shm 2> /dev/null || mktemp -d)"
pid=""
trap '[[ -n "$pid" ]] && kill "$pid" 2> /dev/null; rm -rf "$work"' EXIT

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# Starts the server with the given wiring on a free loopback port; sets pid and url.
start() {
    local port
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    rm -f "$work/todos.sqlite"
    # glibc gives each thread that allocates an arena of its own (up to eight per core), each keeping its own
    # high-water mark: a server whose work moves between NIO's threads and the concurrency pool then grows for
    # several runs before it levels off, whatever it frees. Two arenas leave what the server itself keeps.
    MALLOC_ARENA_MAX=2 "$server" --hostname 127.0.0.1 --port "$port" --database "$work/todos.sqlite" \
        --log-level error --wiring "$1" > "$work/server-$1.log" 2>&1 &
    pid=$!
    url="http://127.0.0.1:$port"
    for _ in $(seq 1 100); do
        curl -sf "$url/stats" > /dev/null 2>&1 && break
        sleep 0.1
    done
    curl -sf "$url/stats" > /dev/null || { cat "$work/server-$1.log"; echo "the $1 server did not start"; exit 1; }
    curl -sf -X POST -H 'Content-Type: application/json' -d '{"title":"first"}' "$url/todos" > /dev/null
}

stop() {
    kill -TERM "$pid"
    wait "$pid" || true
    pid=""
}

# Requests the server has answered so far, by its own count.
answered() { curl -sf "$url/stats" | python3 -c 'import json, sys; print(json.load(sys.stdin)["requests"])'; }

# Runs one load of `requests` requests; sets `rate` to requests per second, and fails on error answers or socket
# errors. Each wrk thread stops sending after its share, but wrk itself only ends at its deadline, so the run is
# timed here: until the server has answered them all, then wrk is interrupted and prints its summary.
load() {
    local before start wrk_pid output
    before=$(answered)
    start=$(date +%s.%N)
    wrk -t "$threads" -c "$connections" -d 300s --timeout 10s -s Scripts/load-mix.lua "$url" \
        -- $((requests / threads)) > "$work/wrk.out" 2>&1 &
    wrk_pid=$!
    # The server does not count the polls of /stats themselves.
    while kill -0 "$wrk_pid" 2> /dev/null; do
        (($(answered) - before >= requests)) && break
        sleep 0.05
    done
    rate=$(python3 -c "import time; print(round($requests / (time.time() - $start)))")
    kill -INT "$wrk_pid" 2> /dev/null || fail "$1: wrk ended before the server had answered $requests requests"
    wait "$wrk_pid" || true
    output=$(cat "$work/wrk.out")
    if echo "$output" | grep -q "Non-2xx or 3xx responses"; then fail "$1: $(echo "$output" | grep Non-2xx)"; fi
    if echo "$output" | grep -q "Socket errors"; then fail "$1: $(echo "$output" | grep 'Socket errors')"; fi
    echo "$1: $requests requests answered at $rate requests/s (wrk: $(echo "$output" | grep -E 'requests in' | tr -s ' '))"
}

resident_kib() { awk '/VmRSS/ { print $2 }' "/proc/$pid/status"; }

# The counts must agree once in-flight requests (wrk stops with some on the wire) have been answered.
check_counts() {
    local stats
    sleep 1
    stats=$(curl -sf "$url/stats")
    python3 - "$1" "$stats" "$requests" << 'PY' || failures=$((failures + 1))
import json, sys
name, stats, requests = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3])
problems = []
if stats["requests"] < requests: problems.append(f"{stats['requests']} requests answered, fewer than {requests}")
if stats["scopesMade"] != stats["requests"]: problems.append(f"{stats['scopesMade']} scopes made for {stats['requests']} requests")
if stats["scopesEnded"] != stats["scopesMade"]: problems.append(f"{stats['scopesEnded']} scopes ended of {stats['scopesMade']} made")
if stats["unitsOfWorkOpen"] != 0: problems.append(f"{stats['unitsOfWorkOpen']} units of work left open")
if stats["unitsOfWorkEnded"] != stats["unitsOfWorkBegan"]: problems.append("units of work began and ended differ")
if stats["connectionLeased"] or stats["connectionWaiters"]: problems.append("the database connection is still in use")
if stats["serverErrors"]: problems.append(f"{stats['serverErrors']} answers with a 5xx status")
print(f"{name}: " + json.dumps(stats))
for problem in problems: print(f"FAIL: {name}: {problem}")
sys.exit(1 if problems else 0)
PY
}

echo "== Weft server ($configuration build): $requests requests over $connections connections, three times"
start weft
load "weft, first run"
weft_first=$rate
check_counts "weft after the first run"
# The first run warms the server up (allocator, caches, the database's pages); memory must then stay flat.
first_kib=$(resident_kib)
load "weft, second run"
weft_second=$rate
# Every run's requests are counted by then.
requests=$((requests * 2)) check_counts "weft after the second run"
second_kib=$(resident_kib)
load "weft, third run"
requests=$((requests * 3)) check_counts "weft after the third run"
third_kib=$(resident_kib)
stop
growth=$((third_kib - second_kib))
echo "resident memory: $first_kib KiB after the first run, $second_kib KiB after the second, $third_kib KiB after" \
    "the third ($growth KiB from the second)"
if ((growth > allowed_growth_kib)); then fail "resident memory grew by $growth KiB (allowed $allowed_growth_kib)"; fi

echo "== The same routes wired by hand, the same load"
start hand
load "hand, first run"
hand_first=$rate
load "hand, second run"
hand_second=$rate
requests=$((requests * 2)) check_counts "hand after both runs"
stop

echo
echo "| wiring | requests/s, first run | requests/s, second run |"
echo "|---|--:|--:|"
echo "| Weft scopes | $weft_first | $weft_second |"
echo "| by hand | $hand_first | $hand_second |"
python3 -c "print(f'Weft / hand (second runs): {$weft_second / $hand_second:.2f}')"
if ((failures > 0)); then echo "load: $failures check(s) failed"; exit 1; fi
echo "load: every check passed"
