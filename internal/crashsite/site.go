package crashsite

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Site is what a crash verdict shows of the frame Pick chose: its source
// around the faulting line, its arguments and locals (from a debugger, when
// one read a core or a live stop), and for a memory fault the faulting
// address beside the pointers that equal or neighbour it. Every part is
// bounded: see the Max constants.
type Site struct {
	Index    int    // the frame's index in its backtrace; -1 when from a program's output
	Function string // as the debugger or the trace printed it
	File     string // as printed
	Line     int
	// Path is the file Source was read from ("" when it was not found).
	Path   string
	Source []SourceLine
	Args   []Var
	Locals []Var
	// VarsCut says how many arguments and locals were left out.
	VarsCut int
	// FaultAddr is a memory fault's address ("0x0"), "" when not one.
	FaultAddr string
	// Callers are the frames above in the project's own code that called
	// toward the crash (see AddCallers), innermost first.
	Callers []Caller
}

// SourceLine is one line of the crash site's source.
type SourceLine struct {
	Line    int
	Text    string
	Current bool // the line the frame is at
}

// Var is one argument or local as the debugger printed it: pointers as
// their value ("0x0", "NULL"), values cut to MaxValue bytes.
type Var struct {
	Name  string
	Value string
	// NearFault: the value is a pointer equal to the fault address or just
	// below it (the fault is within MaxFaultDistance past it).
	NearFault bool
}

// Bounds of a Site: a few lines either side, the first variables, short
// values. The debugger's own print limits (depth, string length, array
// elements) apply before these.
const (
	SourceContext    = 3    // lines either side of the faulting one
	MaxSourceLine    = 160  // bytes of one source line
	MaxVars          = 24   // arguments and locals together
	MaxValue         = 160  // bytes of one value
	MaxFaultDistance = 4096 // a field of the struct a pointer points at
)

// FromTrace is the site of a frame a program's own output named (a Go or
// Rust panic's trace): its source alone, nil when none is found under dirs.
func FromTrace(function, file string, line int, dirs ...string) *Site {
	if file == "" || line <= 0 {
		return nil
	}
	path, lines := ReadSource(file, line, dirs...)
	if lines == nil {
		return nil
	}
	return &Site{Index: -1, Function: function, File: file, Line: line, Path: path, Source: lines}
}

// ReadSource reads the lines around line of the first of file's candidate
// paths that exists: file itself when absolute, else file under each of
// dirs in order. It returns the path read and nil lines when none exists or
// line is past its end.
func ReadSource(file string, line int, dirs ...string) (string, []SourceLine) {
	if file == "" || line <= 0 {
		return "", nil
	}
	for _, p := range candidates(file, dirs) {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		lines := readAround(f, line)
		f.Close()
		if len(lines) == 0 {
			return "", nil
		}
		return p, lines
	}
	return "", nil
}

func candidates(file string, dirs []string) []string {
	if filepath.IsAbs(file) {
		return []string{file}
	}
	var out []string
	for _, d := range dirs {
		if d != "" {
			out = append(out, filepath.Join(d, file))
		}
	}
	return out
}

// readAround keeps the lines within SourceContext of line. A line longer
// than the scanner's buffer ends the read: a source file is not that.
func readAround(f *os.File, line int) []SourceLine {
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var out []SourceLine
	for n := 1; sc.Scan() && n <= line+SourceContext; n++ {
		if n < line-SourceContext {
			continue
		}
		text := strings.TrimRight(sc.Text(), " \t\r")
		out = append(out, SourceLine{Line: n, Text: clip(text, MaxSourceLine), Current: n == line})
	}
	if len(out) == 0 || out[len(out)-1].Line < line {
		return nil
	}
	return out
}

// MarkFault sets FaultAddr and marks the variables whose pointer value is
// at or just below addr.
func (s *Site) MarkFault(addr uint64) {
	s.FaultAddr = fmt.Sprintf("0x%x", addr)
	for _, vars := range [][]Var{s.Args, s.Locals} {
		for i := range vars {
			if p, ok := pointerValue(vars[i].Value); ok && p <= addr && addr-p < MaxFaultDistance {
				vars[i].NearFault = true
			}
		}
	}
}

// pointerValue reads the address a debugger printed for a pointer: gdb's
// "0x0", "(int *) 0x0", "0x5555… \"text\"", lldb's "NULL".
func pointerValue(v string) (uint64, bool) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "(") {
		if i := strings.Index(v, ") "); i > 0 {
			v = v[i+2:]
		}
	}
	if v == "NULL" || v == "nullptr" {
		return 0, true
	}
	hex, ok := strings.CutPrefix(v, "0x")
	if !ok {
		return 0, false
	}
	if i := strings.IndexAny(hex, " <"); i >= 0 {
		hex = hex[:i]
	}
	p, err := strconv.ParseUint(hex, 16, 64)
	return p, err == nil
}

// SetVars keeps the first MaxVars of args then locals, each value cut to
// MaxValue bytes, and counts what was left out.
func (s *Site) SetVars(args, locals []Var) {
	room := MaxVars
	s.Args, room = keepVars(args, room)
	s.Locals, _ = keepVars(locals, room)
	s.VarsCut = len(args) + len(locals) - len(s.Args) - len(s.Locals)
}

func keepVars(vars []Var, room int) ([]Var, int) {
	if len(vars) > room {
		vars = vars[:room]
	}
	out := make([]Var, len(vars))
	for i, v := range vars {
		out[i] = Var{Name: clip(v.Name, MaxValue), Value: clip(v.Value, MaxValue)}
	}
	return out, room - len(out)
}

// clip cuts s to n bytes on a rune boundary, marking the cut (crashsite is
// below textclip's tier, so it keeps its own).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
