#!/usr/bin/env bash
# The main job, demonstrated for real: build triage, then drive it the way an
# agent would — list its tools, set session defaults once, ask the doctor what
# this machine offers, and (once the run workflow is present) run a crashing C
# program and read the verdict, the captured core and its backtrace.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v gcc >/dev/null || need+=(gcc)
command -v gdb >/dev/null || need+=(gdb)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TRIAGE_STORE="$work/triage.db"
go build -o "$work/triage" ./cmd/triage
t() { printf '\n$ triage %s\n' "$*"; "$work/triage" "$@"; }

cd "$work"
t tools
t call session_set_defaults --project_dir "$work" --timeout_s 60 --persist true
t call session_show_defaults
t doctor

if "$work/triage" tools | grep -q '^  run '; then
  cat > crash.c <<'C'
#include <stdio.h>
#include <string.h>
struct config { const char *name; };
static size_t name_length(const struct config *c) {
  return strlen(c->name);          /* c is NULL: SIGSEGV here */
}
int main(void) {
  struct config *c = NULL;
  printf("loading config...\n");
  fflush(stdout);
  return (int)name_length(c);
}
C
  gcc -g -O0 -o crash crash.c
  set +e
  t call run --program ./crash
  echo "(exit status $?: 1 means triage reported a crash)"
  set -e
fi
