//go:build linux && (amd64 || arm64)

package stall

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// maxPolled bounds the fds a poll or epoll wait is read for.
const maxPolled = 64

// listenOn says Listening of a thread blocked waiting for a connection:
// in accept on a socket, or in poll or epoll with a listening socket among
// the fds it watches (/proc/PID/net/tcp*, unix; read from the process's own
// network namespace). "" otherwise.
func listenOn(t Thread, name string, args [6]uint64) string {
	var fds []int
	switch name {
	case "accept", "accept4":
		if t.On == "a socket" {
			return Listening
		}
		return ""
	case "poll", "ppoll":
		fds = pollFDs(t.Pid, args[0], args[1])
	case "epoll_wait", "epoll_pwait", "epoll_pwait2":
		fds = epollFDs(t.Pid, int(int32(args[0])))
	default:
		return ""
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", t.Pid, fd))
		if ino, ok := strings.CutPrefix(target, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	if len(inodes) > 0 && listens(t.Pid, inodes) {
		return Listening
	}
	return ""
}

// pollFDs reads the fds of a poll's struct pollfd array (int fd, short
// events, short revents) at addr in pid's memory.
func pollFDs(pid int, addr, n uint64) []int {
	n = min(n, maxPolled)
	f, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil || addr == 0 || addr > 1<<62 || n == 0 {
		if f != nil {
			f.Close()
		}
		return nil
	}
	defer f.Close()
	buf := make([]byte, 8*n)
	if _, err := f.ReadAt(buf, int64(addr)); err != nil {
		return nil
	}
	var fds []int
	for i := range n {
		if fd := int32(binary.LittleEndian.Uint32(buf[8*i:])); fd >= 0 {
			fds = append(fds, int(fd))
		}
	}
	return fds
}

// epollFDs reads the fds an epoll instance watches from its fdinfo
// ("tfd:        5 events:       19 data: …").
func epollFDs(pid, epfd int) []int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%d", pid, epfd))
	if err != nil {
		return nil
	}
	var fds []int
	for _, ln := range strings.Split(string(b), "\n") {
		f := strings.Fields(ln)
		if len(f) < 2 || f[0] != "tfd:" || len(fds) == maxPolled {
			continue
		}
		if fd, err := strconv.Atoi(f[1]); err == nil {
			fds = append(fds, fd)
		}
	}
	return fds
}

// listens reports whether one of the socket inodes is listening: a TCP
// socket in state LISTEN (0A), or a unix socket that accepts
// (__SO_ACCEPTCON, 00010000, in its flags).
func listens(pid int, inodes map[string]bool) bool {
	for _, table := range []string{"tcp", "tcp6", "unix"} {
		f, err := os.Open(fmt.Sprintf("/proc/%d/net/%s", pid, table))
		if err != nil {
			continue
		}
		found := scanListening(bufio.NewScanner(f), table == "unix", inodes)
		f.Close()
		if found {
			return true
		}
	}
	return false
}

// scanListening reads one /proc/net table: for tcp, "sl local rem st …
// inode" (st the 4th field, inode the 10th); for unix, "Num RefCount
// Protocol Flags Type St Inode Path".
func scanListening(sc *bufio.Scanner, unix bool, inodes map[string]bool) bool {
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case unix && len(f) >= 7 && inodes[f[6]]:
			flags, err := strconv.ParseUint(f[3], 16, 32)
			if err == nil && flags&0x10000 != 0 {
				return true
			}
		case !unix && len(f) >= 10 && inodes[f[9]] && f[3] == "0A":
			return true
		}
	}
	return false
}
