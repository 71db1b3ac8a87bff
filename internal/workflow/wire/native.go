package wire

import (
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
)

// Frame is one frame of a native backtrace, from a core or a live process.
type Frame struct {
	Index    int    `json:"index" jsonschema:"0 is the innermost"`
	Module   string `json:"module,omitempty" jsonschema:"image or shared object of the pc"`
	Function string `json:"function,omitempty" jsonschema:"as the debugger printed it"`
	Offset   uint64 `json:"offset,omitempty" jsonschema:"pc's distance from the function (or module) start"`
	Address  uint64 `json:"address,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty" jsonschema:"1-based"`
	Inlined  bool   `json:"inlined,omitempty"`
}

// Artifact is a crash artifact found after a run.
type Artifact struct {
	Kind    string    `json:"kind" jsonschema:"core, ips, crash, coredumpctl or apport"`
	Path    string    `json:"path,omitempty"`
	Size    int64     `json:"size,omitempty" jsonschema:"bytes"`
	ModTime time.Time `json:"mod_time,omitzero"`
	Note    string    `json:"note,omitempty"`
}

// Trace is a crashing thread's backtrace, as a debugger printed it.
type Trace struct {
	Debugger string     `json:"debugger" jsonschema:"gdb or lldb"`
	Signal   string     `json:"signal,omitempty"`
	Reason   string     `json:"reason,omitempty" jsonschema:"the debugger's stop reason"`
	Frames   []Frame    `json:"frames"`
	Warnings []string   `json:"warnings,omitempty"`
	Site     *CrashSite `json:"site,omitempty" jsonschema:"the crash site: source, arguments and locals of the first frame in the project's code"`
}

// NoDebugInfo names the file whose missing debug info keeps a frame from a
// file:line.
type NoDebugInfo struct {
	File     string `json:"file" jsonschema:"executable or shared library"`
	Function string `json:"function,omitempty"`
	Stripped bool   `json:"stripped,omitempty" jsonschema:"no symbol table either"`
}

// FramesOf converts native frames.
func FramesOf(fs []coredump.Frame) []Frame { return list(fs, FrameOf) }

// FrameOf converts a native frame.
func FrameOf(f coredump.Frame) Frame { return Frame(f) }

// ArtifactsOf converts crash artifacts.
func ArtifactsOf(as []coredump.Artifact) []Artifact {
	return list(as, func(a coredump.Artifact) Artifact { return Artifact(a) })
}

// TraceOf converts a backtrace, nil for nil.
func TraceOf(t *coredump.Trace) *Trace {
	return ptr(t, func(t coredump.Trace) Trace {
		return Trace{Debugger: t.Debugger, Signal: t.Signal, Reason: t.Reason, Frames: FramesOf(t.Frames), Warnings: t.Warnings, Site: CrashSiteOf(t.Site)}
	})
}

// NoDebugInfoOf converts a missing-debug-info note, nil for nil.
func NoDebugInfoOf(n *coredump.NoDebugInfo) *NoDebugInfo {
	return ptr(n, func(n coredump.NoDebugInfo) NoDebugInfo { return NoDebugInfo(n) })
}

// CrashSite is the frame a crash is reported at (the first in the
// project's own code) with its source, arguments and locals, bounded.
type CrashSite struct {
	Frame     int          `json:"frame" jsonschema:"its index in the backtrace; -1 for a trace in the output (a Go or Rust panic)"`
	Function  string       `json:"function,omitempty"`
	File      string       `json:"file,omitempty" jsonschema:"as the debugger or the trace printed it"`
	Line      int          `json:"line,omitempty"`
	Path      string       `json:"path,omitempty" jsonschema:"the source file read"`
	Source    []SourceLine `json:"source,omitempty" jsonschema:"lines around the faulting one"`
	Args      []Var        `json:"args,omitempty"`
	Locals    []Var        `json:"locals,omitempty"`
	VarsCut   int          `json:"vars_cut,omitempty" jsonschema:"arguments and locals left out"`
	FaultAddr string       `json:"fault_addr,omitempty" jsonschema:"a memory fault's address, 0x0 for NULL"`
	Callers   []Caller     `json:"callers,omitempty" jsonschema:"the frames above in the project's code that called toward the crash, innermost first, up to the one that computed or passed the faulting value (at most 3)"`
}

// Caller is a frame above the crash site that called toward it, bounded
// like the site: its call's line with one line either side, a few
// arguments and locals.
type Caller struct {
	Frame    int          `json:"frame" jsonschema:"its index in the backtrace"`
	Function string       `json:"function,omitempty"`
	File     string       `json:"file,omitempty"`
	Line     int          `json:"line,omitempty"`
	Path     string       `json:"path,omitempty" jsonschema:"the source file read"`
	Source   []SourceLine `json:"source,omitempty" jsonschema:"the call's line and one line either side"`
	Args     []Var        `json:"args,omitempty"`
	Locals   []Var        `json:"locals,omitempty"`
	VarsCut  int          `json:"vars_cut,omitempty" jsonschema:"arguments and locals left out"`
	Param    string       `json:"param,omitempty" jsonschema:"the argument of the frame below that this frame passed"`
	Expr     string       `json:"expr,omitempty" jsonschema:"the expression this frame's call passes as param"`
}

// SourceLine is one line of a crash site's source.
type SourceLine struct {
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Current bool   `json:"current,omitempty" jsonschema:"the faulting line"`
}

// Var is an argument or local as the debugger printed it (pointers as
// their value).
type Var struct {
	Name      string `json:"name"`
	Value     string `json:"value"`
	NearFault bool   `json:"near_fault,omitempty" jsonschema:"a pointer at or just below the fault address"`
}

// CrashSiteOf converts a crash site, nil for nil.
func CrashSiteOf(s *crashsite.Site) *CrashSite {
	return ptr(s, func(s crashsite.Site) CrashSite {
		return CrashSite{
			Frame: s.Index, Function: s.Function, File: s.File, Line: s.Line, Path: s.Path,
			Source:  list(s.Source, func(l crashsite.SourceLine) SourceLine { return SourceLine(l) }),
			Args:    list(s.Args, func(v crashsite.Var) Var { return Var(v) }),
			Locals:  list(s.Locals, func(v crashsite.Var) Var { return Var(v) }),
			VarsCut: s.VarsCut, FaultAddr: s.FaultAddr,
			Callers: list(s.Callers, callerOf),
		}
	})
}

func callerOf(c crashsite.Caller) Caller {
	return Caller{
		Frame: c.Index, Function: c.Function, File: c.File, Line: c.Line, Path: c.Path,
		Source:  list(c.Source, func(l crashsite.SourceLine) SourceLine { return SourceLine(l) }),
		Args:    list(c.Args, func(v crashsite.Var) Var { return Var(v) }),
		Locals:  list(c.Locals, func(v crashsite.Var) Var { return Var(v) }),
		VarsCut: c.VarsCut, Param: c.Param, Expr: c.Expr,
	}
}
