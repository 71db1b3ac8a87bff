package wire

import (
	"time"

	"github.com/triage-dev/triage/internal/debugger"
)

// DebugState is a debug session's target state.
type DebugState struct {
	Status   string `json:"status" jsonschema:"not_started, running, stopped, exited or dead"`
	LastStop *Stop  `json:"last_stop,omitempty" jsonschema:"the most recent stop, whatever happened since"`
	Pid      int    `json:"pid,omitempty"`
	Error    string `json:"error,omitempty" jsonschema:"why the session is dead"`
	// Threads is set on a stop of a target of several threads.
	Threads *DebugThreads `json:"threads,omitempty" jsonschema:"a stop of several threads: where the others are"`
}

// DebugThreads is a stopped target's threads: the stop's, and where the
// others are, as the answer's text says it.
type DebugThreads struct {
	Count   int           `json:"count" jsonschema:"how many threads the debugger listed"`
	Stopped int           `json:"stopped,omitempty" jsonschema:"id of the thread the stop is in"`
	Summary string        `json:"summary" jsonschema:"the answer's text about them"`
	List    []DebugThread `json:"list" jsonschema:"the first 16 threads; debug_stack's thread takes id or num"`
}

// DebugThread is one thread of a stopped target.
type DebugThread struct {
	ID     int         `json:"id"`
	Num    int         `json:"num,omitempty" jsonschema:"as its debugger numbers it (#N in the text)"`
	Tid    int64       `json:"tid,omitempty"`
	Name   string      `json:"name,omitempty"`
	Reason string      `json:"reason,omitempty" jsonschema:"why it stopped, in the debugger's words"`
	State  string      `json:"state,omitempty" jsonschema:"stopped: why, blocked in a call, or in a call"`
	Frame  *DebugFrame `json:"frame,omitempty" jsonschema:"its top frame in the program's own code, else its top frame"`
	Own    bool        `json:"own,omitempty" jsonschema:"frame is in the program's own code"`
}

// DebugThreadsOf converts a stop's threads (nil: none, or one).
func DebugThreadsOf(l *debugger.ThreadList) *DebugThreads {
	if l == nil {
		return nil
	}
	out := &DebugThreads{Count: len(l.Threads), Stopped: l.Stopped, Summary: l.Summary()}
	for i, t := range l.Threads[:min(len(l.Threads), debugger.MaxThreadsListed)] {
		dt := DebugThread{ID: t.ID, Num: l.Number(i), Tid: t.Tid, Name: t.Name, Reason: t.Reason, State: t.State, Own: t.Own}
		if t.Frame != nil {
			f := DebugFrame(*t.Frame)
			dt.Frame = &f
		}
		out.List = append(out.List, dt)
	}
	return out
}

// Stop is one stop of a debugged target.
type Stop struct {
	Reason        string    `json:"reason" jsonschema:"breakpoint, signal, exception, step, pause, entry, exited, core or other"`
	Description   string    `json:"description,omitempty" jsonschema:"the debugger's own words"`
	ThreadID      int       `json:"thread_id,omitempty"`
	Signal        string    `json:"signal,omitempty"`
	BreakpointIDs []int     `json:"breakpoint_ids,omitempty"`
	ExitCode      *int      `json:"exit_code,omitempty"`
	At            time.Time `json:"at"`
}

// DebugFrame is one frame of a debugged thread.
type DebugFrame struct {
	ID       int    `json:"id" jsonschema:"for debug_variables and debug_evaluate"`
	Index    int    `json:"index" jsonschema:"0 is the innermost"`
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty" jsonschema:"1-based"`
	Address  string `json:"address,omitempty"`
	Module   string `json:"module,omitempty" jsonschema:"the shared object or executable, when the debugger names it"`
}

