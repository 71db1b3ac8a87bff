#!/usr/bin/env bash
# Fetches the real-world corpus the verdict tests (e2e/realworld) run triage
# on, by package name, into ${TRIAGE_CACHE:-$HOME/.cache/triage}/corpus.
# Nothing lands in the repository. Idempotent: a project already fetched
# (its .fetched marker exists) is left alone.
#
#   go/NAME      Go modules from the Go module proxy (go mod download -json),
#                copied to a writable directory
#   c/NAME       C projects from Debian source packages (apt-get source), with
#                deb-src entries derived from the system's own apt sources and
#                written into an apt directory of the corpus's own; where the
#                mirror serves the original tarball but not the Debian files,
#                the tarball alone, unpatched
#   rust/NAME    Rust crates from Debian's librust-*-dev packages
#                (/usr/share/cargo/registry), with a cargo config that makes
#                cargo resolve every dependency from that directory, offline
#
# Usage: scripts/corpus.sh [--print-dir]
set -euo pipefail

CACHE="${TRIAGE_CACHE:-$HOME/.cache/triage}"
CORPUS="$CACHE/corpus"
if [ "${1:-}" = "--print-dir" ]; then echo "$CORPUS"; exit 0; fi

# name=module@version: pinned, so a cell's expected file:line stays true.
GO_MODULES=(
  uuid=github.com/google/uuid@v1.6.0
  toml=github.com/BurntSushi/toml@v1.4.0
  xsync=golang.org/x/sync@v0.10.0
  xxhash=github.com/cespare/xxhash/v2@v2.3.0
  # chosen by scripts/corpus-pick.sh (docs/VERDICTS.md, "How the corpus is chosen")
  isatty=github.com/mattn/go-isatty@v0.0.20
  strftime=github.com/ncruces/go-strftime@v0.1.9
)
# Debian source package names. The seed, hand-picked: cjson (CMake + CTest,
# Unity tests), zlib (configure + make test), libyaml (autotools, make
# check); then the rule's choice (scripts/corpus-pick.sh keeps it in
# $CORPUS/pick/chosen.txt; e2e/realworld/projects_test.go says how each
# builds).
DEB_SOURCES=(cjson zlib libyaml
  # chosen by scripts/corpus-pick.sh (docs/VERDICTS.md, "How the corpus is chosen")
  urdfdom schroedinger-coordgenlibs ngtcp2 riemann-c-client libperl-destruct-level-perl
  libnss-unknown libvc libomemo
)
# Crates (Debian's librust-NAME-dev) whose tests need no dev-dependency
# (semver's optional serde must resolve: librust-serde-dev).
RUST_CRATES=(semver strsim
  matches # chosen by scripts/corpus-pick.sh
)
CARGO_REGISTRY=/usr/share/cargo/registry

log() { printf '[corpus] %s\n' "$*" >&2; }
mkdir -p "$CORPUS/go" "$CORPUS/c" "$CORPUS/rust"

fetch_go() { # name module@version
  local dest="$CORPUS/go/$1"
  [ -e "$dest/.fetched" ] && return 0
  log "go mod download $2"
  local dir
  dir=$(cd "$CORPUS" && GOFLAGS=-mod=mod go mod download -json "$2" |
        sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] && [ -d "$dir" ] || { log "no directory for $2"; return 1; }
  rm -rf "$dest" && mkdir -p "$dest"
  cp -R "$dir/." "$dest/" && chmod -R u+w "$dest"
  echo "$2" > "$dest/.fetched"
}

# deb_src_lines prints one-line deb-src entries for every deb entry the
# system's apt configuration has (both formats), keeping its signing key.
deb_src_lines() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    sed -n 's/^[[:space:]]*deb[[:space:]]\+/deb-src /p' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && uris != "" && enabled != "no") {
          n = split(uris, u, " "); m = split(suites, s, " ")
          opt = signed != "" ? "[signed-by=" signed "] " : ""
          for (i = 1; i <= n; i++) for (j = 1; j <= m; j++)
            print "deb-src " opt u[i] " " s[j] " " comps
        }
        types = uris = suites = comps = signed = enabled = ""
      }
      /^[[:space:]]*#/ { next }
      /^[[:space:]]*$/ { flush(); next }
      { key = $1; sub(/:$/, "", key); $1 = ""; sub(/^ /, "")
        if (key == "Types") types = $0; else if (key == "URIs") uris = $0
        else if (key == "Suites") suites = $0; else if (key == "Components") comps = $0
        else if (key == "Signed-By") signed = $0; else if (key == "Enabled") enabled = $0 }
      END { flush() }' "$f"
  done
}

APT_DIR="$CORPUS/apt"
apt_opts() {
  printf '%s\n' -o "Dir::Etc::SourceList=$APT_DIR/sources.list" \
    -o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d" \
    -o "Dir::State::Lists=$APT_DIR/lists" -o "Dir::Cache=$APT_DIR/cache" \
    -o "APT::Sandbox::User=$(id -un)" -o Debug::NoLocking=1
}
apt_ready=""
apt_update() {
  [ -n "$apt_ready" ] && return 0
  mkdir -p "$APT_DIR/sources.list.d" "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
  deb_src_lines | sort -u > "$APT_DIR/sources.list.new"
  [ -s "$APT_DIR/sources.list.new" ] || { log "no deb entries in the system's apt sources"; return 1; }
  local stamp="$APT_DIR/lists/.updated"
  if ! cmp -s "$APT_DIR/sources.list.new" "$APT_DIR/sources.list" || [ ! -e "$stamp" ] ||
     [ -n "$(find "$stamp" -mtime +7 2>/dev/null)" ]; then
    mv "$APT_DIR/sources.list.new" "$APT_DIR/sources.list"
    log "apt-get update (own source lists under $APT_DIR)"
    mapfile -t opts < <(apt_opts)
    apt-get "${opts[@]}" update -qq
    touch "$stamp"
  else
    rm -f "$APT_DIR/sources.list.new"
  fi
  apt_ready=1
}

