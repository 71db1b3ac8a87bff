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
	// Watch is the watchpoint a stop hit, with the values it saw.
	Watch *WatchHit `json:"watch,omitempty"`
	// Exception is what an exception breakpoint caught before unwinding
	// ("c++", "go-panic", with the thrown type when the debugger tells).
	Exception string `json:"exception,omitempty"`
}

// WatchHit is a watchpoint's stop: the expression's value before and after
// the write, and the line that wrote it (the one before the pc, which a
// watchpoint leaves after the writing instruction).
type WatchHit struct {
	ID   int    `json:"id"`
	Expr string `json:"expr"`
	Old  string `json:"old,omitempty"`
	New  string `json:"new,omitempty"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Crashed reports a stop on a fatal signal or exception. A stop on a
// signal that does not kill the target (stopSignals) is no crash, nor is
// an exception breakpoint's stop (the throw is caught before unwinding).
func (s *Stop) Crashed() bool {
	return s != nil && s.Exception == "" && (s.Reason == StopSignal || s.Reason == StopException || s.Reason == StopCore && s.Signal != "") &&
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

// BreakpointSpec is where to stop: File and Line, or Function, or a
// watched expression (Watch, with its Access), or an exception kind.
type BreakpointSpec struct {
	File         string `json:"file,omitempty"`
	Line         int    `json:"line,omitempty"`
	Function     string `json:"function,omitempty"`
	Condition    string `json:"condition,omitempty"`
	HitCondition string `json:"hit_condition,omitempty"` // e.g. "3": stop on the third hit
	Watch        string `json:"watch,omitempty"`         // an lvalue whose memory is watched
	Access       string `json:"access,omitempty"`        // write (default), read, readwrite
	Exception    string `json:"exception,omitempty"`     // see ParseException
	// LogMessage makes a code breakpoint a logpoint: each hit records
	// the message, its {expressions} evaluated, and the target goes on.
	LogMessage string `json:"log_message,omitempty"`
}

// Kind is "line", "function", "watch" or "exception".
func (s BreakpointSpec) Kind() string {
	switch {
	case s.Watch != "":
		return "watch"
	case s.Exception != "":
		return "exception"
	case s.Function != "":
		return "function"
	}
	return "line"
}

// Validate checks the spec names exactly one location, and a watch's
// access and an exception's kind.
func (s BreakpointSpec) Validate() error {
	n := 0
	for _, set := range []bool{s.Function != "", s.File != "", s.Watch != "", s.Exception != ""} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return errors.New("breakpoint: give one of a function, a file:line, a watch expression or an exception kind")
	case n == 0:
		return errors.New("breakpoint: give a function or a file:line (or a watch expression, or an exception kind)")
	case s.File != "" && s.Line <= 0:
		return fmt.Errorf("breakpoint: line must be positive, got %d", s.Line)
	case s.Access != "" && s.Watch == "":
		return errors.New("breakpoint: access applies to a watch expression only")
	case (s.Watch != "" || s.Exception != "") && (s.Condition != "" || s.HitCondition != ""):
		return errors.New("breakpoint: condition and hit count apply to code breakpoints, not to watches or exceptions")
	}
	if s.LogMessage != "" {
		if s.Watch != "" || s.Exception != "" {
			return errors.New("breakpoint: a log message applies to code breakpoints, not to watches or exceptions")
		}
		if _, err := ParseLogMessage(s.LogMessage); err != nil {
			return err
		}
	}
	if s.Watch != "" {
		if _, err := ParseAccess(s.Access); err != nil {
			return err
		}
	}
	if s.Exception != "" {
		if _, err := ParseException(s.Exception); err != nil {
			return err
		}
	}
	return nil
}

func (s BreakpointSpec) String() string {
	switch {
	case s.Watch != "":
		a, _ := ParseAccess(s.Access)
		return fmt.Sprintf("watch %s (%s)", s.Watch, a)
	case s.Exception != "":
		return "exception " + s.Exception
	case s.Function != "" && s.LogMessage != "":
		return fmt.Sprintf("%s (logging %q)", s.Function, s.LogMessage)
	case s.Function != "":
		return s.Function
	case s.LogMessage != "":
		return fmt.Sprintf("%s:%d (logging %q)", s.File, s.Line, s.LogMessage)
	}
	return fmt.Sprintf("%s:%d", s.File, s.Line)
}

// Breakpoint is a breakpoint the backend knows about. ID is ours, stable for
// the session. An unverified breakpoint (no code at that location yet, or a
// file the debugger cannot find) says why in Message.
type Breakpoint struct {
	ID       int            `json:"id"`
	Kind     string         `json:"kind"` // Spec.Kind()
	Spec     BreakpointSpec `json:"spec"`
	Verified bool           `json:"verified"`
	Message  string         `json:"message,omitempty"`
	File     string         `json:"file,omitempty"` // resolved location
	Line     int            `json:"line,omitempty"`
	// Via says how a watch or exception stop was set when not by the
	// backend's own request ("lldb's watchpoint set through evaluate: the
	// adapter has no data breakpoints").
	Via string `json:"via,omitempty"`
	// Value is a watched expression's value when last seen.
	Value string `json:"value,omitempty"`
}

// StepKind is over, in or out.
type StepKind string

const (
	StepOver StepKind = "over"
	StepIn   StepKind = "in"
	StepOut  StepKind = "out"
)

// Thread is one of the target's threads: ID as the backend's requests
// take it (a DAP adapter's id, lldb's #N); Num as its debugger numbers it
// for a person (lldb's #N, gdb's thread number, dlv's goroutine id), 0
// when it does not; Tid the OS thread's id, when told; Name its name;
// Reason why it stopped, in the debugger's own words ("breakpoint 1.1",
// "signal SIGSEGV"), where the debugger says so of each thread (lldb).
// State and Frame are what ListThreads adds (threads.go).
type Thread struct {
	ID     int    `json:"id"`
	Num    int    `json:"num,omitempty"`
	Tid    int64  `json:"tid,omitempty"`
	Name   string `json:"name,omitempty"`
	Reason string `json:"reason,omitempty"`
	// State says what the thread does: "blocked in pthread_join" or "in
	// memcpy" (the call its own code made), "stopped: breakpoint 1.1" (the
	// stop's thread, stopped in its own code), "" when not known.
	State string `json:"state,omitempty"`
	// Frame is its top frame in the program's own code (crashsite's
	// rule), else its top frame; nil when not fetched.
	Frame *Frame `json:"frame,omitempty"`
	// Own says Frame is in the program's own code.
	Own bool `json:"own,omitempty"`
}

// Frame is one stack frame. ID is what Variables and Evaluate take.
type Frame struct {
	ID       int    `json:"id"`
	Index    int    `json:"index"`
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Address  string `json:"address,omitempty"`
	// Module is the shared object or executable the pc is in, where the
	// debugger names it (lldb's command line).
	Module string `json:"module,omitempty"`
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
