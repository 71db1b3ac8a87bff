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
#                written into an apt directory of the corpus's own
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
)
# Debian source package names; each has a test suite that builds and runs in
# seconds: cjson (CMake + CTest, Unity tests), zlib (configure + make test),
# libyaml (autotools, make check).
DEB_SOURCES=(cjson zlib libyaml)
# Crates (Debian's librust-NAME-dev) whose tests need no dev-dependency
# (semver's optional serde must resolve: librust-serde-dev).
RUST_CRATES=(semver strsim)
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

fetch_deb() { # source package
  local dest="$CORPUS/c/$1"
  [ -e "$dest/.fetched" ] && return 0
  apt_update
  log "apt-get source $1"
  local work="$CORPUS/c/.download-$1"
  rm -rf "$work" && mkdir -p "$work"
  mapfile -t opts < <(apt_opts)
  (cd "$work" && apt-get "${opts[@]}" source --download-only -qq "$1")
  local dsc
  dsc=$(ls "$work"/*.dsc | head -n1)
  rm -rf "$dest"
  dpkg-source --no-check -x "$dsc" "$dest" >/dev/null
  # Generated files a clone of the project's repository would make first
  # (configure from configure.ac); configuring stays with each copy.
  if [ ! -x "$dest/configure" ] && [ -x "$dest/bootstrap" ]; then
    (cd "$dest" && ./bootstrap >/dev/null 2>&1)
  fi
  basename "$dsc" > "$dest/.fetched"
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

for m in "${GO_MODULES[@]}"; do fetch_go "${m%%=*}" "${m#*=}"; done
for p in "${DEB_SOURCES[@]}"; do fetch_deb "$p"; done
for c in "${RUST_CRATES[@]}"; do fetch_crate "$c"; done
log "ok: $CORPUS"
