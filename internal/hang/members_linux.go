package hang

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// member is one process of the group being captured.
type member struct {
	pid, ppid int
	comm      string
	state     byte // the kernel's: R running, S sleeping, D disk, Z zombie, T stopped
}

// groupMembers lists the live processes whose process group is pgid, from
// /proc.
func groupMembers(pgid int) ([]member, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	var out []member
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		m, pg, ok := readStat(fmt.Sprintf("/proc/%d/stat", pid))
		if ok && pg == pgid && m.state != 'Z' {
			m.pid = pid
			out = append(out, m)
		}
	}
	return out, nil
}

// readStat reads pid (comm) state ppid pgrp from a stat file. comm may
// hold spaces and parentheses: it ends at the last ')'.
func readStat(file string) (m member, pgrp int, ok bool) {
	b, err := os.ReadFile(file)
	if err != nil {
		return m, 0, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return m, 0, false
	}
	m.comm = s[open+1 : end]
	f := strings.Fields(s[end+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return m, 0, false
	}
	m.state = f[0][0]
	m.ppid, _ = strconv.Atoi(f[1])
	pgrp, _ = strconv.Atoi(f[2])
	return m, pgrp, true
}

// threadStates maps each thread id of pid to its kernel state.
func threadStates(pid int) map[int]byte {
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
			states[tid] = m.state
		}
	}
	return states
}

// exited reports whether pid is gone or a zombie (dead, not yet reaped).
func exited(pid int) bool {
	m, _, ok := readStat(fmt.Sprintf("/proc/%d/stat", pid))
	return !ok || m.state == 'Z' || m.state == 'X'
}

func exePath(pid int) string {
	return fmt.Sprintf("/proc/%d/exe", pid)
}
