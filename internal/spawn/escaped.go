package spawn

import "syscall"

// A descendant that leaves the process group (setsid, setpgid: Criterion's
// runner and its workers, a test that daemonizes) is missed by a signal to
// the group, and once the leader dies its parent link is gone too. So the
// escaped descendants are noted while the leader lives, each time the group
// is signalled to end, and signalled alike; a noted pid is signalled only
// while its start time is the one noted (never a later process given the
// same pid).

// maxEscaped bounds the escaped descendants one run keeps track of.
const maxEscaped = 4096

// escapee is an escaped descendant as noted.
type escapee struct {
	pid   int
	start uint64
}

// noteEscaped adds the leader's escaped descendants living now.
func (p *Process) noteEscaped() {
	for _, m := range Escaped(p.pid, p.pid) {
		known := false
		for _, e := range p.escaped {
			known = known || e.pid == m.Pid
		}
		if st := startTime(m.Pid); !known && st != 0 && len(p.escaped) < maxEscaped {
			p.escaped = append(p.escaped, escapee{m.Pid, st})
		}
	}
}

// signalEscaped signals the noted escaped descendants that still live.
func (p *Process) signalEscaped(sig syscall.Signal) {
	for _, e := range p.escaped {
		if startTime(e.pid) == e.start {
			syscall.Kill(e.pid, sig)
		}
	}
}

// escapedAlive lists the noted escaped descendants that still live.
func (p *Process) escapedAlive() []int {
	var out []int
	for _, e := range p.escaped {
		if startTime(e.pid) == e.start && !Exited(e.pid) {
			out = append(out, e.pid)
		}
	}
	return out
}
