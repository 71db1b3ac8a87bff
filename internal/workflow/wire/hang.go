package wire

import (
	"time"

	"github.com/triage-dev/triage/internal/hang"
)

// Hang is what was taken from a hung program before it was killed: its
// stacks, and where it was stuck.
type Hang struct {
	Processes   []HangProcess `json:"processes" jsonschema:"the processes whose stacks were taken"`
	Stacks      []Stack       `json:"stacks,omitempty" jsonschema:"kept stacks, the stuck ones first"`
	TotalStacks int           `json:"total_stacks" jsonschema:"all stacks, kept or not"`
	Stuck       []Stuck       `json:"stuck,omitempty" jsonschema:"where it was stuck"`
	Notes       []string      `json:"notes,omitempty" jsonschema:"what could not be taken"`
	Duration    time.Duration `json:"duration_ns" jsonschema:"time taken to take the stacks"`
}

// HangProcess is one process whose stacks were taken.
type HangProcess struct {
	Pid    int    `json:"pid"`
	Comm   string `json:"comm"`
	Method string `json:"method" jsonschema:"SIGQUIT (Go), gdb or lldb"`
	Err    string `json:"error,omitempty"`
}

// Stack is one goroutine's or thread's stack.
type Stack struct {
	Pid       int     `json:"pid,omitempty"`
	Kind      string  `json:"kind" jsonschema:"goroutine or thread"`
	ID        int     `json:"id"`
	LWP       int     `json:"lwp,omitempty"`
	Name      string  `json:"name,omitempty"`
	State     string  `json:"state,omitempty" jsonschema:"the Go wait reason, or running"`
	Frames    []Frame `json:"frames"`
	CreatedBy string  `json:"created_by,omitempty"`
}

// Stuck is a stack that waited, and on what.
type Stuck struct {
	Stack  int    `json:"stack" jsonschema:"index in stacks"`
	Kind   string `json:"kind"`
	ID     int    `json:"id"`
	Frame  Frame  `json:"frame" jsonschema:"where it waited, in the project's code where it can be"`
	Reason string `json:"reason" jsonschema:"what it waited for"`
	Lock   bool   `json:"lock,omitempty" jsonschema:"waiting to take a lock"`
	Test   string `json:"test,omitempty" jsonschema:"the running test it belongs to"`
	Case   string `json:"case,omitempty" jsonschema:"the test framework's case inside the test, read from the source at its frame in the test file"`
}

// HangOf converts a hang report, nil for nil.
func HangOf(r *hang.Report) *Hang {
	return ptr(r, func(r hang.Report) Hang {
		return Hang{
			Processes: list(r.Processes, func(p hang.Process) HangProcess { return HangProcess(p) }),
			Stacks: list(r.Stacks, func(s hang.Stack) Stack {
				return Stack{Pid: s.Pid, Kind: s.Kind, ID: s.ID, LWP: s.LWP, Name: s.Name, State: s.State, Frames: FramesOf(s.Frames), CreatedBy: s.CreatedBy}
			}),
			TotalStacks: r.TotalStacks,
			Stuck: list(r.Stuck, func(s hang.Stuck) Stuck {
				return Stuck{Stack: s.Stack, Kind: s.Kind, ID: s.ID, Frame: FrameOf(s.Frame), Reason: s.Reason, Lock: s.Lock, Test: s.Test, Case: s.Case}
			}),
			Notes: r.Notes, Duration: r.Duration,
		}
	})
}
