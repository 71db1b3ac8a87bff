#!/usr/bin/env bash
# Applies the corpus rule of docs/VERDICTS.md ("How the corpus is chosen"):
# for each test framework and build system, the Debian source packages of the
# system's release (main) whose Build-Depends name it, smallest original
# tarball first, and the first K of them that fetch, build and pass their own
# tests here in under two minutes, with the framework's own output seen; for
# Go, the modules this repository's go.mod requires that have tests at their
# root, smallest first; for Rust, the crates whose Debian source package
# build-depends on no other crate, smallest first.
#
# Slow (it builds candidates), so it runs by hand, once; its outcome is kept
# in ${TRIAGE_CACHE:-$HOME/.cache/triage}/corpus/pick/: outcome.tsv (every
# candidate tried: chosen, or skipped and why) and chosen.txt. The chosen list
# is then written into scripts/corpus.sh and e2e/realworld/projects_test.go,
# which need no picking. Installs, with apt-get, a candidate's missing
# Build-Depends when they are few (at most MAX_NEW packages).
#
# Usage: scripts/corpus-pick.sh [GROUP...]   (default: every group)
set -euo pipefail
CORPUS_LIB=1 source "$(dirname "$0")/corpus.sh"
ROOT=$(cd "$(dirname "$0")/.." && pwd)

K=${K:-1}                 # projects per group
TRIES=${TRIES:-6}         # candidates built per group before giving up
FETCHES=${FETCHES:-40}    # candidates fetched per group before giving up
LIMIT=${LIMIT:-120}       # seconds to build and test one candidate
MAX_NEW=${MAX_NEW:-10}    # new packages a candidate's Build-Depends may pull
FRAMEWORK_CPATH=/usr/include/doctest:/usr/include/catch2
PICK="$CORPUS/pick"
OUT="$PICK/outcome.tsv"
SEED=(cjson zlib libyaml) # the corpus before the rule; never candidates

# group|Build-Depends names (any of)|build system wanted|evidence (ERE) that
# the group's own runner or framework ran and passed
GROUPS_C=(
  "gtest|googletest libgtest-dev libgmock-dev|any|\[  PASSED  \] [0-9]+ tests?\."
  "catch2|catch2|any|All tests passed \(|test cases: +[0-9]+ \| +[0-9]+ passed"
  "doctest|doctest-dev|any|\[doctest\] Status: SUCCESS"
  "boost-test|libboost-test-dev|any|\*\*\* No errors detected"
  "cunit|libcunit1-dev|any|Run Summary:"
  "check|check|any|[0-9]+%: Checks: [0-9]+, Failures: 0, Errors: 0"
  "cmocka|libcmocka-dev|any|\[  PASSED  \] [0-9]+ test\(s\)"
  "criterion|libcriterion-dev|any|Synthesis: Tested: [0-9]+"
  "tap|perl-xs-dev|perl|^All tests successful\.|^Result: PASS"
  "meson|meson|meson|^Ok: +[1-9]"
  "cmake|cmake|cmake|tests passed, 0 tests failed out of [1-9]"
  "autotools|dh-autoreconf autoconf|autotools|^# PASS: +[1-9]"
)

log() { printf '[corpus-pick] %s\n' "$*" >&2; }
mkdir -p "$PICK/groups"
ALL_GROUPS=()
for g in "${GROUPS_C[@]}"; do ALL_GROUPS+=("${g%%|*}"); done
ALL_GROUPS+=(go rust)

# begin GROUP starts a group's outcome; finish GROUP keeps it. Each group's
# outcome is a file of its own, so that one group can be picked again alone.
begin() { : > "$PICK/groups/$1.tsv.new"; : > "$PICK/groups/$1.chosen.new"; }
finish() {
  mv "$PICK/groups/$1.tsv.new" "$PICK/groups/$1.tsv"
  mv "$PICK/groups/$1.chosen.new" "$PICK/groups/$1.chosen"
}
# chosen_elsewhere prints the packages other groups chose.
chosen_elsewhere() {
  local g
  for g in "${ALL_GROUPS[@]}"; do
    [ "$g" = "$1" ] || cat "$PICK/groups/$g.chosen" 2>/dev/null || true
  done | awk '{print $2}'
}

