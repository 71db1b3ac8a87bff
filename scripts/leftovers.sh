#!/usr/bin/env bash
# Checks that a test run left nothing behind: no live process carrying the
# run's marker (TRIAGE_CI_RUN, exported by scripts/test.sh and inherited by
# every process the run started, however deep), no test host of the run's
# still up, and no triage-* entry in the run's temporary directory
# ($TMPDIR). Leftover processes are listed, then killed, and leftover test
# hosts brought down; the exit status is 1 when anything was left.
set -uo pipefail
marker="TRIAGE_CI_RUN=${TRIAGE_CI_RUN:?TRIAGE_CI_RUN is not set}"
status=0

# Processes that are ours: this script and its own children carry the marker
# too, so they are left out by pid.
self=$$
found=()
for d in /proc/[0-9]*; do
  pid=${d#/proc/}
  [ "$pid" = "$self" ] && continue
  ppid=$(awk '{print $4}' "$d/stat" 2>/dev/null) || continue
  [ "$ppid" = "$self" ] && continue
  state=$(awk '{print $3}' "$d/stat" 2>/dev/null)
  [ "$state" = Z ] && continue
  if tr '\0' '\n' 2>/dev/null < "$d/environ" | grep -qxF "$marker"; then
    found+=("$pid")
  fi
done
if [ ${#found[@]} -gt 0 ]; then
  echo "left behind: ${#found[@]} process(es) started by this run:"
  for pid in "${found[@]}"; do
    printf '  %s %s\n' "$pid" "$(tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null)"
    kill -KILL "$pid" 2>/dev/null
  done
  status=1
fi

# Test hosts (scripts/test-host.sh): a network namespace and its sshd,
# registered with their directory, which for this run's is under TMPDIR.
# sshd does not keep the marker, so they are found by the registry, listed,
# then brought down.
for f in /run/triage-test-hosts/triage-th*; do
  [ -e "$f" ] || continue
  d=$(cat "$f")
  case "$d/" in
    "${TMPDIR:-/tmp}"/*)
      echo "left behind: test host $(basename "$f") ($d)"
      if [ -e "$d/env" ]; then "$(dirname "$0")/test-host.sh" down "$d"; fi
      status=1
      ;;
  esac
done

"$(dirname "$0")/test-host.sh" sweep # those whose directory is gone

left=$(find "${TMPDIR:-/tmp}" -mindepth 1 -maxdepth 1 -name 'triage-*' 2>/dev/null)
if [ -n "$left" ]; then
  echo "left behind in ${TMPDIR:-/tmp}:"
  printf '  %s\n' $left
  status=1
fi
[ $status -eq 0 ] && echo "nothing left behind: no process of this run alive, no triage-* entry in ${TMPDIR:-/tmp}"
exit $status
