package testreport

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
)

// A runner (CTest, automake's test driver, meson) judges a test program by
// its exit status and names the program; the program is often a test
// framework's (GoogleTest, cmocka, Boost.Test, CUnit, Check…), whose own
// output, which the runner keeps, names the test inside it that failed,
// where, and whether the framework caught a crash (Boost.Test's "memory
// access violation", cmocka's "Test failed with exception: Segmentation
// fault(11)"), or that the program ended before the framework's summary
// (exit(0) in a test). programOutput collects that output; adoptFramework
// tells the runner's case what the framework's reader made of it.

// maxProgramOutput bounds the output of one test program kept for its
// framework's reader; a longer output is read in its first part. Output
// whose sniffSize bytes show no framework is let go and the rest looked
// at afresh: a build's lines may come before a test's (automake's serial
// harness prints both), and a framework's first lines come first in its
// program's output.
const maxProgramOutput = 512 << 10

// programOutput is one test program's own output, as a runner kept it.
type programOutput struct {
	buf       []byte
	truncated bool // the runner or the bound cut it: its end is not known
	found     bool // a framework's lines are in buf
}

// Write appends p, up to maxProgramOutput.
func (o *programOutput) Write(p []byte) (int, error) {
	n := len(p)
	if room := maxProgramOutput - len(o.buf); len(p) > room {
		o.truncated = true
		p = p[:max(room, 0)]
	}
	o.buf = append(o.buf, p...)
	if !o.found && len(o.buf) >= sniffSize {
		if o.found = o.format() != ""; !o.found {
			o.buf = o.buf[:0]
		}
	}
	return n, nil
}

// line appends one line.
func (o *programOutput) line(l string) {
	o.Write([]byte(l))
	o.Write([]byte{'\n'})
}

// ctestNonXMLEscape is how CTest's JUnit file writes ESC, which XML cannot
// hold: Boost.Test and GoogleTest colour their lines even on a pipe.
const ctestNonXMLEscape = "[NON-XML-CHAR-0x1B]"

// format names the framework whose lines the output's start holds, or "".
func (o *programOutput) format() string {
	return formatOf(withESC(o.buf[:min(len(o.buf), sniffSize)]))
}

// formatOf names the framework whose lines a sample holds, or "".
func formatOf(sample []byte) string {
	if f := frameworkFormat(sample); f != "" {
		return f
	}
	return detectFramework(sample)
}

// withESC is b with CTest's written-out ESC made ESC again.
func withESC(b []byte) []byte {
	if !bytes.Contains(b, []byte(ctestNonXMLEscape)) {
		return b
	}
	return bytes.ReplaceAll(b, []byte(ctestNonXMLEscape), []byte{0x1b})
}

// framework reads the output with the reader of the framework that wrote
// it; nil when no framework's lines are in it.
func (o *programOutput) framework() *Report {
	out := withESC(o.buf)
	format := formatOf(out[:min(len(out), sniffSize)])
	if format == "" {
		return nil
	}
	rep, err := Parse(format, bytes.NewReader(out))
	if err != nil {
		return nil
	}
	return rep
}