record() { # group package version size result buildsys args seconds note
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$PICK/groups/$1.tsv.new"
  log "$1 $2: $5${9:+ ($9)}"
}

# sources_index prints the release's main Sources index (the one apt_update
# put in the corpus's own apt directory).
sources_index() {
  local codename f
  codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
  f=$(ls "$APT_DIR"/lists/*_dists_"${codename}"_main_source_Sources* | head -n1)
  case "$f" in *.lz4) lz4cat "$f" ;; *.xz) xzcat "$f" ;; *.gz) zcat "$f" ;; *) cat "$f" ;; esac
}

# stanzas prints package, version, original tarball size and Build-Depends
# (one line) for each source package of the index.
stanzas() {
  sources_index | awk '
    function flush() { if (pkg != "") print pkg "\t" ver "\t" (size == "" ? 0 : size) "\t" bd
                       pkg = ver = size = bd = field = "" }
    /^$/ { flush(); next }
    /^[^ \t]/ { field = $1; sub(/:$/, "", field)
      if (field == "Package") pkg = $2; else if (field == "Version") ver = $2
      else if (field == "Build-Depends") { bd = $0; sub(/^Build-Depends:[ \t]*/, "", bd) }
      next }
    { if (field == "Build-Depends") bd = bd " " $0
      else if (field == "Files" && $3 ~ /\.tar\.[a-z0-9]+$/ && $3 !~ /\.debian\.tar\./ &&
               (size == "" || $2 + 0 > size + 0)) size = $2 }
    END { flush() }'
}

# bd_names prints the package names a Build-Depends line names, one a line.
bd_names() {
  tr ',|' '\n\n' <<<"$1" | sed -e 's/[(<\[].*//' -e 's/[[:space:]]//g' -e 's/:any$//' | grep -v '^$' || true
}

# candidates GROUP NAMES... prints "package version size" of the source
# packages naming one of NAMES, smallest tarball first (then by name).
candidates() {
  local names="$*"
  awk -F'\t' -v names="$names" '
    BEGIN { n = split(names, w, " "); for (i = 1; i <= n; i++) want[w[i]] = 1 }
    { m = split($4, c, /[,|]/)
      for (i = 1; i <= m; i++) { x = c[i]; sub(/[(<\[].*/, "", x); gsub(/[ \t]/, "", x); sub(/:any$/, "", x)
        if (x in want) { print $1, $2, $3; break } } }' "$PICK/stanzas.tsv" | sort -k3,3n -k1,1 | awk '!seen[$1]++'
}

# unmet_deps BUILD-DEPENDS prints, for each clause none of whose alternatives
# is installed, its first alternative; debhelper and doc-only clauses aside.
unmet_deps() {
  local clause alt name ok first
  while IFS= read -r clause; do
    [[ "$clause" =~ \<\!nodoc\> ]] && continue
    ok="" first=""
    while IFS= read -r alt; do
      name=$(sed -e 's/[(<\[].*//' -e 's/[[:space:]]//g' -e 's/:any$//' -e 's/:native$//' <<<"$alt")
      [ -n "$name" ] || continue
      case "$name" in debhelper*|dh-*|dpkg-dev|build-essential) ok=1; break ;; esac
      [[ "$alt" =~ \[([^]]*)\] ]] && [[ "${BASH_REMATCH[1]}" =~ !(linux-any|amd64) ]] && { ok=1; break; }
      [ -z "$first" ] && first=$name
      if dpkg-query -W -f='${Status}' "$name" 2>/dev/null | grep -q 'ok installed'; then ok=1; break; fi
      # a virtual package some installed package provides
      grep -Fqx "$name" "$PICK/provided" && { ok=1; break; }
    done < <(tr '|' '\n' <<<"$clause")
    [ -z "$ok" ] && [ -n "$first" ] && echo "$first"
  done < <(tr ',' '\n' <<<"$1")
  return 0
}

