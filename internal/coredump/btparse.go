package coredump

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/crashsite"
)

// Trace is a first-look backtrace of a core's crashing thread.
type Trace struct {
	Debugger string   `json:"debugger"`         // "gdb" or "lldb"
	Signal   string   `json:"signal,omitempty"` // "SIGSEGV", as the debugger reported it
	Reason   string   `json:"reason,omitempty"` // "Segmentation fault"; lldb's stop reason
	Frames   []Frame  `json:"frames"`
	Warnings []string `json:"warnings,omitempty"`
	// Site is the crash site (Backtrace fills it; see CrashSite).
	Site *crashsite.Site `json:"site,omitempty"`
	// site is what the debugger printed of the innermost frames.
	site *siteData
}

// Crashing returns the frame the crash is reported at, by crashsite's rule:
// the first frame in the project's own code with a source location (not
// libc, the Rust or Go runtime, a sanitizer), else the first with a source
// location, else frame 0. projectDir may be empty when it is not known.
func (t *Trace) Crashing(projectDir string) (Frame, bool) {
	i := crashsite.Pick(SiteFrames(t.Frames), projectDir)
	if i < 0 {
		return Frame{}, false
	}
	return t.Frames[i], true
}

// SiteFrames converts frames for crashsite.
func SiteFrames(frames []Frame) []crashsite.Frame {
	out := make([]crashsite.Frame, len(frames))
	for i, f := range frames {
		out[i] = f.Site()
	}
	return out
}

// Site is the frame as crashsite sees it.
func (f Frame) Site() crashsite.Frame {
	return crashsite.Frame{Function: f.Function, File: f.File, Line: f.Line, Module: f.Module}
}

// ErrNoFrames: the debugger produced no backtrace; the error carries what it
// said instead ("not a core dump", "No stack.").
var ErrNoFrames = errors.New("debugger printed no backtrace")

// btMarker separates the debugger's loading chatter from the bt output we
// asked for: gdb prints frame 0 once when it loads a core, then again in bt.
const btMarker = "TRIAGE-BT-BEGIN"

var (
	gdbFrameRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#(\d+)\s+(.*)$`) })
	gdbAddrRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(0x[0-9a-fA-F]+) in (.*)$`) })
	gdbSourceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` at (\S+):(\d+)$`) })
	gdbFromRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` from (/.*)$`) })
	gdbSignalRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^Program terminated with signal (SIG[A-Z0-9]+), (.*?)\.?$`)
	})

	lldbFrameRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:\*\s*)?frame #(\d+): (0x[0-9a-fA-F]+)(?: (.*))?$`)
	})
	lldbThreadRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*\*?\s*thread #\d+.*stop reason = (.*)$`) })
	lldbSourceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` at (\S+?):(\d+)(?::\d+)?$`) })
	lldbOffRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` \+ (\d+)$`) })
)

// ParseGDBBacktrace reads gdb's batch output for `bt` on a core.
func ParseGDBBacktrace(out string) (*Trace, error) {
	t := &Trace{Debugger: "gdb"}
	lines := strings.Split(out, "\n")
	if i := slices.Index(lines, siteArgsMarker); i >= 0 {
		t.site = parseGDBSite(lines[i:])
		lines = lines[:i]
	}
	start := 0
	for i, ln := range lines {
		if strings.TrimSpace(ln) == btMarker {
			start = i + 1
		}
	}
	var diag []string
	for i, ln := range lines {
		ln = strings.TrimRight(ln, "\r")
		if m := gdbSignalRE().FindStringSubmatch(ln); m != nil {
			t.Signal, t.Reason = m[1], m[2]
			continue
		}
		if w, ok := strings.CutPrefix(ln, "warning: "); ok {
			if !strings.Contains(w, ".reg-xstate") { // a harmless kernel/gdb mismatch on every x86 core
				t.Warnings = appendUnique(t.Warnings, w)
			}
			continue
		}
		m := gdbFrameRE().FindStringSubmatch(ln)
		if m == nil {
			if ln != "" && ln != btMarker && !isGDBChatter(ln) {
				diag = append(diag, ln)
			}
			continue
		}
		if i < start {
			continue
		}
		idx, _ := strconv.Atoi(m[1])
		if idx == 0 && len(t.Frames) > 0 { // a second bt (no marker): keep the last
			t.Frames = t.Frames[:0]
		}
		t.Frames = append(t.Frames, parseGDBFrame(idx, m[2]))
	}
	if len(t.Frames) == 0 {
		return t, noFramesError("gdb", out, diag)
	}
	return t, nil
}

