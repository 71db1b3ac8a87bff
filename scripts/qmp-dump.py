#!/usr/bin/env python3
"""Minimal QMP client for make-vmcore.sh: dump guest memory, then quit QEMU.

Usage: qmp-dump.py SOCKET OUTPUT TIMEOUT_SECONDS

Connects to a QEMU QMP unix socket, negotiates capabilities, runs
dump-guest-memory with paging (an ELF vmcore that crash and drgn open)
into OUTPUT, then sends quit. Exits non-zero with a message on stderr if
QEMU reports an error or the deadline passes. Standard library only.
"""

import json
import socket
import sys
import time


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


def main():
    if len(sys.argv) != 4:
        sys.stderr.write(__doc__)
        return 2
    path, output, timeout = sys.argv[1], sys.argv[2], float(sys.argv[3])
    qmp = QMP(path, time.monotonic() + timeout)
    qmp.greeting()
    qmp.execute("qmp_capabilities")
    qmp.execute("dump-guest-memory", {"paging": True, "protocol": "file:" + output})
    try:
        qmp.execute("quit")
    except QMPError:
        pass  # QEMU may close the socket before answering quit.
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (OSError, QMPError, ValueError) as err:
        sys.stderr.write("qmp-dump: %s\n" % err)
        sys.exit(1)
