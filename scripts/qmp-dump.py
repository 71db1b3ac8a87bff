#!/usr/bin/env python3
"""Minimal QMP client for make-vmcore.sh: dump guest memory, then quit QEMU.

Usage: qmp-dump.py SOCKET TIMEOUT_SECONDS ELF_OUTPUT [FLAT_OUTPUT KDUMP_OUTPUT]

Connects to a QEMU QMP unix socket, negotiates capabilities, runs
dump-guest-memory with paging (an ELF vmcore that crash and drgn open)
into ELF_OUTPUT and, when given, a kdump-zlib dump of the same guest into
FLAT_OUTPUT, then sends quit. QEMU before 8.2 writes kdump dumps in
makedumpfile's flattened stream format ("makedumpfile" signature), which
drgn cannot read, so the stream is also reassembled (like makedumpfile -R)
into KDUMP_OUTPUT, a regular kdump-compressed file ("KDUMP   " signature).
Exits non-zero with a message on stderr if QEMU reports an error or the
deadline passes. Standard library only.
"""

import json
import socket
import struct
import sys
import time

FLAT_SIGNATURE = b"makedumpfile\0"
FLAT_HEADER_SIZE = 4096  # MAX_SIZE_MDF_HEADER


class QMPError(Exception):
    pass


class QMP:
    def __init__(self, path, deadline):
        self.deadline = deadline
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._settimeout()
        self.sock.connect(path)
        self.buf = b""

    def _settimeout(self):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise QMPError("deadline exceeded")
        self.sock.settimeout(left)

    def _readmsg(self):
        while b"\n" not in self.buf:
            self._settimeout()
            chunk = self.sock.recv(65536)
            if not chunk:
                raise QMPError("qemu closed the QMP socket")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def greeting(self):
        msg = self._readmsg()
        if "QMP" not in msg:
            raise QMPError("unexpected greeting: %r" % msg)

    def execute(self, cmd, args=None):
        req = {"execute": cmd}
        if args:
            req["arguments"] = args
        self._settimeout()
        self.sock.sendall(json.dumps(req).encode() + b"\n")
        while True:
            msg = self._readmsg()
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                raise QMPError("%s: %s" % (cmd, msg["error"].get("desc", msg)))
            # Asynchronous events (DUMP_COMPLETED, STOP, ...) are skipped.


def unflatten(src, dst):
    """Reassemble a flattened makedumpfile stream: records of (offset, size)
    big-endian int64 pairs, each followed by size bytes to write at offset,
    ended by a (-1, -1) record."""
    with open(src, "rb") as inp, open(dst, "wb") as out:
        head = inp.read(FLAT_HEADER_SIZE)
        if not head.startswith(FLAT_SIGNATURE) or len(head) != FLAT_HEADER_SIZE:
            if head.startswith(b"KDUMP   "):
                # Already a regular kdump file (QEMU 8.2+ on a seekable file).
                out.write(head)
                while True:
                    chunk = inp.read(1 << 20)
                    if not chunk:
                        return
                    out.write(chunk)
            raise QMPError("%s: neither a flattened nor a kdump-compressed dump" % src)
        while True:
            rec = inp.read(16)
            if len(rec) != 16:
                raise QMPError("%s: flattened stream ends without its end record" % src)
            offset, size = struct.unpack(">qq", rec)
            if offset == -1 and size == -1:
                return
            if offset < 0 or size < 0:
                raise QMPError("%s: bad flattened record (%d, %d)" % (src, offset, size))
            out.seek(offset)
            while size > 0:
                chunk = inp.read(min(size, 1 << 20))
                if not chunk:
                    raise QMPError("%s: flattened record truncated" % src)
                out.write(chunk)
                size -= len(chunk)


def main():
    if len(sys.argv) not in (4, 6):
        sys.stderr.write(__doc__)
        return 2
    path, timeout, elf_out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    qmp = QMP(path, time.monotonic() + timeout)
    qmp.greeting()
    qmp.execute("qmp_capabilities")
    qmp.execute("dump-guest-memory", {"paging": True, "protocol": "file:" + elf_out})
    if len(sys.argv) == 6:
        # The kdump formats need paging off; QEMU then uses the guest's VMCOREINFO.
        qmp.execute("dump-guest-memory", {"paging": False, "format": "kdump-zlib",
                                          "protocol": "file:" + sys.argv[4]})
    try:
        qmp.execute("quit")
    except QMPError:
        pass  # QEMU may close the socket before answering quit.
    if len(sys.argv) == 6:
        unflatten(sys.argv[4], sys.argv[5])
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, QMPError, ValueError) as err:
        sys.stderr.write("qmp-dump: %s\n" % err)
        sys.exit(1)
