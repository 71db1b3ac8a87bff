package debugger

import (
	"context"
	"time"
)

// Backend drives one debug session. Implementations are safe for concurrent
// use; a call that needs a stopped target answers ErrRunning at once, and
// every call on a dead session answers an error wrapping ErrSessionDead.
type Backend interface {
	// Name is the backend's selection name ("dap", "lldb").
	Name() string

	Launch(ctx context.Context, spec LaunchSpec) (State, error)
	Attach(ctx context.Context, spec AttachSpec) (State, error)
	LoadCore(ctx context.Context, spec CoreSpec) (State, error)
	// Detach ends debugging: detaches from an attached process, kills a
	// launched one.
	Detach(ctx context.Context) error

	AddBreakpoint(ctx context.Context, spec BreakpointSpec) (Breakpoint, error)
	RemoveBreakpoint(ctx context.Context, id int) error
	Breakpoints() []Breakpoint

	// Continue resumes; with opts.Wait > 0 it returns the state at the next
	// stop, or ErrTimeout with the target still running (never stopped by
	// the wait running out).
	Continue(ctx context.Context, opts ContinueOptions) (State, error)
	// Step steps thread (0: the last stopped thread) and waits up to wait
	// for the step to end (wait <= 0: not at all); a step still running
	// then answers ErrTimeout and runs on.
	Step(ctx context.Context, kind StepKind, thread int, wait time.Duration) (State, error)
	Pause(ctx context.Context) (State, error)
	// WaitStop waits up to d for a running target to stop, exit or lose
	// its debugger, without resuming it, and returns the state then: at
	// once when the target is not running. It waits on the debugger's own
	// reports (DAP events, lldb's stop report), never by polling. A target
	// still running after d answers ErrTimeout; d <= 0 only looks.
	WaitStop(ctx context.Context, d time.Duration) (State, error)

	Stack(ctx context.Context, thread, maxFrames int) ([]Frame, error)
	// Threads lists the target's threads; a Thread's ID is what Stack's
	// thread takes.
	Threads(ctx context.Context) ([]Thread, error)
	Variables(ctx context.Context, req VariablesRequest) ([]Variable, error)
	Evaluate(ctx context.Context, expr string, frame int) (Variable, error)
	// RawCommand passes a command to the underlying debugger's own command
	// language and returns its output.
	RawCommand(ctx context.Context, command string) (string, error)

	// ReadMemory reads bytes at an address or an expression's value;
	// unmapped memory answers an error wrapping ErrUnreadable. Registers
	// are a frame's general-purpose registers (frame 0: the top one), and
	// Disassemble a bounded run of instructions around a frame's pc or
	// from a function's start. A backend that cannot answers an error
	// wrapping ErrUnsupported that says why; one that answers through its
	// debugger's command language instead of its own request says so in
	// the result's Via.
	ReadMemory(ctx context.Context, req MemoryRequest) (Memory, error)
	Registers(ctx context.Context, frame int) (Registers, error)
	Disassemble(ctx context.Context, req DisassembleRequest) (Disassembly, error)

	State() State
	// Dispose releases everything (adapter process, files). Idempotent;
	// never panics; safe on a half-initialized backend.
	Dispose() error
}

// Config is what the Manager hands a backend factory.
type Config struct {
	// Dir is the session's private directory (adapter logs go there).
	Dir    string
	Limits Limits
	// WatchSteps bounds the single steps of one continue under software
	// watches (0: DefaultWatchSteps).
	WatchSteps int
	// SoftWatch emulates watches even where the host delivers hardware
	// ones (lldb backend; for tests of the emulation on any host).
	SoftWatch bool
}

// Factory makes an unstarted Backend.
type Factory func(Config) (Backend, error)
