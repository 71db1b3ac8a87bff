package debugger

import (
	"errors"
	"fmt"
	"testing"
)

// TestVerdictOf: a state comes to one verdict; a stop on a signal that
// does not kill is no crash, and a breakpoint stop names its breakpoint
// by the top frame's line when the adapter did not say which.
func TestVerdictOf(t *testing.T) {
	code := 3
	bps := []Breakpoint{{ID: 1, File: "/src/prog.c", Line: 5}, {ID: 2, File: "/src/lib.c", Line: 9}}
	top := []Frame{{Function: "add", File: "/build/../src/prog.c", Line: 5}}
	for _, tt := range []struct {
		name string
		st   State
		want Verdict
	}{
		{"dead", State{Status: StatusDead}, Verdict{Kind: VerdictDead}},
		{"exited", State{Status: StatusExited, LastStop: &Stop{Reason: StopExited, ExitCode: &code}}, Verdict{Kind: VerdictExited, ExitCode: &code}},
		{"running", State{Status: StatusRunning}, Verdict{Kind: VerdictRunning}},
		{"segv", State{Status: StatusStopped, LastStop: &Stop{Reason: StopSignal, Signal: "SIGSEGV"}}, Verdict{Kind: VerdictCrashed, Signal: "SIGSEGV"}},
		{"exception", State{Status: StatusStopped, LastStop: &Stop{Reason: StopException}}, Verdict{Kind: VerdictCrashed, Signal: "exception"}},
		{"attach SIGSTOP", State{Status: StatusStopped, LastStop: &Stop{Reason: StopSignal, Signal: "SIGSTOP"}}, Verdict{Kind: VerdictSignal, Signal: "SIGSTOP"}},
		{"breakpoint by line", State{Status: StatusStopped, LastStop: &Stop{Reason: StopBreakpoint}}, Verdict{Kind: VerdictBreakpoint, Breakpoint: 1}},
		{"breakpoint named", State{Status: StatusStopped, LastStop: &Stop{Reason: StopBreakpoint, BreakpointIDs: []int{2}}}, Verdict{Kind: VerdictBreakpoint, Breakpoint: 2}},
		{"step", State{Status: StatusStopped, LastStop: &Stop{Reason: StopStep}}, Verdict{Kind: VerdictStopped, Reason: StopStep}},
	} {
		if got := VerdictOf(tt.st, top, bps); fmt.Sprint(got) != fmt.Sprint(tt.want) || (got.ExitCode == nil) != (tt.want.ExitCode == nil) {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestRefusalOf(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want StartRefusal
	}{
		{nil, NotRefused},
		{fmt.Errorf("backend %q: %w", "x", ErrUnknownBackend), RefusedArgument},
		{errors.New("attach: ptrace: Operation not permitted"), RefusedPermission},
		{errors.New("error: No such process"), RefusedArgument},
		{errors.New("attaching: no process with pid 9 on host"), RefusedArgument},
		{errors.New("adapter exited: exit status 1"), NotRefused},
	} {
		if got := RefusalOf(tt.err); got != tt.want {
			t.Errorf("%v: %d, want %d", tt.err, got, tt.want)
		}
	}
}
