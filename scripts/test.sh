#!/usr/bin/env bash
# Runs every check triage has: it installs what the tests need (idempotently),
# then gofmt, go vet, staticcheck, the docs/TOOLS.md staleness check, and
# `go test -race ./...`, which includes the end-to-end tests with the MCP
# Inspector CLI and the real debuggers and dump engines, and the CI subset of
# the fault matrix on the real-world corpus (scripts/corpus.sh). The test log
# is read through `triage filter` (a skip not in .ci/allowed-skips fails), and
# the last step fails when the run left a process alive or a triage-* entry
# in its temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."

export TRIAGE_CACHE="${TRIAGE_CACHE:-$HOME/.cache/triage}"
export PATH="$(go env GOPATH)/bin:$PATH"
step() { current="$*"; printf '\n== %s\n' "$*"; }

# Everything this run starts carries TRIAGE_CI_RUN and makes its temporary
# files in a TMPDIR of its own, so that scripts/leftovers.sh can tell, at the
# end, what the run left behind from what the rest of the machine does.
export TRIAGE_CI_RUN="$$-$RANDOM$RANDOM"
export TMPDIR="$(mktemp -d "${TMPDIR:-/tmp}/ci-run.XXXXXX")"
# Whatever ends the run, its TMPDIR goes when empty; one a failed run left
# files in stays, as evidence.
drop_empty_tmpdir() { rmdir "$TMPDIR" 2>/dev/null || true; }
trap drop_empty_tmpdir EXIT

step "install dependencies"
scripts/install-deps.sh
# Test hosts an earlier run left (its directory gone) are removed; this
# run's own are checked at its end (scripts/leftovers.sh).
if [ "$(id -u)" -eq 0 ]; then scripts/test-host.sh sweep; fi

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi

step "go vet"
go vet ./...

step "staticcheck"
staticcheck ./...

step "docs/TOOLS.md is current"
go build -o bin/triage ./cmd/triage
if ! ./bin/triage tools --markdown --all | diff -u docs/TOOLS.md - ; then
  echo "docs/TOOLS.md is stale: run 'make docs' and commit it"; exit 1
fi

if [ -x scripts/make-vmcore.sh ]; then
  step "kernel vmcore (cached)"
  scripts/make-vmcore.sh
fi

step "real-world corpus (cached; e2e/realworld's fault matrix runs on it)"
scripts/corpus.sh

step "fuzz (short; \`make fuzz\` runs longer)"
FUZZTIME=${FUZZTIME:-10s} scripts/fuzz.sh

step "go test -race ./... (read through triage filter)"
# The raw test2json stream is kept in bin/test.json; triage's own verdict,
# the failures and the counts close the log. go test's exit status decides.
set +e
# A skipped test fails the run unless .ci/allowed-skips expects it.
allow=()
while read -r re; do allow+=(--allow-skip "$re"); done < <(grep -v '^\s*\(#\|$\)' .ci/allowed-skips)
go test -json -race -count=1 -timeout 25m ./... | tee bin/test.json | ./bin/triage filter --toolchain go --fail-on-skip "${allow[@]}"
status=("${PIPESTATUS[@]}")
set -e
# The log ends with triage's verdict on the tests and their counts, whatever
# happens after them.
verdict() {
  step "triage's verdict on the tests"
  ./bin/triage filter --toolchain go --level minimal --fail-on-skip "${allow[@]}" bin/test.json | sed -n '1p;/^tests (/p;/^  skipped: /p'
}
if [ "${status[0]}" -ne 0 ] || [ "${status[2]}" -ne 0 ]; then
  echo "go test exit ${status[0]}, triage filter exit ${status[2]}"
  verdict
  exit 1
fi
trap 'rc=$?; [ $rc -eq 0 ] || echo "CI FAILED in \"$current\" (exit $rc)"; verdict; drop_empty_tmpdir' EXIT

step "the debug tests where the lldb adapters differ, under lldb-vscode-16 (the rest ran under the default, lldb-dap-22)"
TRIAGE_DAP_ADAPTER=lldb-vscode-16 go test -count=1 \
  -run 'Logpoint|Memory|DeadAdapter|Catch|Watch|CoreFile' ./internal/workflow/debug ./internal/debugger/dap

step "make bench-quick (fails on a figure worse than 2× its target)"
make bench-quick

step "nothing left behind"
scripts/leftovers.sh