// parseGDBFrame reads the part after "#N  ":
//
//	0x000055a5174a3155 in crash_here (p=0x0) at segv.c:5
//	__pthread_kill_implementation (threadid=<optimized out>, ...) at ./nptl/pthread_kill.c:44
//	0x00007f482faa8e85 in std::terminate() () from /lib/x86_64-linux-gnu/libstdc++.so.6
//	<signal handler called>
func parseGDBFrame(idx int, s string) Frame {
	f := Frame{Index: idx}
	if m := gdbAddrRE().FindStringSubmatch(s); m != nil {
		f.Address, _ = strconv.ParseUint(m[1][2:], 16, 64)
		s = m[2]
	}
	if m := gdbFromRE().FindStringSubmatch(s); m != nil {
		f.Module = m[1]
		s = s[:len(s)-len(m[0])]
	} else if m := gdbSourceRE().FindStringSubmatch(s); m != nil {
		f.File = m[1]
		f.Line, _ = strconv.Atoi(m[2])
		s = s[:len(s)-len(m[0])]
	}
	s = strings.TrimSpace(s)
	if s == "<signal handler called>" {
		f.Function = s
		return f
	}
	f.Function = stripArgs(s)
	if f.Function == "??" {
		f.Function = ""
	}
	return f
}

// ParseLLDBBacktrace reads lldb's batch output for `bt` on a core.
func ParseLLDBBacktrace(out string) (*Trace, error) {
	t := &Trace{Debugger: "lldb"}
	lines := strings.Split(out, "\n")
	if i := slices.Index(lines, siteArgsMarker); i >= 0 {
		t.site = parseGDBSite(lines[i:])
		lines = lines[:i]
	}
	var diag []string
	for _, ln := range lines {
		ln = strings.TrimRight(ln, "\r")
		if m := lldbThreadRE().FindStringSubmatch(ln); m != nil && t.Reason == "" {
			t.Reason = m[1]
			if sig, ok := strings.CutPrefix(m[1], "signal "); ok {
				if f := strings.Fields(sig); len(f) > 0 { // "signal " with no name: none
					t.Signal = strings.TrimSuffix(f[0], ":")
				}
			}
			continue
		}
		if f, ok := ParseLLDBFrameLine(ln); ok {
			t.Frames = append(t.Frames, f)
			continue
		}
		if w, ok := strings.CutPrefix(strings.TrimSpace(ln), "warning: "); ok {
			t.Warnings = appendUnique(t.Warnings, w)
		} else if strings.HasPrefix(strings.TrimSpace(ln), "error: ") {
			diag = append(diag, strings.TrimSpace(ln))
		}
	}
	if len(t.Frames) == 0 {
		return t, noFramesError("lldb", out, diag)
	}
	return t, nil
}

// ParseLLDBFrameLine reads one frame line of lldb's bt or thread
// backtrace, "  * frame #0: 0x… segv`crash_here(p=0x0) at segv.c:5:9".
func ParseLLDBFrameLine(line string) (Frame, bool) {
	m := lldbFrameRE().FindStringSubmatch(line)
	if m == nil {
		return Frame{}, false
	}
	idx, _ := strconv.Atoi(m[1])
	addr, _ := strconv.ParseUint(m[2][2:], 16, 64)
	return parseLLDBFrame(idx, addr, m[3]), true
}

