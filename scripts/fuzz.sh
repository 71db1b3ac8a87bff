#!/usr/bin/env bash
# Runs every fuzz target in the module for FUZZTIME each (default 60s).
#
# Each package's test binary is built once, with fuzzing instrumentation
# (`go test -c -fuzz=.`), then run once per target; that is much faster than
# `go test -fuzz` per target, which rebuilds every time. The corpus lives
# where `go test -fuzz` keeps it ($GOCACHE/fuzz), so runs build on each
# other. A crasher lands in the package's testdata/fuzz/FuzzX and becomes a
# regression test that plain `go test` replays.
#
# Prints one line per target (inputs fuzzed, result) and a total.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-60s}
module=$(go list -m)
cache=${FUZZCACHE:-$(go env GOCACHE)/fuzz}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

targets=0 inputs=0 failed=0
report=$work/report
for dir in $(git ls-files --cached --others --exclude-standard '*_test.go' | xargs grep -l '^func Fuzz' | xargs -n1 dirname | sort -u); do
  bin=$work/$(echo "$dir" | tr / _).test
  if ! go test -c -fuzz=. -o "$bin" "./$dir"; then
    printf '%-28s %-24s %12s inputs  %s\n' "$dir" "(build)" 0 FAIL | tee -a "$report"
    failed=$((failed + 1))
    continue
  fi
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go | sed 's/^func //' | sort); do
    log=$work/$target.log
    status=ok
    run() {
      (cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^${target}\$" -test.fuzztime "$FUZZTIME" \
        -test.fuzzcachedir "$cache/$module/$dir") >"$log" 2>&1
    }
    if ! run; then
      # On a loaded machine the fuzzing engine can miss its own deadline
      # ("context deadline exceeded") without any failing input: run again.
      if grep -q 'context deadline exceeded' "$log" && ! grep -q 'Failing input written' "$log" && run; then
        status="ok (rerun after an engine deadline)"
      else
        status=FAIL failed=$((failed + 1))
        cat "$log"
      fi
    fi
    n=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | awk '{print $2}')
    n=${n:-0}
    targets=$((targets + 1)) inputs=$((inputs + n))
    printf '%-28s %-24s %12s inputs  %s\n' "$dir" "$target" "$n" "$status" | tee -a "$report"
  done
done
echo
echo "fuzz summary ($FUZZTIME per target):"
cat "$report"
echo "targets: $targets  inputs fuzzed: $inputs  failures: $failed"
[ "$failed" -eq 0 ]
