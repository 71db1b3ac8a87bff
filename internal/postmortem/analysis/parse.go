package analysis

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/coredump"
)

// Parsers of engine output for dump_report. Each takes whatever the engine
// printed, including errors and garbage, and returns what it could read.

// crashFields reads crash's "KEY: value" lines (sys, sys -t).
func crashFields(out string) map[string]string {
	f := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(l, ": ")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ToUpper(k) != k || strings.ContainsAny(k, "[]#") {
			continue
		}
		if _, dup := f[k]; !dup {
			f[k] = strings.TrimSpace(v)
		}
	}
	return f
}

// PanicTask is the task a kernel backtrace belongs to.
type PanicTask struct {
	PID     int
	Command string // its comm
	Task    string // the task_struct address, in hexadecimal
	CPU     int
}

var crashBTHeaderRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^PID:\s+(\d+)\s+TASK:\s+([0-9a-f]+)\s+CPU:\s+(\d+)\s+COMMAND:\s+"([^"]*)"`)
})
var crashFrameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*#\d+\s+\[[0-9a-f]+\]\s+\S+ at [0-9a-f]+.*$`) })

// crashBacktrace reads crash's bt: the task header and the frame lines.
func crashBacktrace(out string) (*PanicTask, []string) {
	m := crashBTHeaderRE().FindStringSubmatch(out)
	if m == nil {
		return nil, nil
	}
	t := &PanicTask{Task: m[2], Command: m[4]}
	t.PID, _ = strconv.Atoi(m[1])
	t.CPU, _ = strconv.Atoi(m[3])
	var frames []string
	for _, f := range crashFrameRE().FindAllString(out, -1) {
		frames = append(frames, strings.TrimSpace(f))
	}
	return t, frames
}

// frameFunction is the function of a crash or gdb frame line.
var frameFunctionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^#\d+\s+(?:\[[0-9a-f]+\]\s+(\S+) at |(?:0x[0-9a-f]+ in )?(\S+) \()`)
})

func frameFunction(frame string) string {
	m := frameFunctionRE().FindStringSubmatch(frame)
	if m == nil {
		return ""
	}
	return m[1] + m[2]
}

var panicRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Kernel panic - not syncing: (.*?)(?: \]---)?\s*$`) })

// panicMessage finds the panic reason in crash's PANIC field or log lines.
func panicMessage(sysPanic string, log []string) string {
	if p := strings.Trim(sysPanic, `"`); p != "" {
		if m := panicRE().FindStringSubmatch(p); m != nil {
			return m[1]
		}
		return p
	}
	for i := len(log) - 1; i >= 0; i-- {
		if m := panicRE().FindStringSubmatch(log[i]); m != nil {
			return m[1]
		}
	}
	return ""
}

// lastLines returns the last n non-blank lines of out.
func lastLines(out string, n int) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, strings.TrimRight(l, " \t\r"))
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}

// gdbValue reads "$1 = value" (gdb's print).
var gdbValueRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\$\d+ = (.*)$`) })

func gdbValue(out string) string {
	if m := gdbValueRE().FindStringSubmatch(out); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// gdbAddress reads the address out of "(void *) 0x0".
var hexRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`0x[0-9a-fA-F]+`) })

func gdbAddress(v string) string { return hexRE().FindString(v) }

var gdbFrameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^#\d+\s+.*$`) })

// gdbFrames returns gdb's backtrace lines.
func gdbFrames(out string) []string {
	var frames []string
	for _, f := range gdbFrameRE().FindAllString(out, -1) {
		frames = append(frames, strings.TrimSpace(f))
	}
	return frames
}

// crashSite names the frame a process crash is reported at, from gdb's
// backtrace lines, by crashsite's rule (through coredump): the first frame
// in the program's own code, not the C library's abort machinery or a
// language runtime.
func crashSite(frames []string) (function, location string) {
	tr, err := coredump.ParseGDBBacktrace(strings.Join(frames, "\n"))
	if err != nil {
		return "", ""
	}
	return siteOf(tr)
}

// siteOf renders a trace's crashing frame as a function and "file:line".
func siteOf(tr *coredump.Trace) (function, location string) {
	f, ok := tr.Crashing("")
	if !ok {
		return "", ""
	}
	function = f.Function
	if function == "" {
		function = "??"
	}
	if f.File != "" {
		location = fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return function, location
}

// gdbMissingSymbols lists the libraries "info sharedlibrary" marks as
// having no debugging information ("(*)") or whose symbols were not read.
func gdbMissingSymbols(out string) []string {
	var libs []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || !strings.HasPrefix(f[0], "0x") {
			continue
		}
		lib := f[len(f)-1]
		switch {
		case strings.Contains(l, "(*)"):
			libs = append(libs, lib+" (no debugging info)")
		case f[len(f)-2] == "No":
			libs = append(libs, lib+" (symbols not read)")
		}
	}
	return libs
}

// registerLines keeps the general registers of "info registers".
func registerLines(out string, max int) []string {
	var regs []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && strings.HasPrefix(f[1], "0x") {
			regs = append(regs, strings.Join(f[:2], " "))
		}
		if len(regs) == max {
			break
		}
	}
	return regs
}
