#!/usr/bin/env bash
# Checks, with instruction counts (deterministic, unlike timings), that what must grow linearly does:
#   - resolving a wide graph costs the same per service at 20,000 services as at 1,000 (graph scope, callbacks,
#     singletons with callbacks made anew);
#   - verify() of a chain costs the same per service at 1,000 services as at 250;
#   - replacing one registration among 100,000 costs about what a fresh registration costs.
# Exits 1 when a ratio passes its limit. Run by .ci/run; by hand: Benchmarks/Counts/linear.sh
set -euo pipefail
cd "$(dirname "$0")"
source ./measure.sh

per_operation() { # scenario operations
    local none all
    none=$(instructions "$1" weft 0)
    all=$(instructions "$1" weft "$2")
    echo $(((all - none) / $2))
}

failed=0
check() { # label small large limit
    local ratio
    ratio=$(python3 -c "print(f'{$3 / max($2, 1):.2f}')")
    if python3 -c "import sys; sys.exit(0 if $3 <= $2 * $4 else 1)"; then
        echo "ok    $1: $2 -> $3 instructions ($ratio x, limit $4 x)"
    else
        echo "FAIL  $1: $2 -> $3 instructions ($ratio x, limit $4 x)"
        failed=1
    fi
}

for shape in graph callbacks container-callbacks; do
    small=$(($(per_operation "wide-$shape-1000" 4) / 1000))
    large=$(($(per_operation "wide-$shape-20000" 2) / 20000))
    check "wide-$shape, per service, 1,000 -> 20,000 services" "$small" "$large" 1.25
done
for scope in graph container transient; do
    small=$(($(per_operation "verify-$scope-chain-250" 2) / 250))
    large=$(($(per_operation "verify-$scope-chain-1000" 2) / 1000))
    check "verify() of a $scope chain, per service, 250 -> 1,000 services" "$small" "$large" 1.25
done
fresh=$(per_operation register 2000)
replace=$(per_operation replace-100000 2000)
check "replace one of 100,000 registrations, against a fresh registration" "$fresh" "$replace" 2
exit "$failed"
