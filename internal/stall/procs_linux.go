//go:build linux && (amd64 || arm64)

package stall

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// maxProcs bounds the processes one sample looks at: a group larger than
// this is never called stalled (its sample is cut, with an Other).
const maxProcs = 1024

// descendants lists pid and its live descendants by /proc's children
// links: a few small reads, where listing a group means reading every
// process's stat. false when a link cannot be read (no
// CONFIG_PROC_CHILDREN, or a process gone meanwhile).
func descendants(pid int) ([]int, bool) {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		if len(out) == maxProcs {
			return nil, false
		}
		p := queue[0]
		queue = queue[1:]
		out = append(out, p)
		kids, ok := children(p)
		if !ok {
			return nil, false
		}
		queue = append(queue, kids...)
	}
	return out, true
}

// children lists pid's children, from every one of its threads.
func children(pid int) ([]int, bool) {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var out []int
	for _, e := range ents {
		b, err := os.ReadFile(dir + "/" + e.Name() + "/children")
		if err != nil {
			return nil, false
		}
		for _, c := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(c); err == nil {
				out = append(out, n)
			}
		}
	}
	return out, true
}

// proc is one process as its stat line gives it.
type proc struct {
	pid, ppid, pgrp int
	comm            string
	alive           bool // not a zombie
}

// scan reads every process's stat once: the group's members (by process
// group, whoever their parent now is) and, by parent links, the leader's
// descendants that left the group.
func scan(pgid int) (members, escaped []proc, ok bool) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, nil, false
	}
	kids := map[int][]proc{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		p, ok := parseProcStat(pid, string(b))
		if !ok {
			continue
		}
		if p.pgrp == pgid && p.alive {
			members = append(members, p)
		}
		kids[p.ppid] = append(kids[p.ppid], p)
	}
	queue := []int{pgid}
	for len(queue) > 0 && len(escaped) < maxProcs {
		for _, c := range kids[queue[0]] {
			queue = append(queue, c.pid)
			if c.pgrp != pgid && c.alive {
				escaped = append(escaped, c)
			}
		}
		queue = queue[1:]
	}
	return members, escaped, true
}

// parseProcStat reads pid's comm, state, ppid and pgrp from its stat line.
func parseProcStat(pid int, s string) (proc, bool) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return proc{}, false
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return proc{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return proc{}, false
	}
	return proc{pid: pid, ppid: ppid, pgrp: pgrp, comm: s[open+1 : end], alive: f[0] != "Z" && f[0] != "X"}, true
}
