#!/usr/bin/env bash
# make-vmcore.sh — produce a real Linux kernel vmcore for triage's tests.
#
# Boots Debian's stock 6.1 amd64 kernel under QEMU (TCG) with a tiny busybox
# initramfs that loads qemu_fw_cfg (so VMCOREINFO reaches the dump) and
# panics the kernel with sysrq-c; QMP dump-guest-memory then writes an ELF
# vmcore that both `crash` and `drgn` open with the matching debug vmlinux.
#
# Output lives in ${TRIAGE_CACHE:-$HOME/.cache/triage}/vmcore/:
#   vmcore-<ver>        ELF vmcore (QEMU dump-guest-memory, paging, with VMCOREINFO), ~290 MB
#   vmcore-<ver>.kdump  the same panic as a kdump-compressed (zlib, "KDUMP   ") dump
#   vmcore-<ver>.flat   the same as makedumpfile's flattened stream (as QEMU 7.2 writes it)
#   vmlinux-<ver>       the matching vmlinux with DWARF
#   vmcore.env          VMCORE=..., VMCORE_KDUMP=..., VMCORE_FLAT=..., VMLINUX=..., KERNEL_VERSION=...
# A run with a complete cache does nothing but print the VMCORE=, VMCORE_KDUMP=,
# VMCORE_FLAT= and VMLINUX= lines (also its only stdout on a fresh run; progress goes to stderr).
# Stages are individually cached (the debug vmlinux, the kernel and module,
# the dump), so an interrupted run resumes where it stopped.
#
# Environment:
#   TRIAGE_CACHE           cache root (default $HOME/.cache/triage)
#   TRIAGE_KERNEL_VERSION  kernel ABI to use, e.g. 6.1.0-56-amd64 (default: newest apt offers)
#   TRIAGE_BOOT_TIMEOUT    seconds to wait for the panic on the console (default 300)
#   TRIAGE_DUMP_TIMEOUT    seconds allowed for dump-guest-memory (default 300)
set -euo pipefail

readonly SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly CACHE=${TRIAGE_CACHE:-$HOME/.cache/triage}/vmcore
readonly ENV_FILE=$CACHE/vmcore.env
readonly BOOT_TIMEOUT=${TRIAGE_BOOT_TIMEOUT:-300}
readonly DUMP_TIMEOUT=${TRIAGE_DUMP_TIMEOUT:-300}