// parseLLDBFrame reads the part after "frame #N: 0xADDR ":
//
//	segv`crash_here(p=0x0000000000000000) at segv.c:5:9
//	lib`ns::klass::as_int(this=0x00007ffd8e4c8778, i=4) const at lib.cpp:14:35
//	libstdc++.so.6`std::terminate() + 21
//	stripped`___lldb_unnamed_symbol14 + 12
func parseLLDBFrame(idx int, addr uint64, s string) Frame {
	f := Frame{Index: idx, Address: addr}
	for _, tag := range []string{" [opt]", " [inlined]", " [artificial]"} {
		if strings.Contains(s, tag) {
			s = strings.Replace(s, tag, "", 1)
			f.Inlined = f.Inlined || tag == " [inlined]"
		}
	}
	if mod, rest, ok := strings.Cut(s, "`"); ok {
		f.Module, s = mod, rest
	} else {
		return f // bare address
	}
	if m := lldbSourceRE().FindStringSubmatch(s); m != nil {
		f.File = m[1]
		f.Line, _ = strconv.Atoi(m[2])
		s = stripArgs(s[:len(s)-len(m[0])]) // "crash_here(p=0x0)": drop the arguments
	} else if m := lldbOffRE().FindStringSubmatch(s); m != nil {
		f.Offset, _ = strconv.ParseUint(m[1], 10, 64)
		s = s[:len(s)-len(m[0])]
	}
	f.Function = strings.TrimSpace(s)
	if strings.HasPrefix(f.Function, "___lldb_unnamed_symbol") {
		f.Function = ""
	}
	return f
}

// stripArgs removes the argument list a debugger prints after a function's
// name, and the qualifiers lldb prints after that list for a C++ method:
// "ns::klass::as_int(this=0x…, i=4) const" is "ns::klass::as_int". gdb
// prints a method's qualifiers in its name, before the list
// ("ns::klass::as_ref(int) & (this=0x…, i=4)"), where they stay.
func stripArgs(s string) string {
	s = strings.TrimRight(s, " ")
	name := s
	for {
		q := name[strings.LastIndexByte(name, ' ')+1:]
		if !methodQualifiers[q] {
			break
		}
		name = strings.TrimRight(strings.TrimSuffix(name, q), " ")
	}
	if name != s {
		if t := stripTrailingParens(name); t != name {
			return strings.TrimSpace(t)
		}
	}
	return strings.TrimSpace(stripTrailingParens(s))
}

// methodQualifiers may follow a C++ method's parameter list.
var methodQualifiers = map[string]bool{"const": true, "volatile": true, "&": true, "&&": true, "noexcept": true}

// stripTrailingParens removes a balanced "(...)" group ending s, if any:
// the argument list gdb and lldb print after a function name. Parentheses
// inside double-quoted strings (char* arguments) do not count.
func stripTrailingParens(s string) string {
	s = strings.TrimRight(s, " ")
	if !strings.HasSuffix(s, ")") {
		return s
	}
	depth, quoted := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '"' && (i == 0 || s[i-1] != '\\') {
			quoted = !quoted
		}
		if quoted {
			continue
		}
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return strings.TrimRight(s[:i], " ")
			}
		}
	}
	return s // unbalanced: leave it
}

// isGDBChatter matches lines gdb prints while loading a core that say
// nothing about failure.
func isGDBChatter(ln string) bool {
	for _, p := range []string{"[", "Using host libthread_db", "Core was generated by", "Reading symbols from", "Downloading"} {
		if strings.HasPrefix(ln, p) {
			return true
		}
	}
	return isSourceEcho(ln)
}

// isSourceEcho matches the source line gdb prints after frame 0 ("5\treturn *p;").
func isSourceEcho(ln string) bool {
	num, _, ok := strings.Cut(ln, "\t")
	_, err := strconv.Atoi(num)
	return ok && err == nil
}

func noFramesError(debugger, out string, diag []string) error {
	msg := strings.Join(diag, "; ")
	if msg == "" {
		msg = lastLines(out, 3)
	}
	return fmt.Errorf("%w: %s said: %s", ErrNoFrames, debugger, msg)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "; ")
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// Summary renders the trace for a model: the crashing location first (for
// a project in projectDir, "" when not known), then up to summaryFrames
// frames and any warnings.
//
//	SIGSEGV in crash_here at segv.c:5 (gdb)
//	  #0 crash_here at segv.c:5
//	  #1 main at segv.c:11
func (t *Trace) Summary(projectDir string) string {
	var b strings.Builder
	b.WriteString(firstNonEmpty(t.Signal, "crash"))
	if f, ok := t.Crashing(projectDir); ok {
		b.WriteString(" in ")
		b.WriteString(firstNonEmpty(f.Function, "??"))
		if f.File != "" {
			fmt.Fprintf(&b, " at %s:%d", f.File, f.Line)
		}
	}
	fmt.Fprintf(&b, " (%s)\n", t.Debugger)
	writeFrames(&b, t.Frames)
	for _, w := range t.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return strings.TrimRight(b.String(), "\n")
}
