package coredump

import (
	"fmt"
	"strings"
)

// Frame is one stack frame, from a debugger backtrace or a crash report.
// Zero values mean "not known": a frame from an unsymbolicated report has a
// Module and Address but no Function.
type Frame struct {
	Index    int    `json:"index"`
	Module   string `json:"module,omitempty"`   // image or shared object the pc is in
	Function string `json:"function,omitempty"` // symbol, demangled as the tool printed it
	// Offset is the pc's distance from Function's start, or from Module's load
	// address when Function is unknown.
	Offset  uint64 `json:"offset,omitempty"`
	Address uint64 `json:"address,omitempty"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Inlined bool   `json:"inlined,omitempty"`
}

// String renders the frame on one line, in the style of a debugger backtrace:
// "#0 crash_null at seg.c:5 (seg)".
func (f Frame) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d ", f.Index)
	switch {
	case f.Function != "":
		b.WriteString(f.Function)
		if f.Offset != 0 && f.File == "" {
			fmt.Fprintf(&b, " + %d", f.Offset)
		}
	case f.Address != 0:
		fmt.Fprintf(&b, "0x%x", f.Address)
		if f.Module != "" && f.Offset != 0 {
			fmt.Fprintf(&b, " (%s + %d)", f.Module, f.Offset)
			return b.String()
		}
	default:
		b.WriteString("??")
	}
	if f.File != "" {
		b.WriteString(" at ")
		b.WriteString(f.File)
		if f.Line > 0 {
			fmt.Fprintf(&b, ":%d", f.Line)
		}
	}
	if f.Module != "" {
		fmt.Fprintf(&b, " (%s)", f.Module)
	}
	return b.String()
}

// Symbolicated reports whether the frame names a function.
func (f Frame) Symbolicated() bool { return f.Function != "" && f.Function != "??" }
