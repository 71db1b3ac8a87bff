//go:build linux && (amd64 || arm64)

package stall

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Supported: /proc gives every thread's state, syscall and arguments, and
// a parent may read its child's memory (a wait's timeout) through it.
const Supported = true

// Group samples every thread of the process group pgid (nil when the
// group cannot be listed: no stall is found from nothing). The leader's
// descendants are looked at first, by their parent links: one thread
// among them that does not wait decides the sample at the cost of a few
// reads. Only when all of them wait is every process's stat read, for
// members that another parent adopted and descendants that left the
// group, and the syscalls of the sleeping threads (until one does not
// wait).
func Group(pgid int) []Thread {
	read := map[int][]Thread{} // by pid, read in the first look
	if pids, ok := descendants(pgid); ok {
		var ts []Thread
		for _, pid := range pids {
			read[pid] = tasks(pid)
			ts = append(ts, read[pid]...)
		}
		if !allSleep(ts) {
			return ts
		}
	}
	members, escaped, ok := scan(pgid)
	if !ok {
		return nil
	}
	inGroup := make(map[int]bool, len(members))
	var ts []Thread
	for _, m := range members {
		inGroup[m.pid] = true
		if t, ok := read[m.pid]; ok {
			ts = append(ts, t...)
		} else {
			ts = append(ts, tasks(m.pid)...)
		}
	}
	if !allSleep(ts) {
		return ts
	}
	for i := range ts {
		if ts[i].Kind != Wait {
			continue
		}
		if ts[i] = classify(ts[i], inGroup); ts[i].Kind != Wait {
			unexamined(ts[i+1:])
			return ts
		}
	}
	// A descendant that left the group (setsid) may be what the group
	// waits for, working where the sample does not look.
	for _, e := range escaped {
		ts = append(ts, Thread{Pid: e.pid, Tid: e.pid, Comm: e.comm, Kind: Other, Timeout: -1})
	}
	return ts
}

// allSleep reports whether every thread sleeps (tentatively a Wait until
// its syscall is read) or is a zombie.
func allSleep(ts []Thread) bool {
	for _, t := range ts {
		if t.Kind != Wait && t.Kind != Gone {
			return false
		}
	}
	return true
}

// unexamined marks threads whose syscall was not read as Other.
func unexamined(ts []Thread) {
	for i := range ts {
		if ts[i].Kind == Wait {
			ts[i].Kind = Other
		}
	}
}

// tasks reads the stat of each thread of pid. A sleeping thread is
// tentatively a Wait until its syscall is read.
func tasks(pid int) []Thread {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := make([]Thread, 0, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(dir + "/" + e.Name() + "/stat")
		if err != nil {
			continue // gone since the listing
		}
		if t, ok := parseStat(string(b)); ok {
			t.Pid, t.Tid = pid, tid
			out = append(out, t)
		}
	}
	return out
}

// parseStat reads a thread's comm, state and CPU ticks from its stat line.
// comm may hold spaces and parentheses: it ends at the last ')'.
func parseStat(s string) (Thread, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return Thread{}, false
	}
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 || len(f[0]) != 1 {
		return Thread{}, false
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return Thread{}, false
	}
	t := Thread{Comm: s[open+1 : end], Ticks: utime + stime, Timeout: -1}
	switch f[0][0] {
	case 'R':
		t.Kind = Running
	case 'S':
		t.Kind = Wait
	case 'Z', 'X':
		t.Kind = Gone
	default: // D (disk), T and t (stopped, traced), anything newer
		t.Kind = Other
	}
	return t, true
}

// classify reads what a sleeping thread waits in: its syscall and, for a
// timed wait, what is left of the timeout; its wchan when the syscall
// cannot be read.
func classify(t Thread, inGroup map[int]bool) Thread {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/syscall", t.Pid, t.Tid))
	if err != nil {
		return byWchan(t, inGroup)
	}
	nr, args, ok := parseSyscall(string(b))
	if !ok {
		t.Kind = Other // running again, or blocked outside a syscall (a page fault)
		return t
	}
	return byCall(t, nr, args, inGroup)
}

// parseSyscall reads /proc/PID/task/TID/syscall: "NR ARG0..ARG5 SP PC"
// for a thread in a syscall, "-1 SP PC" outside one, "running".
func parseSyscall(s string) (nr int, args [6]uint64, ok bool) {
	f := strings.Fields(s)
	if len(f) < 7 {
		return 0, args, false
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil || nr < 0 {
		return 0, args, false
	}
	for i := range args {
		v, err := strconv.ParseUint(strings.TrimPrefix(f[i+1], "0x"), 16, 64)
		if err != nil {
			return 0, args, false
		}
		args[i] = v
	}
	return nr, args, true
}

// byWchan classifies a thread by the kernel function it sleeps in, when
// its syscall is out of reach: only waits with no timeout are known.
func byWchan(t Thread, inGroup map[int]bool) Thread {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/wchan", t.Pid, t.Tid))
	t.Kind = Other
	if err != nil {
		return t
	}
	switch w := string(b); w {
	case "pipe_read", "pipe_wait", "pipe_wait_readable":
		t.Kind, t.Call, t.On = Wait, "read", "a pipe"
	case "unix_stream_read_generic", "unix_stream_data_wait", "sk_wait_data", "inet_csk_accept":
		t.Kind, t.Call, t.On = Wait, "read", "a socket"
	case "do_wait":
		t.Call = "wait4"
		if childrenInGroup(t.Pid, inGroup) {
			t.Kind = Wait
		}
	case "hrtimer_nanosleep", "do_nanosleep":
		t.Kind = Sleep
	}
	return t
}

// childrenInGroup reports whether pid has children and all are in the
// group: waiting for them is then up to the group (a child that left it
// may be working where we do not look).
func childrenInGroup(pid int, inGroup map[int]bool) bool {
	kids, ok := children(pid)
	if !ok || len(kids) == 0 {
		return false
	}
	for _, k := range kids {
		if !inGroup[k] {
			return false
		}
	}
	return true
}
