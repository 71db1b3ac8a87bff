#!/usr/bin/env bash
# Installs, idempotently, everything triage's tests and demo need on a fresh
# Debian/Ubuntu machine: debuggers, dump engines, QEMU for the test vmcore,
# compilers, pinned Go tools and the pinned MCP Inspector CLI. Safe to re-run:
# what is already present is left alone.
set -euo pipefail

DLV_VERSION=v1.27.2
STATICCHECK_VERSION=v0.8.2
INSPECTOR_VERSION=2.12.0
CACHE="${TRIAGE_CACHE:-$HOME/.cache/triage}"

log() { printf '[install-deps] %s\n' "$*" >&2; }

# command -> Debian package providing it
declare -A PKG=(
  [gcc]=gcc [g++]=g++ [make]=make [cmake]=cmake [gdb]=gdb
  [lldb-16]=lldb-16 [lldb-vscode-16]=lldb-16
  [crash]=crash [drgn]=python3-drgn [valgrind]=valgrind
  [qemu-system-x86_64]=qemu-system-x86 [busybox]=busybox-static [cpio]=cpio
  [node]=nodejs [npm]=npm [git]=git [xz]=xz-utils [file]=file
  # the remote test host (scripts/test-host.sh): sshd in a network namespace
  [ssh]=openssh-client [ssh-keygen]=openssh-client [ip]=iproute2 [unshare]=util-linux
  # the real-world corpus (scripts/corpus.sh): Debian source packages and
  # autotools projects
  [dpkg-source]=dpkg-dev [autoreconf]=autoconf [automake]=automake [libtoolize]=libtool
  # meson projects (the meson toolchain and its test log)
  [meson]=meson [ninja]=ninja-build
  # the web page's browser tests (internal/webui), headless
  [chromium]=chromium
)
missing=()
for cmd in "${!PKG[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${PKG[$cmd]}")
done
# libasan/libubsan come with gcc; the static busybox must be the static one.
[ -x /bin/busybox ] || missing+=(busybox-static)
# sshd is in /usr/sbin, which a user's PATH may lack.
new_sshd=""
[ -x /usr/sbin/sshd ] || { missing+=(openssh-server); new_sshd=1; }
# Rust crates of the corpus, with what their manifests must resolve offline.
for crate in semver strsim serde matches; do
  [ -d /usr/share/cargo/registry ] && ls -d /usr/share/cargo/registry/"$crate"-[0-9]* >/dev/null 2>&1 ||
    missing+=("librust-$crate-dev")
done
# C/C++ test frameworks whose own output internal/testreport reads
# (testdata/frameworks/README): libraries, known by their headers.
for hdr in boost/test/unit_test.hpp=libboost-test-dev CUnit/Basic.h=libcunit1-dev check.h=check \
  cmocka.h=libcmocka-dev criterion/criterion.h=libcriterion-dev; do
  [ -e "/usr/include/${hdr%%=*}" ] || missing+=("${hdr#*=}")
done
# TAP (prove), GoogleTest, Catch2 and doctest, whose own output
# internal/testreport reads (testdata/frameworks/{tap,gtest,catch2,doctest}):
# headers, sources and Perl modules, not commands.
for f in /usr/include/gtest/gtest.h=libgtest-dev /usr/src/googletest=googletest \
  /usr/include/catch2/catch.hpp=catch2 /usr/include/doctest/doctest.h=doctest-dev \
  /usr/share/perl5/TAP/Harness.pm=libtest-harness-perl; do
  [ -e "${f%%=*}" ] || missing+=("${f#*=}")
