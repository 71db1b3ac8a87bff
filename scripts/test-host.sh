#!/usr/bin/env bash
# A second host for the remote tests: sshd in a network namespace of its own.
#
#   scripts/test-host.sh up DIR [FILE...]   bring the host up (or find it up),
#                                            copy FILEs to its root, print its env
#   scripts/test-host.sh down DIR            stop it and remove DIR
#   scripts/test-host.sh sweep               remove the hosts whose DIR is gone
#
# `up` makes a network namespace triage-thN with a veth pair on a private /30
# (10.231.x.y), runs /usr/sbin/sshd inside it, listening on the namespace's
# address only, with a throw-away host key and one authorised key, both made
# here. sshd runs in a private mount namespace where DIR/root is mounted at
# /mnt/triage-remote: the remote's files are at paths that do not exist on
# this side, so a test that reads a remote path locally fails. The user's
# home there is DIR/home (its PATH names this side's toolchains), not the
# local one, unless DIR lies in it. Everything a
# client needs is in DIR: ssh_config (host alias triage-test-host, the
# client key, known_hosts pinning the host key, StrictHostKeyChecking), and
# `up` prints it as KEY=VALUE lines (also kept in DIR/env):
#
#   TEST_HOST=triage-test-host        the ssh host name to use
#   TRIAGE_SSH_CONFIG=DIR/ssh_config  the ssh configuration triage reads
#   TEST_HOST_ADDR, TEST_HOST_NETNS   its address and namespace
#   TEST_HOST_ROOT=/mnt/triage-remote where the remote sees DIR/root
#   TEST_HOST_LOCAL_ROOT=DIR/root     where this side puts files for it
#
# Idempotent: `up` of a DIR that is up prints its env again; `down` of a
# DIR that is not up does nothing. Needs root (network namespaces).
set -euo pipefail

ALIAS=triage-test-host
REMOTE_ROOT=/mnt/triage-remote
REGISTRY=/run/triage-test-hosts # namespace name -> DIR, for sweep

die() { printf 'test-host: %s\n' "$*" >&2; exit 1; }

alive() { [ -s "$1/sshd.pid" ] && kill -0 "$(cat "$1/sshd.pid")" 2>/dev/null; }

# alloc makes a free namespace triage-thN; `ip netns add` fails on an
# existing name, so concurrent callers never share one.
alloc() {
  local i
  for ((i = 1; i < 16384; i++)); do
    if ip netns add "triage-th$i" 2>/dev/null; then echo "$i"; return; fi
  done
  die "no free namespace name"
}

addr() { # index, host part (1 or 2)
  local n=$(($1 * 4))
  echo "10.231.$((n / 256)).$((n % 256 + $2))"
}

network() { # index
  local i=$1 ns="triage-th$1"
  ip link add "th${i}h" type veth peer name "th${i}r" netns "$ns"
  ip addr add "$(addr "$i" 1)/30" dev "th${i}h"
  ip link set "th${i}h" up
  ip -n "$ns" addr add "$(addr "$i" 2)/30" dev "th${i}r"
  ip -n "$ns" link set "th${i}r" up
  ip -n "$ns" link set lo up
}

keys() { # dir, address
  local d=$1
  ssh-keygen -q -t ed25519 -N '' -C triage-test-host -f "$d/host_key"
  ssh-keygen -q -t ed25519 -N '' -C triage-test-client -f "$d/id_ed25519"
  cp "$d/id_ed25519.pub" "$d/authorized_keys"
  echo "$ALIAS,$2 $(cut -d' ' -f1,2 "$d/host_key.pub")" >"$d/known_hosts"
}

configs() { # dir, address
  local d=$1 a=$2
  cat >"$d/sshd_config" <<EOF
ListenAddress $a
HostKey $d/host_key
PidFile $d/sshd.pid
AuthorizedKeysFile $d/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
AllowAgentForwarding no
X11Forwarding no
PrintMotd no
MaxSessions 64
MaxStartups 64
LogLevel ERROR
EOF
  cat >"$d/ssh_config" <<EOF
Host $ALIAS
  HostName $a
  User root
  IdentityFile $d/id_ed25519
  IdentitiesOnly yes
  UserKnownHostsFile $d/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
EOF
}

