#!/usr/bin/env bash
# Runs every check triage has: it installs what the tests need (idempotently),
# then gofmt, go vet, staticcheck, the docs/TOOLS.md staleness check, and
# `go test -race ./...`, which includes the end-to-end tests with the MCP
# Inspector CLI and the real debuggers and dump engines, and the CI subset of
# the fault matrix on the real-world corpus (scripts/corpus.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

export TRIAGE_CACHE="${TRIAGE_CACHE:-$HOME/.cache/triage}"
export PATH="$(go env GOPATH)/bin:$PATH"
step() { printf '\n== %s\n' "$*"; }

step "install dependencies"
scripts/install-deps.sh

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

step "go test -race ./..."
go test -race -count=1 -timeout 25m ./...

step "make bench-quick (fails on a figure worse than 2× its target)"
make bench-quick