# install_deps PACKAGES...: installs them when apt can and they pull at most
# MAX_NEW packages; else prints why not and fails.
install_deps() {
  [ $# -eq 0 ] && return 0
  local sim n
  if ! sim=$(apt-get -s install --no-install-recommends "$@" 2>&1); then
    echo "build dependency not installable: $(grep -m1 -E 'E:|has no installation' <<<"$sim" | head -c 160)"
    return 1
  fi
  n=$(grep -c '^Inst ' <<<"$sim" || true)
  if [ "$n" -gt "$MAX_NEW" ]; then
    echo "Build-Depends pull $n new packages (more than $MAX_NEW): $*"
    return 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
    { echo "apt-get install $* failed"; return 1; }
}

# test_flags DIR KIND prints the configure options the package's own
# debian/rules gives that enable its tests (CMake -D…TEST…=ON, meson
# -D…test…=true|enabled, configure --enable-…test…).
test_flags() {
  local rules="$1/debian/rules"
  [ -r "$rules" ] || return 0
  case "$2" in
    cmake) grep -oE -- '-D[A-Za-z0-9_]*TEST[A-Za-z0-9_]*=(ON|on|1|YES|yes|TRUE|true)' "$rules" | sort -u ;;
    meson) grep -oE -- '-D[a-z0-9_]*tests?[a-z0-9_]*=(true|enabled)' "$rules" | sort -u ;;
    autotools) grep -oE -- '--enable-[a-z0-9-]*test[a-z0-9-]*' "$rules" | sort -u ;;
  esac
  return 0
}

# build_system DIR BUILD-DEPENDS WANTED prints meson, cmake, autotools, perl
# or make: what the package builds with, by its Build-Depends and files.
build_system() {
  local d="$1" bd="$2" want="$3" names
  names=$(bd_names "$bd")
  has() { grep -qx "$1" <<<"$names"; }
  if [ "$want" = meson ] || { [ "$want" = any ] && has meson; }; then
    [ -e "$d/meson.build" ] && { echo meson; return; }
  fi
  if [ "$want" = cmake ] || { [ "$want" = any ] && has cmake; }; then
    [ -e "$d/CMakeLists.txt" ] && { echo cmake; return; }
  fi
  if [ "$want" = perl ] || { [ "$want" = any ] && [ -e "$d/Makefile.PL" ]; }; then
    [ -e "$d/Makefile.PL" ] && { echo perl; return; }
  fi
  if [ "$want" = autotools ] || [ "$want" = any ]; then
    { [ -e "$d/configure.ac" ] || [ -e "$d/configure.in" ]; } && { echo autotools; return; }
  fi
  if [ "$want" = any ]; then
    { [ -e "$d/Makefile" ] || [ -e "$d/makefile" ]; } && { echo make; return; }
  fi
  echo ""
}

# build_and_test DIR KIND ARGS... builds and tests the package the way
# triage's toolchain for KIND does, within LIMIT seconds; its output goes to
# DIR/.pick.log.
build_and_test() {
  local d="$1" kind="$2"; shift 2
  local script
  case "$kind" in
    meson) script='meson setup _pick --buildtype=debug --wrap-mode=nodownload "$@" && meson test -C _pick --print-errorlogs' ;;
    cmake) script='cmake -S . -B _pick -DCMAKE_BUILD_TYPE=Debug -DBUILD_TESTING=ON "$@" && cmake --build _pick -j2 && ctest --test-dir _pick --output-on-failure' ;;
    autotools) script='{ [ -x configure ] || autoreconf -fi; } && ./configure "$@" && make -j2 && make -j2 check' ;;
    perl) script='perl Makefile.PL && make && make test' ;;
    make) script='make -j2 && { make -n check >/dev/null 2>&1 && make check || make test; }' ;;
  esac
  # No network but the loopback: a build that would download fails. The
  # framework headers' own directories are on the include path: a tarball
  # without its Debian patches expects a bundled doctest.h or catch.hpp.
  (cd "$d" && CPATH="$FRAMEWORK_CPATH" timeout -k 5 "$LIMIT" unshare -n bash -c "ip link set lo up; $script" pick "$@") > "$d/.pick.log" 2>&1
}