# home makes the remote user's home directory: the host's own, not this
# side's (whose shell start-up files may be slow or print), with a PATH
# that holds the toolchains found here. A toolchain in this side's home
# (rustup's cargo in ~/.cargo/bin) is reached through $LOCAL_HOME, where
# start mounts this side's home before the host's own hides it.
LOCAL_HOME=/mnt/triage-local-home
home() { # dir
  local h=$1/home t p= e=
  mkdir -p "$h"
  for t in go cargo gcc make cmake; do
    t=$(command -v "$t" 2>/dev/null) || continue
    t=${t%/*}
    case "$t/" in "$HOME"/*) t=$LOCAL_HOME/${t#"$HOME"/} ;; esac
    case ":$p:" in *":$t:"*) ;; *) p="$p${p:+:}$t" ;; esac
  done
  t=${RUSTUP_HOME:-$HOME/.rustup}
  if [ -d "$t" ]; then
    case "$t/" in "$HOME"/*) t=$LOCAL_HOME/${t#"$HOME"/} ;; esac
    e="export RUSTUP_HOME=\"$t\""
  fi
  printf 'export PATH="%s:$PATH"\n%s\n' "$p" "$e" >"$h/.bashrc"
  cp "$h/.bashrc" "$h/.profile"
}

# start runs sshd in the namespace and a private mount namespace where the
# host's root directory is at $REMOTE_ROOT and its user's home at ~; sshd
# writes its pid file once it listens.
start() { # dir, namespace
  local d=$1 i
  mkdir -p /run/sshd "$d/root"
  home "$d"
  ip netns exec "$2" unshare --mount --propagation private sh -c '
    mount -t tmpfs -o size=1m,mode=0755 triage-test-host /mnt &&
    mkdir /mnt/triage-remote && mount --bind "$1/root" /mnt/triage-remote &&
    h=$(getent passwd "$(id -un)" | cut -d: -f6) &&
    mkdir "$2" && mount --bind "$h" "$2" &&
    case "$1/" in "$h"/*) ;; *) mount --bind "$1/home" "$h" ;; esac &&
    exec /usr/sbin/sshd -f "$1/sshd_config" -E "$1/sshd.log"' sh "$d" "$LOCAL_HOME"
  for ((i = 0; i < 200; i++)); do alive "$d" && return; sleep 0.05; done
  die "sshd did not start: $(cat "$d/sshd.log" 2>/dev/null)"
}

up() {
  [ $# -ge 1 ] || die "usage: test-host.sh up DIR [FILE...]"
  [ "$(id -u)" -eq 0 ] || die "needs root (network namespaces)"
  [ -x /usr/sbin/sshd ] || die "sshd missing: scripts/install-deps.sh installs openssh-server"
  mkdir -p "$1"
  local d
  d=$(cd "$1" && pwd)
  shift
  if ! alive "$d"; then
    [ ! -e "$d/env" ] || down "$d"
    mkdir -p "$d" "$REGISTRY"
    local i a
    i=$(alloc)
    echo "$d" >"$REGISTRY/triage-th$i"
    a=$(addr "$i" 2)
    network "$i"
    keys "$d" "$a"
    configs "$d" "$a"
    printf '%s\n' "TEST_HOST=$ALIAS" "TRIAGE_SSH_CONFIG=$d/ssh_config" "TEST_HOST_ADDR=$a" \
      "TEST_HOST_NETNS=triage-th$i" "TEST_HOST_ROOT=$REMOTE_ROOT" "TEST_HOST_LOCAL_ROOT=$d/root" >"$d/env"
    start "$d" "triage-th$i"
  fi
  local f
  for f in "$@"; do cp --reflink=auto "$f" "$d/root/"; done
  cat "$d/env"
}

# down kills every process of the namespace (sshd, its sessions, the
# engines they run), then removes the network and DIR.
down() {
  [ $# -eq 1 ] || die "usage: test-host.sh down DIR"
  local d=$1 ns pid
  [ -e "$d/env" ] || return 0
  ns=$(sed -n 's/^TEST_HOST_NETNS=//p' "$d/env")
  if [ -n "$ns" ] && [ -e "/run/netns/$ns" ]; then
    for pid in $(ip netns pids "$ns"); do kill -9 "$pid" 2>/dev/null || true; done
    ip link del "${ns#triage-}h" 2>/dev/null || true
    ip netns del "$ns"
  fi
  rm -f "$REGISTRY/$ns"
  rm -rf "$d"
}

# sweep brings down the hosts whose DIR is gone, through a stand-in DIR
# that names the namespace (the gone DIR is not made again).
sweep() {
  local f t
  for f in "$REGISTRY"/triage-th*; do
    [ -e "$f" ] || continue
    if [ ! -e "$(cat "$f")/env" ]; then
      t=$(mktemp -d)
      echo "TEST_HOST_NETNS=$(basename "$f")" >"$t/env"
      down "$t"
      rm -f "$f"
    fi
  done
}

case "${1:-}" in
  up) shift; up "$@" ;;
  down) shift; down "$@" ;;
  sweep) sweep ;;
  *) die "usage: test-host.sh up DIR [FILE...] | down DIR | sweep" ;;
esac
