package lldbcli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/debugger"
)

var (
	exitedRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Process (\d+) exited with status = (-?\d+)`) })
	stoppedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Process (\d+) stopped`) })
	runningRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Process (\d+) (?:is running|resuming)`) })
	// launchedRE: lldb's event thread can print the first stop before the
	// command's own "launched" line, so a launch counts as running only
	// when no stop or exit of that process is reported with it.
	launchedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Process (\d+) launched`) })
	reasonRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\* thread #(\d+).*?stop reason = (.*)$`) })
	// stopReasonLineRE is a whole stop reason line, newline included.
	stopReasonLineRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\* thread #\d+.*?stop reason = .*\n`) })
	signalRE         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bSIG[A-Z0-9]+\b`) })
	bpHitRE          = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b(\d+)\.\d+`) })
	noProcRE         = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)no process|invalid process|process must be launched`)
	})
	varRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\((.*?)\) (\S+) = (.*)$`) })
	bpSetRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^Breakpoint (\d+): (.*)$`) })
	exprRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^\((.*?)\) \$\d+ = (.*)$`) })
	whereAtRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` at ([^:]+):(\d+)`) })
	errorRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^error: (.*)$`) })
	runningErr = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`Process is running|requires a process which is currently stopped`)
	})
)

// latestState finds the last process state report in out: exited, stopped
// (with the stop reason of the selected thread) or running. ok is false when
// out reports none.
func latestState(out string) (st debugger.State, ok bool) {
	type hit struct {
		at int
		fn func()
	}
	var last hit
	consider := func(loc []int, fn func()) {
		if loc != nil && loc[0] >= last.at {
			last = hit{loc[0], fn}
		}
	}
	last.at = -1
	if m := exitedRE().FindAllStringSubmatchIndex(out, -1); m != nil {
		l := m[len(m)-1]
		consider(l, func() {
			pid, _ := strconv.Atoi(out[l[2]:l[3]])
			code, _ := strconv.Atoi(out[l[4]:l[5]])
			st = debugger.State{Status: debugger.StatusExited, Pid: pid,
				LastStop: &debugger.Stop{Reason: debugger.StopExited, ExitCode: &code, At: time.Now()}}
		})
	}
	if m := stoppedRE().FindAllStringSubmatchIndex(out, -1); m != nil {
		l := m[len(m)-1]
		consider(l, func() {
			pid, _ := strconv.Atoi(out[l[2]:l[3]])
			st = debugger.State{Status: debugger.StatusStopped, Pid: pid, LastStop: parseStop(out[l[0]:])}
		})
	}
	exitedPid := ""
	if m := exitedRE().FindAllStringSubmatch(out, -1); m != nil {
		exitedPid = m[len(m)-1][1]
	}
	if m := runningRE().FindAllStringSubmatchIndex(out, -1); m != nil {
		l := m[len(m)-1]
		if out[l[2]:l[3]] == exitedPid {
			// lldb prints a command's "resuming" and the event thread's exit
			// report concurrently: a fast exit can come first. An exited
			// process does not run again.
			l = nil
		}
		consider(l, func() {
			pid, _ := strconv.Atoi(out[l[2]:l[3]])
			st = debugger.State{Status: debugger.StatusRunning, Pid: pid}
		})
	}
	if l := launchedRE().FindStringSubmatchIndex(out); l != nil && !reported(out, out[l[2]:l[3]]) {
		consider(l, func() {
			pid, _ := strconv.Atoi(out[l[2]:l[3]])
			st = debugger.State{Status: debugger.StatusRunning, Pid: pid}
		})
	}
	if last.fn == nil {
		return debugger.State{}, false
	}
	last.fn()
	return st, true
}

// reported tells whether out reports a stop or exit of process pid.
func reported(out, pid string) bool {
	return strings.Contains(out, "Process "+pid+" stopped") || strings.Contains(out, "Process "+pid+" exited")
}

// parseStop reads "* thread #1, ..., stop reason = X" after a stop report.
func parseStop(out string) *debugger.Stop {
	s := &debugger.Stop{Reason: debugger.StopOther, At: time.Now()}
	m := reasonRE().FindStringSubmatch(out)
	if m == nil {
		return s
	}
	s.ThreadID, _ = strconv.Atoi(m[1])
	reason := strings.TrimSpace(m[2])
	s.Description = reason
	switch {
	case strings.HasPrefix(reason, "breakpoint"):
		s.Reason = debugger.StopBreakpoint
		for _, id := range bpHitRE().FindAllStringSubmatch(reason, -1) {
			n, _ := strconv.Atoi(id[1])
			s.BreakpointIDs = append(s.BreakpointIDs, n)
		}
	case debugger.LLDBWatchHit(reason) != 0:
		s.Reason = debugger.StopBreakpoint // lldb's watchpoint id: Backend.ours makes it ours
		s.Watch = &debugger.WatchHit{ID: debugger.LLDBWatchHit(reason)}
	case strings.HasPrefix(reason, "step") || strings.HasPrefix(reason, "trace") || strings.HasPrefix(reason, "plan"):
		s.Reason = debugger.StopStep
	case strings.HasPrefix(reason, "signal"):
		s.Reason = debugger.StopSignal
		s.Signal = signalRE().FindString(reason)
		if s.Signal == "SIGSTOP" || s.Signal == "SIGINT" {
			s.Reason, s.Signal = debugger.StopPause, ""
		}
	case strings.HasPrefix(reason, "exception"):
		s.Reason = debugger.StopException
		s.Signal = signalRE().FindString(reason)
	case strings.HasPrefix(reason, "instruction"):
		s.Reason = debugger.StopPause
	}
	return s
}

// parseFrames reads `thread backtrace` output, each line as coredump reads
// lldb's (a C++ method's qualifiers, templates and lambdas included).
// Frame IDs are index+1, so that 0 can mean "the top frame".
func parseFrames(out string) []debugger.Frame {
	var frames []debugger.Frame
	for _, line := range strings.Split(out, "\n") {
		c, ok := coredump.ParseLLDBFrameLine(line)
		if !ok {
			continue
		}
		f := debugger.Frame{ID: c.Index + 1, Index: c.Index, Address: fmt.Sprintf("0x%016x", c.Address),
			Function: c.Function, File: c.File, Line: c.Line, Module: c.Module}
		if f.Function == "" {
			f.Function = "??"
		}
		frames = append(frames, f)
	}
	return frames
}

// parseVariables reads top-level `frame variable` lines: "(type) name = value".
// Multi-line values (structs printed with children) are folded into Value.
func parseVariables(out string) []debugger.Variable {
	var vars []debugger.Variable
	for _, line := range strings.Split(out, "\n") {
		if m := varRE().FindStringSubmatch(line); m != nil {
			vars = append(vars, debugger.Variable{Type: m[1], Name: m[2], Value: m[3]})
			continue
		}
		if len(vars) > 0 && strings.TrimSpace(line) != "" {
			v := &vars[len(vars)-1]
			v.Value += " " + strings.TrimSpace(line)
		}
	}
	return vars
}

// lldbError returns the first "error: ..." line of out, or "".
func lldbError(out string) string {
	if m := errorRE().FindStringSubmatch(out); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// quote makes s one lldb command argument. lldb's parser (not a shell)
// honours backslash escapes inside double quotes; backticks would be
// evaluated as expressions, so they are escaped too.
func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`")
	return `"` + r.Replace(s) + `"`
}
