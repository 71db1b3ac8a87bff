package hang

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/coredump"
)

// stacksHeaderRE matches the line a capture writes before a process's
// stacks in the run's output (see attach):
// "--- stacks of pid 10013 (test_version_re) taken by gdb before the kill ---".
var stacksHeaderRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^--- stacks of pid (\d+) \((.*)\) taken by (\S+) before the kill ---$`)
})

// LogStacks collects, from a finished log read line by line, the native
// stacks a capture wrote into it, so that a log read later (`triage
// filter`) can be analysed like the run that took them. Bounded: it keeps
// at most maxDebuggerOut bytes of each process's section, and
// maxProcesses sections.
type LogStacks struct {
	sections []logSection
	cur      *logSection
}

type logSection struct {
	pid    int
	method string
	text   strings.Builder
}

// Line reads one line of the log (without its newline).
func (l *LogStacks) Line(line string) {
	if m := stacksHeaderRE().FindStringSubmatch(line); m != nil {
		l.cur = nil
		if len(l.sections) < maxProcesses {
			pid, _ := strconv.Atoi(m[1])
			l.sections = append(l.sections, logSection{pid: pid, method: m[3]})
			l.cur = &l.sections[len(l.sections)-1]
		}
		return
	}
	if l.cur != nil && l.cur.text.Len() < maxDebuggerOut {
		l.cur.text.WriteString(line)
		l.cur.text.WriteByte('\n')
	}
}

// Report returns the stacks read, or nil when the log held none. A
// thread's kernel state is not in the log: each reads as running, and its
// frames decide (one in a blocking call is blocked there).
func (l *LogStacks) Report() *Report {
	var stacks []Stack
	for i := range l.sections {
		s := &l.sections[i]
		parse := coredump.ParseGDBThreads
		if strings.Contains(s.method, "lldb") {
			parse = coredump.ParseLLDBThreads
		}
		for _, t := range parse(s.text.String()) {
			stacks = append(stacks, Stack{Pid: s.pid, Kind: KindThread, ID: t.ID, LWP: t.LWP, Name: t.Name, State: "running", Frames: t.Frames})
		}
	}
	if len(stacks) == 0 {
		return nil
	}
	return &Report{Stacks: stacks}
}