# evidence DIR ERE: the run's log or a log file it left shows the group ran.
evidence() {
  grep -qE "$2" "$1/.pick.log" && return 0
  find "$1" -name '*.log' -not -path '*/debian/*' -size -20M -print0 2>/dev/null |
    xargs -0 -r grep -lE "$2" 2>/dev/null | grep -q .
}

# try_deb fetches, builds and tests one candidate; 0 when chosen, 1 when
# skipped after a build, 2 when skipped before building.
try_deb() { # group package version size want evidence
  local group="$1" pkg="$2" ver="$3" size="$4" want="$5" ev="$6"
  local work="$PICK/work/$pkg" bd missing why how="" kind start secs
  rm -rf "$work" && mkdir -p "$work/dl"
  why=$(download_source "$pkg" "$work/dl") || why=${why:-download failed}
  if ! how=$(unpack_source "$work/dl" "$work/src"); then
    record "$group" "$pkg" "$ver" "$size" skipped "" "" 0 "fetch failed: $why"
    rm -rf "$work"
    return 2
  fi
  rm -rf "$work/dl"
  [ -n "$how" ] && how="$how ($why); "
  bd=$(awk -F'\t' -v p="$pkg" '$1 == p { print $4; exit }' "$PICK/stanzas.tsv")
  kind=$(build_system "$work/src" "$bd" "$want")
  if [ -z "$kind" ]; then
    [ "$want" = any ] && want="known"
    record "$group" "$pkg" "$ver" "$size" skipped "" "" 0 "${how}no $want build system found"
    rm -rf "$work"
    return 2
  fi
  mapfile -t missing < <(unmet_deps "$bd")
  if ! why=$(install_deps "${missing[@]}"); then
    record "$group" "$pkg" "$ver" "$size" skipped "$kind" "" 0 "$how$why"
    rm -rf "$work"
    return 2
  fi
  mapfile -t flags < <(test_flags "$work/src" "$kind")
  start=$(date +%s)
  if build_and_test "$work/src" "$kind" "${flags[@]}"; then
    secs=$(( $(date +%s) - start ))
    if evidence "$work/src" "$ev"; then
      record "$group" "$pkg" "$ver" "$size" chosen "$kind" "${flags[*]}" "$secs" "$how${missing[*]:+installed: ${missing[*]}}"
      rm -rf "$work"
      return 0
    fi
    record "$group" "$pkg" "$ver" "$size" skipped "$kind" "${flags[*]}" "$secs" "${how}tests passed, but no output of $group's own runner seen"
  else
    local rc=$?
    secs=$(( $(date +%s) - start ))
    if [ "$rc" -ge 124 ] && [ "$secs" -ge "$LIMIT" ]; then
      why="build and tests took longer than ${LIMIT}s"
    else
      why="build or tests failed: $(grep -m1 -iE 'error|fail' "$work/src/.pick.log" | head -c 140)"
    fi
    record "$group" "$pkg" "$ver" "$size" skipped "$kind" "${flags[*]}" "$secs" "$how$why"
  fi
  rm -rf "$work"
  return 1
}

