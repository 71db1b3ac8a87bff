#!/usr/bin/env bash
# The long reliability run (`make soak`): TestLoad with TRIAGE_LOAD_CALLS
# mixed calls (default 1000, 50 in flight), TestSoak* with
# TRIAGE_SOAK_CYCLES debug and dump session cycles (default 300), the fault
# injection tests, the gigabyte output and the client-disconnect tests.
# Prints the figures docs/RELIABILITY.md reports. CI runs the same tests
# with small counts as part of `go test ./...`.
set -euo pipefail
cd "$(dirname "$0")/.."
export TRIAGE_LOAD_CALLS=${TRIAGE_LOAD_CALLS:-1000} TRIAGE_SOAK_CYCLES=${TRIAGE_SOAK_CYCLES:-300}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
go test -count=1 -timeout 180m -v \
  -run 'TestLoad$|TestSoak|TestFault|TestGigabyteOutput|TestClientDisconnectKillsChildren|TestShutdownDisposesDebugSessions' \
  ./e2e 2>&1 | tee "$log" || status=$?
echo
echo "== reliability figures (TRIAGE_LOAD_CALLS=$TRIAGE_LOAD_CALLS TRIAGE_SOAK_CYCLES=$TRIAGE_SOAK_CYCLES)"
grep -h 'FIGURE ' "$log" | sed 's/.*FIGURE /  /' || true
echo "  faults injected: $(grep -c ' FAULT ' "$log" || true)"
grep -h ' FAULT ' "$log" | sed 's/.*FAULT /    - /' || true
echo "  tests: $(grep -c -- '^--- PASS' "$log" || true) passed, $(grep -c -- '--- FAIL' "$log" || true) failed"
exit "$status"
