package debugger

import (
	"errors"
	"fmt"
	"time"
)

// Errors callers branch on with errors.Is.
var (
	ErrUnknownSession    = errors.New("unknown debug session")
	ErrNoSession         = errors.New("no current debug session")
	ErrSessionDead       = errors.New("debugger is gone")
	ErrRunning           = errors.New("target is running: pause it or continue with a wait")
	ErrNotStarted        = errors.New("no target: launch, attach or open a core first")
	ErrTargetExited      = errors.New("target has exited")
	ErrUnsupported       = errors.New("not supported by this backend")
	ErrUnknownBreakpoint = errors.New("unknown breakpoint")
	ErrUnknownBackend    = errors.New("unknown debugger backend")
	ErrTimeout           = errors.New("timed out waiting for the target to stop")
)

// Status is the coarse state of a session's target.
type Status string

const (
	StatusNotStarted Status = "not_started"
	StatusRunning    Status = "running"
	StatusStopped    Status = "stopped"
	StatusExited     Status = "exited"
	StatusDead       Status = "dead" // the debugger (adapter or lldb) died
)

// StopReason says why the target last stopped.
type StopReason string

const (
	StopBreakpoint StopReason = "breakpoint"
	StopSignal     StopReason = "signal"
	StopException  StopReason = "exception"
	StopStep       StopReason = "step"
	StopPause      StopReason = "pause"
	StopEntry      StopReason = "entry"
	StopExited     StopReason = "exited"
	StopCore       StopReason = "core" // a core file: the state it was dumped in
	StopOther      StopReason = "other"
)

// Stop is one stop of the target.
type Stop struct {
	Reason        StopReason `json:"reason"`
	Description   string     `json:"description,omitempty"` // the debugger's own words
	ThreadID      int        `json:"thread_id,omitempty"`
	Signal        string     `json:"signal,omitempty"` // "SIGSEGV" for signal stops
	BreakpointIDs []int      `json:"breakpoint_ids,omitempty"`
	ExitCode      *int       `json:"exit_code,omitempty"` // for StopExited
	At            time.Time  `json:"at"`
}

// Crashed reports a stop on a fatal signal or exception. A stop on a
// signal that does not kill the target (stopSignals) is no crash.
func (s *Stop) Crashed() bool {
	return s != nil && (s.Reason == StopSignal || s.Reason == StopException || s.Reason == StopCore && s.Signal != "") &&
		!stopSignals[s.Signal]
}

// stopSignals are signals a debugger reports as stops but that do not kill
// the target: the SIGSTOP of a launch or attach, job control, a pause's
// SIGINT.
var stopSignals = map[string]bool{
	"SIGSTOP": true, "SIGTSTP": true, "SIGTTIN": true, "SIGTTOU": true,
	"SIGCONT": true, "SIGCHLD": true, "SIGWINCH": true, "SIGURG": true, "SIGINT": true,
}

func (s *Stop) String() string {
	switch {
	case s == nil:
		return "never stopped"
	case s.Reason == StopExited && s.ExitCode != nil:
		return fmt.Sprintf("exited with code %d", *s.ExitCode)
	case s.Signal != "":
		return fmt.Sprintf("stopped by %s (%s)", s.Signal, s.Reason)
	case s.Description != "":
		return fmt.Sprintf("stopped: %s (%s)", s.Reason, s.Description)
	}
	return "stopped: " + string(s.Reason)
}

// State is a session's target state. LastStop survives a continue: it is the
// most recent stop, whatever happened since.
type State struct {
	Status   Status `json:"status"`
	LastStop *Stop  `json:"last_stop,omitempty"`
	Pid      int    `json:"pid,omitempty"`
	Error    string `json:"error,omitempty"` // why the session is dead
}

// LaunchSpec describes a program to start under the debugger.
type LaunchSpec struct {
	Program     string
	Args        []string
	Dir         string
	Env         map[string]string
	StopOnEntry bool
	// Breakpoints are set before the program starts running.
	Breakpoints []BreakpointSpec
	// SSHHost runs the debugger on that host ("" here); the paths are
	// the host's (see the package documentation).
	SSHHost string
}

// AttachSpec names a running process.
type AttachSpec struct {
	Pid     int
	Program string // optional: helps symbol loading
	// Debugger is the debugger program to run instead of one found on
	// PATH: an lldb-dap (or lldb-vscode) adapter for the dap backend, lldb
	// for the command line (Xcode's, which xcrun finds).
	Debugger string
	// StayStopped keeps the process stopped after attaching, where the
	// backend would resume it (lldb-dap does, unless asked not to).
	StayStopped bool
	SSHHost     string // as LaunchSpec.SSHHost
}

// CoreSpec names a core file and the executable that produced it.
type CoreSpec struct {
	Program string
	Core    string
	SSHHost string // as LaunchSpec.SSHHost
}

// BreakpointSpec is where to stop: File and Line, or Function.
type BreakpointSpec struct {
	File         string `json:"file,omitempty"`
	Line         int    `json:"line,omitempty"`
	Function     string `json:"function,omitempty"`
	Condition    string `json:"condition,omitempty"`
	HitCondition string `json:"hit_condition,omitempty"` // e.g. "3": stop on the third hit
}

// Validate checks the spec names exactly one location.
func (s BreakpointSpec) Validate() error {
	switch {
	case s.Function != "" && s.File != "":
		return errors.New("breakpoint: give a function or a file:line, not both")
	case s.Function == "" && s.File == "":
		return errors.New("breakpoint: give a function or a file:line")
	case s.File != "" && s.Line <= 0:
		return fmt.Errorf("breakpoint: line must be positive, got %d", s.Line)
	}
	return nil
}

func (s BreakpointSpec) String() string {
	if s.Function != "" {
		return s.Function
	}
	return fmt.Sprintf("%s:%d", s.File, s.Line)
}

// Breakpoint is a breakpoint the backend knows about. ID is ours, stable for
// the session. An unverified breakpoint (no code at that location yet, or a
// file the debugger cannot find) says why in Message.
type Breakpoint struct {
	ID       int            `json:"id"`
	Spec     BreakpointSpec `json:"spec"`
	Verified bool           `json:"verified"`
	Message  string         `json:"message,omitempty"`
	File     string         `json:"file,omitempty"` // resolved location
	Line     int            `json:"line,omitempty"`
}

// StepKind is over, in or out.
type StepKind string

const (
	StepOver StepKind = "over"
	StepIn   StepKind = "in"
	StepOut  StepKind = "out"
)

// Frame is one stack frame. ID is what Variables and Evaluate take.
type Frame struct {
	ID       int    `json:"id"`
	Index    int    `json:"index"`
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Address  string `json:"address,omitempty"`
}

// Variable is a named value, with children down to the requested depth.
type Variable struct {
	Name     string     `json:"name"`
	Type     string     `json:"type,omitempty"`
	Value    string     `json:"value"`
	Children []Variable `json:"children,omitempty"`
	// Cut says what the limits left out ("value cut at 256 of 10000 bytes",
	// "40 of 1000 elements shown", "children beyond depth 2 not fetched").
	Cut string `json:"cut,omitempty"`
}

// VariablesRequest selects what Variables returns.
type VariablesRequest struct {
	Thread int    // 0: the stopped thread
	Frame  int    // frame ID from Stack; 0 with Thread picks the top frame
	Scope  string // "locals", "arguments", "registers", "globals"; "" = locals and arguments
	Depth  int    // levels of children to fetch; 0 = DefaultLimits().Depth
}

// ContinueOptions: Wait > 0 waits up to that long for the next stop.
type ContinueOptions struct {
	Thread int
	Wait   time.Duration
}