pick_c() { # group names want evidence
  local group="$1" names="$2" want="$3" ev="$4" got=0 tried=0 fetched=0 pkg ver size rc
  local taken
  taken=$(printf '%s\n' "${SEED[@]}"; chosen_elsewhere "$group")
  begin "$group"
  while read -r pkg ver size; do
    [ "$got" -ge "$K" ] || [ "$tried" -ge "$TRIES" ] || [ "$fetched" -ge "$FETCHES" ] && break
    grep -qx "$pkg" <<<"$taken" && continue
    fetched=$((fetched + 1))
    rc=0; try_deb "$group" "$pkg" "$ver" "$size" "$want" "$ev" </dev/null || rc=$?
    [ "$rc" -eq 2 ] || tried=$((tried + 1))
    if [ "$rc" -eq 0 ]; then
      got=$((got + 1))
      echo "$group $pkg" >> "$PICK/groups/$group.chosen.new"
    fi
  done < <(candidates $names)
  if [ "$got" -eq 0 ] && [ -z "$(candidates $names)" ]; then
    record "$group" - - - none "" "" 0 "no source package of the release build-depends on $names"
  elif [ "$got" -eq 0 ]; then
    record "$group" - - - none "" "" 0 "no candidate chosen ($fetched fetched, $tried built)"
  fi
  finish "$group"
  return 0
}