// adoptFramework tells c, the runner's case of a test program, what the
// program's framework said (in, from programOutput.framework): the first
// of its tests that failed — crashed before failed, a test the framework
// says crashed makes the program crashed — by name, message and place,
// or, when none failed and the framework's summary never came, that the
// program ended early, naming the test it was running. A runner's own
// finding (a sanitizer's report located) keeps its message and place; the
// framework's test is named before it. truncated says the output's end is
// unknown: only failures then count, never a missing summary. It returns
// the framework's record of its run cut short, nil when it was not.
func (c *Case) adoptFramework(in *Report, truncated bool) *CutShort {
	if in == nil || c.Status == Skipped {
		return nil
	}
	passed := c.Status == Passed
	defer func() { c.overruled = c.overruled || passed && c.Status != Passed }()
	f, n := firstFailure(in, truncated)
	if f != nil || len(in.CutShort) > 0 && !truncated {
		c.byFramework = true
	}
	if f == nil {
		if truncated || len(in.CutShort) == 0 {
			return nil
		}
		cs := in.CutShort[0]
		if c.Status == Passed {
			c.Status, c.Message = Errored, "the test program ended early: "+cs.withTest()
		}
		return &cs
	}
	if statusRank(f.Status) > statusRank(c.Status) {
		// A crash the framework caught; a test that ended the program;
		// a failure in a program that exits 0 (CUnit's basic run).
		c.Status = f.Status
	}
	lead := "the test program " + string(f.Status)
	if f.Name != UnnamedCase {
		c.within = f.Name
		lead = f.Name + " " + string(f.Status)
	}
	if f.Status == Errored && c.Status == Crashed && c.within != "" {
		// The program died in the test: the runner said how.
		c.Message = bound(strings.TrimSpace(c.Message + " while running " + f.Name))
		return cutOf(in, f, truncated)
	}
	if n > 1 {
		lead += fmt.Sprintf(" (and %d more of its tests)", n-1)
	}
	if c.File != "" || c.Kind != "" {
		// This reader's own finding (a sanitizer's frame, a timeout): kept.
		c.Message = bound(lead + ": " + c.Message)
		return cutOf(in, f, truncated)
	}
	if f.File != "" {
		c.File, c.Line = f.File, f.Line
		lead += fmt.Sprintf(" at %s:%d", filepath.Base(f.File), f.Line)
	}
	msg := strings.TrimSpace(f.Message)
	if msg == "" {
		msg = c.Message
	}
	if msg != "" {
		lead += ": " + msg
	}
	c.Message = bound(lead)
	return cutOf(in, f, truncated)
}

// firstFailure returns the framework's first crashed test, else its first
// failed or errored one, and how many did not pass; with truncated, tests
// that only ended with the output (errored) do not count.
func firstFailure(in *Report, truncated bool) (*Case, int) {
	var first *Case
	n := 0
	for i := range in.Cases {
		t := &in.Cases[i]
		switch {
		case t.Status == Failed, t.Status == Crashed, t.Status == Errored && !truncated:
		default:
			continue
		}
		n++
		if first == nil || t.Status == Crashed && first.Status != Crashed {
			first = t
		}
	}
	return first, n
}

// cutOf is the framework's record of its run cut short, the one while f,
// its failure, was running first; nil when there is none, or when the
// output's end is not known (truncated).
func cutOf(in *Report, f *Case, truncated bool) *CutShort {
	if truncated || len(in.CutShort) == 0 {
		return nil
	}
	for i, cs := range in.CutShort {
		if cs.Test == f.Name {
			return &in.CutShort[i]
		}
	}
	return &in.CutShort[0]
}

// AdoptFramework takes from another report of the same run (CTest's JUnit
// file, which holds every test program's output) what the programs' own
// frameworks said of the cases of the same name: the failing test inside,
// its place, a crash the framework caught. It returns how many cases it
// changed.
func (r *Report) AdoptFramework(from *Report) int {
	byName := map[string]*Case{}
	for i := range from.Cases {
		if c := &from.Cases[i]; c.byFramework {
			byName[c.Name] = c
		}
	}
	n := 0
	for i := range r.Cases {
		c := &r.Cases[i]
		f := byName[c.Name]
		if f == nil || c.byFramework || c.Status == Skipped {
			continue
		}
		if statusRank(f.Status) > statusRank(c.Status) {
			c.overruled = c.overruled || c.Status == Passed
			c.Status = f.Status
		}
		switch {
		case c.File == "" || f.within == "":
			c.File, c.Line, c.Message = f.File, f.Line, f.Message
		case !strings.HasPrefix(c.Message, f.within):
			// This report located it (a sanitizer's frame): keep that.
			c.Message = bound(f.within + " " + string(f.Status) + ": " + c.Message)
		}
		c.byFramework, c.within = true, f.within
		n++
	}
	if n > 0 {
		r.finish()
	}
	return n
}

// statusRank orders a case's statuses by how much they say went wrong.
func statusRank(s Status) int {
	switch s {
	case Failed:
		return 1
	case Errored:
		return 2
	case Crashed:
		return 3
	}
	return 0
}

// afterExitZero says how a program that exited 0 (and so passed, to its
// runner) was cut short, by its framework's record: "exit 0: the output
// ended before its result and CUnit's summary, while running t".
func (cs *CutShort) afterExitZero() string { return "exit 0: " + cs.withTest() }

// withTest is How, and the test that was running.
func (cs *CutShort) withTest() string {
	if cs.Test == "" {
		return cs.How
	}
	return cs.How + ", while running " + cs.Test
}
