package spawn

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// GroupMembers lists the live (not zombie) processes whose process group
// is pgid, from /proc.
func GroupMembers(pgid int) ([]Member, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	var out []Member
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		m, pg, ok := readStat(fmt.Sprintf("/proc/%d/stat", pid))
		if ok && pg == pgid && m.State != 'Z' && m.State != 'X' {
			m.Pid = pid
			out = append(out, m)
		}
	}
	return out, nil
}

// ThreadStates maps each thread id of pid to its kernel state.
func ThreadStates(pid int) map[int]byte {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	states := make(map[int]byte, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if m, _, ok := readStat(dir + "/" + e.Name() + "/stat"); ok {
			states[tid] = m.State
		}
	}
	return states
}

// Exited reports whether pid is gone or a zombie (dead, not yet reaped).
func Exited(pid int) bool {
	m, _, ok := readStat(fmt.Sprintf("/proc/%d/stat", pid))
	return !ok || m.State == 'Z' || m.State == 'X'
}

// Escaped lists the live descendants of pid, by /proc's parent links, that
// are not in process group pgid: processes that left the group (setsid,
// setpgid: Criterion's runner and its workers) and that a signal to the
// group misses. Each has its start time, to tell it from a later process
// given the same pid.
func Escaped(pid, pgid int) []Member {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	type proc struct {
		m    Member
		pgrp int
	}
	children := map[int][]proc{}
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if m, pg, ok := readStat(fmt.Sprintf("/proc/%d/stat", n)); ok {
			m.Pid = n
			children[m.PPid] = append(children[m.PPid], proc{m, pg})
		}
	}
	var out []Member
	queue := []int{pid}
	for len(queue) > 0 && len(out) < maxEscaped {
		for _, c := range children[queue[0]] {
			queue = append(queue, c.m.Pid)
			if c.pgrp != pgid && c.m.State != 'Z' && c.m.State != 'X' {
				out = append(out, c.m)
			}
		}
		queue = queue[1:]
	}
	return out
}

// startTime reads a process's start time (clock ticks after boot), 0 when
// it is gone.
func startTime(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0
	}
	// After comm: state is field 3 of stat, starttime field 22.
	f := strings.Fields(s[end+1:])
	if len(f) < 20 {
		return 0
	}
	t, _ := strconv.ParseUint(f[19], 10, 64)
	return t
}

// readStat reads pid (comm) state ppid pgrp from a stat file. comm may
// hold spaces and parentheses: it ends at the last ')'.
func readStat(file string) (m Member, pgrp int, ok bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return m, 0, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return m, 0, false
	}
	m.Comm = s[open+1 : end]
	f := strings.Fields(s[end+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return m, 0, false
	}
	m.State = f[0][0]
	m.PPid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	return m, pgrp, true
}