done
# Build-Depends of the corpus's C and C++ projects that scripts/corpus-pick.sh
# installed for the ones it chose (scripts/corpus.sh's DEB_SOURCES).
CORPUS_DEBS=(libtinyxml-dev libconsole-bridge-dev liburdfdom-headers-dev # urdfdom
  libboost-filesystem-dev libboost-iostreams-dev libmaeparser-dev # schroedinger-coordgenlibs
  libev-dev libnghttp3-dev                                        # ngtcp2
  protobuf-c-compiler libprotobuf-c-dev libjson-c-dev             # riemann-c-client
  perl-xs-dev                                                     # libperl-destruct-level-perl
  sharness libnss-wrapper                                         # libnss-unknown
  flex shunit2                                                    # libvc
  libglib2.0-dev libmxml-dev                                      # libomemo
)
for pkg in "${CORPUS_DEBS[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
done
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
if [ ${#missing[@]} -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  log "apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The tests run their own sshd in a network namespace; the machine's ssh
# service, which installing openssh-server enables, is not wanted: it would
# listen on every address.
if [ -n "$new_sshd" ] && [ -d /run/systemd/system ]; then
  log "disabling the ssh service openssh-server enabled (the tests run their own sshd)"
  $SUDO systemctl disable --now ssh.service ssh.socket >/dev/null 2>&1 || true
fi

command -v go >/dev/null || { log "Go is required (https://go.dev/dl)"; exit 1; }
if ! command -v cargo >/dev/null 2>&1 && ! [ -x "$HOME/.cargo/bin/cargo" ]; then
  log "apt-get install cargo"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq cargo >/dev/null
fi

# Rust coverage (test with coverage on a cargo project) reads rustc's
# profiles with llvm-profdata and llvm-cov of rustc's own LLVM major: Debian's
# llvm-N when apt has it, else rustup's llvm-tools.
rustc_bin=$(command -v rustc 2>/dev/null || echo "$HOME/.cargo/bin/rustc")
if [ -x "$rustc_bin" ]; then
  llvm=$("$rustc_bin" -vV | sed -n 's/^LLVM version: \([0-9]*\).*/\1/p')
  if [ -n "$llvm" ] && ! command -v "llvm-profdata-$llvm" >/dev/null 2>&1; then
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    if apt-cache show "llvm-$llvm" >/dev/null 2>&1; then
      log "apt-get install llvm-$llvm (the LLVM of $("$rustc_bin" --version))"
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "llvm-$llvm" >/dev/null
    elif command -v rustup >/dev/null 2>&1; then
      log "llvm-$llvm is not in apt: rustup component add llvm-tools"
      rustup component add llvm-tools
    else
      log "no llvm-$llvm in apt and no rustup: Rust coverage needs llvm-profdata and llvm-cov of LLVM $llvm"
    fi
  fi
fi

# C/C++ coverage built by clang (its source-based coverage) is tested with
# clang-22, its profile runtime (a package of its own) and llvm-22's
# llvm-profdata and llvm-cov.
CLANG_MAJOR=22
clang_missing=()
command -v "clang-$CLANG_MAJOR" >/dev/null 2>&1 || clang_missing+=("clang-$CLANG_MAJOR")
ls /usr/lib/llvm-$CLANG_MAJOR/lib/clang/*/lib/*/libclang_rt.profile*.a >/dev/null 2>&1 ||
  clang_missing+=("libclang-rt-$CLANG_MAJOR-dev")
command -v "llvm-cov-$CLANG_MAJOR" >/dev/null 2>&1 || clang_missing+=("llvm-$CLANG_MAJOR")
if [ ${#clang_missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  log "apt-get install ${clang_missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${clang_missing[@]}" >/dev/null
fi

# lldb-22's lldb-dap and lldb-server beside lldb-16 (whose lldb-vscode-16
# many machines have, and which the tests keep working): Debian's
# python3-lldb-16 and python3-lldb-22 conflict (each owns python3's lldb
# link), so apt cannot hold both lldbs. liblldb-22 does not conflict; the
# lldb-22 and python3-lldb-22 packages are unpacked into /usr/local/lib
# (readable by every user: the test host's sshd runs as another), and
# lldb-dap-22/lldb-server-22 in /usr/local/bin point lldb at that Python
# and that lldb-server.
LLDB_NEW=22
if ! command -v "lldb-dap-$LLDB_NEW" >/dev/null 2>&1 || ! command -v "lldb-server-$LLDB_NEW" >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  pfx="/usr/local/lib/lldb-$LLDB_NEW" debs="$CACHE/debs"
  log "liblldb-$LLDB_NEW from apt; lldb-$LLDB_NEW and python3-lldb-$LLDB_NEW unpacked into $pfx"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "liblldb-$LLDB_NEW" >/dev/null
  mkdir -p "$debs"
  (cd "$debs" && rm -f ./*.deb && apt-get download -qq "lldb-$LLDB_NEW" "python3-lldb-$LLDB_NEW" 2>/dev/null)
  $SUDO rm -rf "$pfx" && $SUDO mkdir -p "$pfx/usr/lib/x86_64-linux-gnu"
  for deb in "$debs"/*.deb; do $SUDO dpkg-deb -x "$deb" "$pfx"; done
  rm -f "$debs"/*.deb
  # the Python module's _lldb links to liblldb by a path inside the package tree
  $SUDO ln -sf "/usr/lib/x86_64-linux-gnu/liblldb-$LLDB_NEW.so.1" "$pfx/usr/lib/x86_64-linux-gnu/"
  bin="$pfx/usr/lib/llvm-$LLDB_NEW/bin"
  site=$(ls -d "$pfx/usr/lib/llvm-$LLDB_NEW"/lib/python3*/site-packages | head -n1)
  for tool in lldb-dap; do
    printf '#!/bin/sh\n# lldb-%s beside lldb-16 (scripts/install-deps.sh)\nPYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH} LLDB_DEBUGSERVER_PATH=%s exec %s "$@"\n' \
      "$LLDB_NEW" "$site" "$bin/lldb-server" "$bin/$tool" | $SUDO tee "/usr/local/bin/$tool-$LLDB_NEW" >/dev/null
    $SUDO chmod 755 "/usr/local/bin/$tool-$LLDB_NEW"
  done
  $SUDO ln -sf "$bin/lldb-server" "/usr/local/bin/lldb-server-$LLDB_NEW"
fi

GOBIN="$(go env GOPATH)/bin"
want_go_tool() { # name module version
  local have=""
  [ -x "$GOBIN/$1" ] && have=$(go version -m "$GOBIN/$1" 2>/dev/null | awk '$1=="mod"{print $3; exit}')
  if [ "$have" != "$3" ]; then
    log "go install $2@$3"
    GOFLAGS=-mod=mod go install "$2@$3"
  fi
}
want_go_tool dlv github.com/go-delve/delve/cmd/dlv "$DLV_VERSION"
want_go_tool staticcheck honnef.co/go/tools/cmd/staticcheck "$STATICCHECK_VERSION"

insp="$CACHE/inspector"
if [ "$(cat "$insp/.version" 2>/dev/null)" != "$INSPECTOR_VERSION" ]; then
  log "npm install @modelcontextprotocol/inspector@$INSPECTOR_VERSION"
  mkdir -p "$insp"
  (cd "$insp" && npm install --silent --no-audit --no-fund --loglevel=error \
     "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null)
  echo "$INSPECTOR_VERSION" > "$insp/.version"
fi
log "ok"
