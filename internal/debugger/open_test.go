package debugger

import (
	"fmt"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
)

// TestParseLocation: gdb's words name watches and exception kinds; a file
// so named with a line number stays a file, and an empty location is the
// caller's mistake.
func TestParseLocation(t *testing.T) {
	for in, want := range map[string]BreakpointSpec{
		"main":           {Function: "main"},
		"prog.c:5":       {File: "prog.c", Line: 5},
		"/a:b/prog.c:12": {File: "/a:b/prog.c", Line: 12},
		"watch:total":    {Watch: "total", Access: "write"},
		"rwatch:p->x":    {Watch: "p->x", Access: "read"},
		"awatch:g":       {Watch: "g", Access: "readwrite"},
		"catch:c++":      {Exception: "c++"},
		"watch:7":        {File: "watch", Line: 7},
		"ns::f":          {Function: "ns::f"},
	} {
		if got, err := ParseLocation(in); err != nil || got != want {
			t.Errorf("%q: %+v, %v; want %+v", in, got, err, want)
		}
	}
	if _, err := ParseLocation(""); fault.KindOf(err) != fault.KindUsage {
		t.Errorf("empty location: %v, want a usage error", err)
	}
}

// TestOpenSpecCheck: exactly one way in; a remote session's relative paths
// are refused, a bare program name is the host's to look up.
func TestOpenSpecCheck(t *testing.T) {
	for _, tt := range []struct {
		spec OpenSpec
		want string
	}{
		{OpenSpec{}, "give exactly one of"},
		{OpenSpec{Pid: 1, Core: "core"}, "give exactly one of"},
		{OpenSpec{Core: "core"}, "core needs program"},
		{OpenSpec{Pid: -1}, "must be positive"},
		{OpenSpec{Program: "./a.out", SSHHost: "h"}, "program ./a.out: give an absolute path on h"},
		{OpenSpec{Program: "a.out", Cwd: "dir", SSHHost: "h"}, "cwd dir: give an absolute path on h"},
		{OpenSpec{Program: "a.out", SSHHost: "h", ProjectDir: "/here"}, ""},
	} {
		err := tt.spec.Check()
		if got := fmt.Sprint(err); (tt.want == "") != (err == nil) || !strings.Contains(got, tt.want) {
			t.Errorf("%+v: %v, want %q", tt.spec, err, tt.want)
		}
		if err != nil && fault.KindOf(err) != fault.KindUsage {
			t.Errorf("%+v: %v is no usage error", tt.spec, err)
		}
	}
}

// TestVerdictLine: each verdict's wording, where the top frame is.
func TestVerdictLine(t *testing.T) {
	code := 3
	top := []Frame{{Function: "add", File: "/src/prog.c", Line: 5}}
	stopped := func(s Stop) State { return State{Status: StatusStopped, LastStop: &s} }
	for _, tt := range []struct {
		st   State
		want string
	}{
		{State{Status: StatusDead, Error: "adapter exited"}, "DEBUGGER DEAD: adapter exited"},
		{State{Status: StatusExited, LastStop: &Stop{Reason: StopExited, ExitCode: &code}}, "EXITED (code 3)"},
		{State{Status: StatusRunning}, "RUNNING"},
		{stopped(Stop{Reason: StopSignal, Signal: "SIGSEGV"}), "CRASHED (SIGSEGV) in add at prog.c:5"},
		{stopped(Stop{Reason: StopSignal, Signal: "SIGSTOP"}), "STOPPED (SIGSTOP) in add at prog.c:5"},
		{stopped(Stop{Reason: StopBreakpoint, BreakpointIDs: []int{2}}), "STOPPED at breakpoint 2 in add at prog.c:5"},
		{stopped(Stop{Reason: StopEntry}), "STOPPED at entry in add at prog.c:5"},
		{stopped(Stop{Reason: StopStep}), "STOPPED (step) in add at prog.c:5"},
		{stopped(Stop{Watch: &WatchHit{ID: 4, Expr: "total", Old: "1", New: "2", File: "/src/prog.c", Line: 9}}), "STOPPED at watchpoint 4: total 1 → 2, written at prog.c:9"},
	} {
		if got := VerdictLine(tt.st, top, nil); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.st, got, tt.want)
		}
	}
}