# pick_go: the modules go.mod requires, directly or indirectly, with a
# _test.go file at their root, smallest zip first; each copied and its root
# package's tests run.
pick_go() {
  local got=0 tried=0 mod ver zip size dir work start
  begin go
  while read -r size mod ver zip dir; do
    [ "$got" -ge 2 ] || [ "$tried" -ge "$TRIES" ] && break
    ls "$dir"/*_test.go >/dev/null 2>&1 || { record go "$mod" "$ver" "$size" skipped go "" 0 "no tests at the module root"; continue; }
    case "$mod" in github.com/google/uuid|golang.org/x/sync) record go "$mod" "$ver" "$size" skipped go "" 0 "in the seed corpus"; continue ;; esac
    tried=$((tried + 1))
    work="$PICK/work/go" && rm -rf "$work" && mkdir -p "$work" && cp -R "$dir/." "$work/" && chmod -R u+w "$work"
    start=$(date +%s)
    if (cd "$work" && GOFLAGS=-mod=mod timeout -k 5 "$LIMIT" go test . ) </dev/null > "$PICK/go.log" 2>&1; then
      record go "$mod" "$ver" "$size" chosen go "" $(( $(date +%s) - start )) ""
      echo "go $mod@$ver" >> "$PICK/groups/go.chosen.new"; got=$((got + 1))
    else
      record go "$mod" "$ver" "$size" skipped go "" $(( $(date +%s) - start )) "go test failed: $(grep -m1 -E 'FAIL|error|cannot' "$PICK/go.log" | head -c 140)"
    fi
  done < <(cd "$ROOT" && go list -m -f '{{if not .Main}}{{.Path}} {{.Version}}{{end}}' all 2>/dev/null |
           while read -r mod ver; do
             grep -q "^[[:space:]]*$mod $ver" "$ROOT/go.mod" || continue
             js=$(cd "$CORPUS" && GOFLAGS=-mod=mod go mod download -json "$mod@$ver" 2>/dev/null) || continue
             zip=$(sed -n 's/^[[:space:]]*"Zip": "\(.*\)",$/\1/p' <<<"$js")
             dir=$(sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p' <<<"$js")
             [ -n "$zip" ] && echo "$(stat -c %s "$zip") $mod $ver $zip $dir"
           done | sort -n -k1,1 -k2,2)
  finish go
  return 0
}

# pick_rust: crates whose Debian source package (rust-NAME) build-depends on
# no crate (librust-*) and whose source (in librust-NAME-dev) has a #[test],
# smallest first; its tests run offline against the packaged registry and
# pass at least five.
pick_rust() {
  local got=0 tried=0 fetched=0 pkg ver size bd crate work src start why how
  begin rust
  while IFS=$'\t' read -r pkg ver size bd; do
    [ "$got" -ge 2 ] || [ "$tried" -ge "$TRIES" ] || [ "$fetched" -ge "$FETCHES" ] && break
    grep -q 'librust-' <<<"$bd" && continue
    crate=${pkg#rust-}
    case "$crate" in semver|strsim|serde) continue ;; esac
    fetched=$((fetched + 1))
    # The crate's source is in its binary package, librust-NAME-dev:
    # downloaded and unpacked here, not installed.
    work="$PICK/work/rust" && rm -rf "$work" && mkdir -p "$work/dl"
    if ! why=$(cd "$work/dl" && apt-get download -qq "librust-$crate-dev" 2>&1 </dev/null) ||
       ! dpkg-deb -x "$work"/dl/*.deb "$work/deb" 2>/dev/null; then
      record rust "$pkg" "$ver" "$size" skipped cargo "" 0 "fetch failed: librust-$crate-dev: $(sed 's|.*/||' <<<"$why" | head -c 120)"; continue
    fi
    src=$(ls -d "$work/deb$CARGO_REGISTRY"/*-[0-9]* 2>/dev/null | sort -V | tail -n1 || true)
    if [ -z "$src" ] || ! grep -rqs '#\[test\]' "$src/src" "$src/tests"; then
      record rust "$pkg" "$ver" "$size" skipped cargo "" 0 "no #[test] in its source"; continue
    fi
    tried=$((tried + 1))
    mv "$src" "$PICK/work/rust-src" && rm -rf "$work" && src="$PICK/work/rust-src"
    rm -rf "$work" && mkdir -p "$work/.cargo" && cp -R "$src/." "$work/" && chmod -R u+w "$work"
    rm -rf "$src" "$work/Cargo.lock"
    printf '[source.crates-io]\nreplace-with = "debian"\n[source.debian]\ndirectory = "%s"\n[net]\noffline = true\n' "$CARGO_REGISTRY" > "$work/.cargo/config.toml"
    start=$(date +%s)
    if (cd "$work" && timeout -k 5 "$LIMIT" cargo test) </dev/null > "$PICK/rust.log" 2>&1 &&
       [ "$(sed -n 's/^test result: ok\. \([0-9]*\) passed.*/\1/p' "$PICK/rust.log" | awk '{n += $1} END {print n + 0}')" -ge 5 ]; then
      record rust "$pkg" "$ver" "$size" chosen cargo "" $(( $(date +%s) - start )) "needs librust-$crate-dev"
      echo "rust $crate" >> "$PICK/groups/rust.chosen.new"; got=$((got + 1))
    else
      record rust "$pkg" "$ver" "$size" skipped cargo "" $(( $(date +%s) - start )) "cargo test failed or passed fewer than 5 tests: $(grep -m1 -E '^error|FAILED|no matching' "$PICK/rust.log" | head -c 140)"
    fi
  done < <(awk -F'\t' '$1 ~ /^rust-/' "$PICK/stanzas.tsv" | sort -t$'\t' -k3,3n -k1,1)
  finish rust
  return 0
}

apt_update
# virtual packages the installed ones provide
stanzas > "$PICK/stanzas.tsv"
dpkg-query -W -f='${Provides}\n' | tr ',' '\n' | sed 's/^ *//;s/[ (:].*//' | sort -u > "$PICK/provided"
want_groups=("$@")
selected() { [ ${#want_groups[@]} -eq 0 ] || printf '%s\n' "${want_groups[@]}" | grep -qx "$1"; }
for g in "${GROUPS_C[@]}"; do
  IFS='|' read -r group names want ev <<<"$g"
  ev=${g#*|*|*|}
  selected "$group" && pick_c "$group" "$names" "$want" "$ev"
done
selected go && pick_go
selected rust && pick_rust
for g in "${ALL_GROUPS[@]}"; do cat "$PICK/groups/$g.tsv" 2>/dev/null || true; done > "$OUT"
for g in "${ALL_GROUPS[@]}"; do cat "$PICK/groups/$g.chosen" 2>/dev/null || true; done > "$PICK/chosen.txt"
log "outcome: $OUT; chosen: $PICK/chosen.txt"
cat "$PICK/chosen.txt"