log() { printf 'make-vmcore: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# print_result prints the cached paths; it is the script's only stdout.
print_result() {
	printf 'VMCORE=%s\nVMCORE_KDUMP=%s\nVMCORE_FLAT=%s\nVMLINUX=%s\n' \
		"$VMCORE" "$VMCORE_KDUMP" "$VMCORE_FLAT" "$VMLINUX"
}

# cached_result succeeds when a previous run left a complete, readable result.
cached_result() {
	[[ -f $ENV_FILE ]] || return 1
	local VMCORE='' VMCORE_KDUMP='' VMCORE_FLAT='' VMLINUX='' KERNEL_VERSION=''
	# shellcheck disable=SC1090
	source "$ENV_FILE"
	local f
	for f in "$VMCORE" "$VMCORE_KDUMP" "$VMCORE_FLAT" "$VMLINUX"; do
		[[ -n $f && -s $f ]] || return 1
	done
	print_result
}

# ensure_tools installs missing host tools (only on a machine that lacks them).
ensure_tools() {
	local -A need=(
		[qemu-system-x86_64]=qemu-system-x86 [cpio]=cpio [crash]=crash
		[drgn]=python3-drgn [dpkg-deb]=dpkg [apt-get]=apt [flock]=util-linux
		[readelf]=binutils [gzip]=gzip [xz]=xz-utils [python3]=python3
	)
	local missing=() tool
	for tool in "${!need[@]}"; do
		command -v "$tool" >/dev/null || missing+=("${need[$tool]}")
	done
	# busybox must be the static build: it is PID 1 in an initramfs without libc.
	if ! busybox_static >/dev/null; then
		missing+=(busybox-static)
	fi
	((${#missing[@]} == 0)) && return 0
	log "installing missing packages: ${missing[*]}"
	local sudo=()
	((EUID == 0)) || sudo=(sudo)
	"${sudo[@]}" apt-get update
	"${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}

# busybox_static prints the path of a statically linked busybox.
busybox_static() {
	local bb
	command -v readelf >/dev/null || return 1
	for bb in /bin/busybox /usr/bin/busybox "$(command -v busybox || true)"; do
		[[ -x $bb ]] || continue
		# A static executable has no PT_INTERP program header.
		if ! LC_ALL=C readelf -l "$bb" 2>/dev/null | grep -q 'Requesting program interpreter'; then
			printf '%s\n' "$bb"
			return 0
		fi
	done
	return 1
}

# pick_kernel prints the newest linux-image-6.1.0-N-amd64 ABI that has a -dbg package.
pick_kernel() {
	if [[ -n ${TRIAGE_KERNEL_VERSION:-} ]]; then
		printf '%s\n' "$TRIAGE_KERNEL_VERSION"
		return
	fi
	local ver
	ver=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-dbg$' |
		sed -n 's/^linux-image-\(6\.1\.0-[0-9]*-amd64\)-dbg .*/\1/p' | sort -V | tail -n1)
	[[ -n $ver ]] || die "apt offers no linux-image-6.1.0-*-amd64-dbg (is the Debian bookworm archive configured? try apt-get update)"
	printf '%s\n' "$ver"
}

# download PKG fetches PKG's .deb into $CACHE/downloads and prints its path.
download() {
	local pkg=$1 deb
	mkdir -p "$CACHE/downloads"
	deb=$(compgen -G "$CACHE/downloads/${pkg}_*.deb" | head -n1 || true)
	if [[ -z $deb ]]; then
		log "downloading $pkg"
		# Download beside, then move: an interrupted download never looks complete.
		local tmp
		tmp=$(mktemp -d "$CACHE/tmp.XXXXXX")
		(cd "$tmp" && apt-get download "$pkg" >&2)
		deb=$(compgen -G "$tmp/${pkg}_*.deb" | head -n1 || true)
		[[ -n $deb ]] || die "apt-get download $pkg produced no .deb"
		mv "$deb" "$CACHE/downloads/"
		deb=$CACHE/downloads/${deb##*/}
		rm -rf "$tmp"
	fi
	printf '%s\n' "$deb"
}

# extract_vmlinux puts the debug vmlinux at $VMLINUX, reading one member of the -dbg .deb.
extract_vmlinux() {
	[[ -s $VMLINUX ]] && return 0
	local deb tmp
	deb=$(download "linux-image-$KVER-dbg")
	tmp=$(mktemp -d "$CACHE/tmp.XXXXXX")
	log "extracting vmlinux-$KVER (decompressing ~850 MB, about a minute)"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./usr/lib/debug/boot/vmlinux-$KVER"
	mv "$tmp/usr/lib/debug/boot/vmlinux-$KVER" "$VMLINUX"
	rm -rf "$tmp" "$deb"
}

# extract_kernel puts the bootable kernel and an uncompressed qemu_fw_cfg.ko in $KDIR.
extract_kernel() {
	[[ -s $KDIR/vmlinuz && -s $KDIR/qemu_fw_cfg.ko ]] && return 0
	local deb tmp member
	# -unsigned carries the same kernel as the signed package, without the shim dance.
	deb=$(download "linux-image-$KVER-unsigned")
	tmp=$(mktemp -d "$CACHE/tmp.XXXXXX")
	member=$(dpkg-deb -c "$deb" | awk '{print $NF}' | grep -E '/qemu_fw_cfg\.ko(\.xz|\.zst|\.gz)?$' | head -n1 || true)
	[[ -n $member ]] || die "no qemu_fw_cfg module in $deb"
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tmp" "./boot/vmlinuz-$KVER" "$member"
	local ko=$tmp/$member
	case $ko in
	*.xz) xz -d "$ko" && ko=${ko%.xz} ;;
	*.zst) zstd -q -d --rm "$ko" && ko=${ko%.zst} ;;
	*.gz) gzip -d "$ko" && ko=${ko%.gz} ;;
	esac
	mkdir -p "$KDIR"
	mv "$ko" "$KDIR/qemu_fw_cfg.ko"
	mv "$tmp/boot/vmlinuz-$KVER" "$KDIR/vmlinuz"
	rm -rf "$tmp" "$deb"
}

# make_initramfs writes a busybox initramfs whose init panics the kernel.
make_initramfs() {
	local out=$1 root=$WORK/initramfs bb
	bb=$(busybox_static) || die "no statically linked busybox (package busybox-static)"
	mkdir -p "$root"/{bin,dev,proc,sys}
	cp "$bb" "$root/bin/busybox"
	cp "$KDIR/qemu_fw_cfg.ko" "$root/qemu_fw_cfg.ko"
	cat >"$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
# qemu_fw_cfg publishes VMCOREINFO to QEMU's -device vmcoreinfo; drgn needs it.
/bin/busybox insmod /qemu_fw_cfg.ko || echo "triage-init: insmod qemu_fw_cfg failed"
echo 1 >/proc/sys/kernel/sysrq
echo "triage-init: triggering sysrq crash"
echo c >/proc/sysrq-trigger
# Not reached: the kernel panics above.
/bin/busybox sleep 3600
EOF
	chmod 755 "$root/init"
	(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out"
}

# wait_for_panic waits until the console log shows the panic, QEMU dies, or the timeout passes.
wait_for_panic() {
	local console=$1 deadline=$((SECONDS + BOOT_TIMEOUT))
	while ((SECONDS < deadline)); do
		if grep -qE 'Kernel panic|sysrq triggered crash' "$console" 2>/dev/null; then
			# Give the panic path a moment to finish printing and halt the CPUs.
			grep -q 'end Kernel panic' "$console" 2>/dev/null || sleep 2
			return 0
		fi
		kill -0 "$QEMU_PID" 2>/dev/null || die "qemu exited before the panic; console: $(tail -n 20 "$console")"
		sleep 1
	done
	die "no kernel panic within ${BOOT_TIMEOUT}s; console tail: $(tail -n 20 "$console")"
}

# make_dump boots the kernel, waits for the panic and dumps guest memory to
# $VMCORE (ELF), $VMCORE_KDUMP (kdump-compressed) and $VMCORE_FLAT (flattened).
make_dump() {
	[[ -s $VMCORE && -s $VMCORE_KDUMP && -s $VMCORE_FLAT ]] && return 0
	local initrd=$WORK/initramfs.cpio.gz console=$WORK/console.log qmp=$WORK/qmp.sock
	make_initramfs "$initrd"
	log "booting $KVER under qemu (tcg) until it panics"
	qemu-system-x86_64 \
		-accel tcg -cpu max,la57=off -m 256 -smp 1 \
		-nographic -no-reboot -monitor none -serial "file:$console" \
		-kernel "$KDIR/vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 panic=0 nokaslr" \
		-device vmcoreinfo \
		-qmp "unix:$qmp,server=on,wait=off" \
		</dev/null >"$WORK/qemu.out" 2>&1 &
	QEMU_PID=$!
	wait_for_panic "$console"
	log "panic seen; dumping guest memory"
	local python=python3
	# Prefer the system interpreter: a pyenv shim may not be usable in CI.
	[[ -x /usr/bin/python3 ]] && python=/usr/bin/python3
	"$python" "$SCRIPT_DIR/qmp-dump.py" "$qmp" "$DUMP_TIMEOUT" \
		"$WORK/vmcore" "$WORK/vmcore.flat" "$WORK/vmcore.kdump"
	wait "$QEMU_PID" || true
	QEMU_PID=
	[[ -s $WORK/vmcore && -s $WORK/vmcore.flat && -s $WORK/vmcore.kdump ]] || die "dump-guest-memory wrote nothing"
	verify "$WORK/vmcore" crash drgn
	# drgn 0.0.22's libkdumpfile refuses QEMU 7.2's kdump header
	# ("kdump_get_string_attr(KDUMP_ATTR_ARCH_NAME): Key has no value").
	verify "$WORK/vmcore.kdump" crash
	cp "$console" "$CACHE/console-$KVER.log"
	# QEMU creates the dumps 0600; tests may run as another user of the cache.
	chmod 0644 "$WORK/vmcore" "$WORK/vmcore.flat" "$WORK/vmcore.kdump"
	mv "$WORK/vmcore.flat" "$VMCORE_FLAT"
	mv "$WORK/vmcore.kdump" "$VMCORE_KDUMP"
	mv "$WORK/vmcore" "$VMCORE"
}

# verify VMCORE ENGINE... checks that each engine (crash, drgn) reads the dump
# and sees the sysrq panic, before the dump is declared good.
verify() {
	local vmcore=$1
	shift
	if [[ " $* " == *" crash "* ]]; then
		verify_crash "$vmcore"
	fi
	if [[ " $* " == *" drgn "* ]]; then
		verify_drgn "$vmcore"
	fi
	log "verified ${vmcore##*/} with $*"
}

verify_crash() {
	local vmcore=$1 out
	out=$(printf 'bt\nlog\nquit\n' | timeout 300 crash -s "$VMLINUX" "$vmcore" 2>&1) ||
		die "crash failed on $vmcore: $(tail -n 20 <<<"$out")"
	grep -q 'sysrq_handle_crash\|sysrq triggered crash' <<<"$out" ||
		die "crash did not show the sysrq panic in $vmcore: $(tail -n 20 <<<"$out")"
}

verify_drgn() {
	local vmcore=$1 out
	# drgn 0.0.22 (bookworm) has no -e: it runs a script file.
	printf '%s\n' 'print(prog["init_task"].comm.string_().decode())' >"$WORK/verify.py"
	out=$(timeout 300 drgn -q -c "$vmcore" -s "$VMLINUX" "$WORK/verify.py" 2>&1) ||
		die "drgn failed on $vmcore: $out"
	grep -q 'swapper' <<<"$out" || die "drgn read an unexpected init_task.comm: $out"
}

cleanup() {
	if [[ -n ${QEMU_PID:-} ]]; then
		kill "$QEMU_PID" 2>/dev/null || true
		wait "$QEMU_PID" 2>/dev/null || true
	fi
	[[ -n ${WORK:-} ]] && rm -rf "$WORK"
}

main() {
	cached_result && return 0
	mkdir -p "$CACHE"
	# One builder at a time; a waiter finds the finished cache.
	exec 9>"$CACHE/.lock"
	flock 9
	cached_result && return 0
	# Leftovers of an interrupted run (we hold the lock, so nobody else owns them).
	rm -rf "$CACHE"/work.* "$CACHE"/tmp.*

	ensure_tools
	KVER=$(pick_kernel)
	VMLINUX=$CACHE/vmlinux-$KVER
	VMCORE=$CACHE/vmcore-$KVER
	VMCORE_KDUMP=$CACHE/vmcore-$KVER.kdump
	VMCORE_FLAT=$CACHE/vmcore-$KVER.flat
	KDIR=$CACHE/kernel-$KVER
	WORK=$(mktemp -d "$CACHE/work.XXXXXX")
	QEMU_PID=
	trap cleanup EXIT
	trap 'exit 130' INT TERM

	extract_vmlinux
	extract_kernel
	make_dump

	printf 'VMCORE=%s\nVMCORE_KDUMP=%s\nVMCORE_FLAT=%s\nVMLINUX=%s\nKERNEL_VERSION=%s\n' \
		"$VMCORE" "$VMCORE_KDUMP" "$VMCORE_FLAT" "$VMLINUX" "$KVER" >"$ENV_FILE.tmp"
	mv "$ENV_FILE.tmp" "$ENV_FILE"
	print_result
}

main "$@"