// Breakpoint is a breakpoint of a debug session.
type Breakpoint struct {
	ID       int              `json:"id"`
	Spec     BreakpointTarget `json:"spec" jsonschema:"where it was asked for"`
	Verified bool             `json:"verified" jsonschema:"the debugger found code there"`
	Message  string           `json:"message,omitempty" jsonschema:"why it is not verified"`
	File     string           `json:"file,omitempty" jsonschema:"resolved location"`
	Line     int              `json:"line,omitempty"`
}

// BreakpointTarget is where a breakpoint was asked for.
type BreakpointTarget struct {
	File         string `json:"file,omitempty"`
	Line         int    `json:"line,omitempty"`
	Function     string `json:"function,omitempty"`
	Condition    string `json:"condition,omitempty"`
	HitCondition string `json:"hit_condition,omitempty"`
}

// Variable is a value, with its children as far as the limits allowed.
type Variable struct {
	Name     string     `json:"name"`
	Type     string     `json:"type,omitempty"`
	Value    string     `json:"value"`
	Children []Variable `json:"children,omitempty"`
	Cut      string     `json:"cut,omitempty" jsonschema:"what the limits left out"`
}

// DebugStateOf converts a session state.
func DebugStateOf(s debugger.State) DebugState {
	return DebugState{Status: string(s.Status), LastStop: ptr(s.LastStop, stopOf), Pid: s.Pid, Error: s.Error}
}

func stopOf(s debugger.Stop) Stop {
	return Stop{Reason: string(s.Reason), Description: s.Description, ThreadID: s.ThreadID, Signal: s.Signal, BreakpointIDs: s.BreakpointIDs, ExitCode: s.ExitCode, At: s.At}
}

// DebugFramesOf converts stack frames.
func DebugFramesOf(fs []debugger.Frame) []DebugFrame {
	return list(fs, func(f debugger.Frame) DebugFrame { return DebugFrame(f) })
}

// BreakpointOf converts a breakpoint.
func BreakpointOf(b debugger.Breakpoint) Breakpoint {
	// Watch and exception specs are not on the wire yet (the tools/list
	// token budget): only the code breakpoint's fields are carried.
	spec := BreakpointTarget{File: b.Spec.File, Line: b.Spec.Line, Function: b.Spec.Function, Condition: b.Spec.Condition, HitCondition: b.Spec.HitCondition}
	return Breakpoint{ID: b.ID, Spec: spec, Verified: b.Verified, Message: b.Message, File: b.File, Line: b.Line}
}

// BreakpointsOf converts breakpoints.
func BreakpointsOf(bs []debugger.Breakpoint) []Breakpoint { return list(bs, BreakpointOf) }

// VariableOf converts a value and its children.
func VariableOf(v debugger.Variable) Variable {
	return Variable{Name: v.Name, Type: v.Type, Value: v.Value, Children: VariablesOf(v.Children), Cut: v.Cut}
}

// VariablesOf converts values.
func VariablesOf(vs []debugger.Variable) []Variable { return list(vs, VariableOf) }

// Register is one register; role names the pc, sp and fp.
type Register struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Role  string `json:"role,omitempty" jsonschema:"pc, sp or fp"`
}

// Instruction is one machine instruction and the source line it is of.
type Instruction struct {
	Address string   `json:"address"`
	Symbol  string   `json:"symbol,omitempty"`
	Text    string   `json:"text"`
	File    string   `json:"file,omitempty"`
	Line    int      `json:"line,omitempty"`
	Source  []string `json:"source,omitempty" jsonschema:"source rows the debugger printed before it"`
	Current bool     `json:"current,omitempty" jsonschema:"the frame's pc"`
}

// RegistersOf converts registers.
func RegistersOf(rs []debugger.Register) []Register {
	return list(rs, func(r debugger.Register) Register { return Register(r) })
}

// InstructionsOf converts instructions.
func InstructionsOf(is []debugger.Instruction) []Instruction {
	return list(is, func(i debugger.Instruction) Instruction { return Instruction(i) })
}