# download_source PACKAGE DIR: apt-get source --download-only into DIR.
# The mirror serves part of the pool: a file that answers 404 is named on
# standard output ("404: FILE") and the download fails; what came stays.
download_source() {
  local out
  mapfile -t opts < <(apt_opts)
  out=$(cd "$2" && apt-get "${opts[@]}" source --download-only -qq "$1" 2>&1) && return 0
  sed -n 's|.*/\([^/ ]*\)  *404 .*|404: \1|p' <<<"$out" | sed 's/%7e/~/g; s/%2b/+/g' | paste -sd ' ' -
  grep -q ' 404 ' <<<"$out" || printf '%s\n' "$out" | grep -m1 -E '^E:' | head -c 200
  return 1
}

# unpack_source DIR DEST: the package's tree, patched, when every file of
# its .dsc came; else its original tarball alone (prints "orig only"); fails
# when neither is there.
unpack_source() {
  local dsc orig
  dsc=$(ls "$1"/*.dsc 2>/dev/null | head -n1)
  rm -rf "$2"
  if [ -n "$dsc" ] && dpkg-source --no-check -x "$dsc" "$2" >/dev/null 2>&1; then
    return 0
  fi
  rm -rf "$2"
  orig=$(ls "$1"/*.orig.tar.* "$1"/*.tar.* 2>/dev/null | grep -v -e '\.debian\.tar\.' -e '\.asc$' | head -n1)
  [ -n "$orig" ] || return 1
  mkdir -p "$2.tmp" && tar -xf "$orig" -C "$2.tmp" || { rm -rf "$2.tmp"; return 1; }
  if [ "$(ls -A "$2.tmp" | wc -l)" -eq 1 ] && [ -d "$2.tmp/$(ls -A "$2.tmp")" ]; then
    mv "$2.tmp/$(ls -A "$2.tmp")" "$2" && rmdir "$2.tmp"
  else
    mv "$2.tmp" "$2"
  fi
  echo "orig only"
}

# generate_configure DIR makes the files a clone of the project's
# repository would make first (configure from configure.ac); configuring
# stays with each copy.
generate_configure() {
  [ -x "$1/configure" ] && return 0
  if [ -x "$1/bootstrap" ]; then
    (cd "$1" && ./bootstrap >/dev/null 2>&1)
  elif [ -e "$1/configure.ac" ] || [ -e "$1/configure.in" ]; then
    (cd "$1" && autoreconf -fi >/dev/null 2>&1)
  fi
}

fetch_deb() { # source package
  local dest="$CORPUS/c/$1"
  [ -e "$dest/.fetched" ] && return 0
  apt_update
  log "apt-get source $1"
  local work="$CORPUS/c/.download-$1" why how
  rm -rf "$work" && mkdir -p "$work"
  why=$(download_source "$1" "$work") || log "$1: $why"
  how=$(unpack_source "$work" "$dest") || { log "$1: nothing to build from"; return 1; }
  [ -n "$how" ] && log "$1: $how (its debian/ directory did not come)"
  generate_configure "$dest"
  (cd "$work" && ls *.dsc *.orig.tar.* 2>/dev/null | head -n1) > "$dest/.fetched"
  rm -rf "$work"
  # dpkg-source leaves the original tarballs beside the tree.
  rm -f "$CORPUS/c/$1"_*.orig.tar.* "$CORPUS/c/$1"_*.debian.tar.*
}

fetch_crate() { # crate
  local dest="$CORPUS/rust/$1"
  [ -e "$dest/.fetched" ] && return 0
  local src
  src=$(ls -d "$CARGO_REGISTRY/$1"-[0-9]* 2>/dev/null | sort -V | tail -n1)
  [ -n "$src" ] || { log "$CARGO_REGISTRY/$1-* missing: apt-get install librust-$1-dev (scripts/install-deps.sh)"; return 1; }
  log "copy $src"
  rm -rf "$dest" && mkdir -p "$dest/.cargo"
  cp -R "$src/." "$dest/" && chmod -R u+w "$dest"
  rm -f "$dest/Cargo.lock"
  cat > "$dest/.cargo/config.toml" <<EOF
# Every dependency comes from Debian's packaged crates, offline.
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "$CARGO_REGISTRY"
[net]
offline = true
EOF
  basename "$src" > "$dest/.fetched"
}

# scripts/corpus-pick.sh sources this file for its functions alone.
[ -n "${CORPUS_LIB:-}" ] && return 0

# The rule's outcome on this machine, when scripts/corpus-pick.sh ran here: a
# project it chose that the lists above lack is named (the lists are what
# the cells know).
if [ -r "$CORPUS/pick/chosen.txt" ]; then
  while read -r group name; do
    case "$group" in
      go) printf '%s\n' "${GO_MODULES[@]}" | grep -qF "=$name" ;;
      rust) printf '%s\n' "${RUST_CRATES[@]}" | grep -qx "$name" ;;
      *) printf '%s\n' "${DEB_SOURCES[@]}" | grep -qx "$name" ;;
    esac || log "scripts/corpus-pick.sh chose $name ($group), which this script's lists lack"
  done < "$CORPUS/pick/chosen.txt"
fi

for m in "${GO_MODULES[@]}"; do fetch_go "${m%%=*}" "${m#*=}"; done
for p in "${DEB_SOURCES[@]}"; do fetch_deb "$p"; done
for c in "${RUST_CRATES[@]}"; do fetch_crate "$c"; done
log "ok: $CORPUS"
