package pipeline

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/testreport"
)

// The verdict line of a crashed test run: from the crash record (signal,
// frame, test), else from the best evidence there is.

// crashLine is "CRASHED: test binary SIGSEGV in f at a.c:5 while running T".
func (r *Result) crashLine(res *testStepOutcome) string {
	c := r.Crash
	if c == nil {
		c = &TestCrash{}
	}
	var b strings.Builder
	b.WriteString("CRASHED: test binary ")
	if c.Test == "" && c.Program != "" {
		// No report names a test (make): the crashed program does.
		b.WriteString(baseName(c.Program) + " ")
	}
	switch {
	case c.Signal != "":
		b.WriteString(c.Signal)
	case strings.Contains(c.Message, "panic"):
		b.WriteString("panicked")
	case r.Report != nil && r.Report.Status == testreport.Crashed || res != nil && res.verdictLine != "":
		return r.evidenceLine(res)
	default:
		b.WriteString("crashed")
	}
	if f := c.Frame; f != nil && f.Function != "" {
		fmt.Fprintf(&b, " in %s", f.Function)
		if f.File != "" {
			fmt.Fprintf(&b, " at %s:%d", baseName(f.File), f.Line)
		}
	}
	if c.NoDebugInfo != nil {
		fmt.Fprintf(&b, " (no debug info in %s)", baseName(c.NoDebugInfo.File))
	}
	if c.Test != "" {
		fmt.Fprintf(&b, " while running %s", c.Test)
	} else if rep := r.Report; rep != nil && len(rep.CutShort) > 0 && rep.CutShort[0].Test != "" {
		// The runner itself died (ctest killed): the test it had started.
		fmt.Fprintf(&b, " while running %s", rep.CutShort[0].Test)
	}
	if strings.Contains(c.Message, "panic: ") && c.Signal == "" {
		fmt.Fprintf(&b, ": %s", clip(afterPanic(c.Message), 120))
	}
	if r.Report != nil {
		t := r.Report.Totals
		if others := t.Failed + t.Errored + t.Crashed - 1; others > 0 {
			fmt.Fprintf(&b, " (and %d more failed, of %d)", others, t.Total)
		}
	}
	return b.String()
}

// crashedStepLine is the verdict of a run whose step crashed: the step's
// own crash verdict with the program that crashed named, saying CRASHED
// once ("CRASHED (SIGSEGV) — core dump captured" of xcodebuild becomes
// "CRASHED: xcodebuild (SIGSEGV) — core dump captured").
func crashedStepLine(program, line string) string {
	if rest, ok := strings.CutPrefix(line, "CRASHED "); ok {
		return "CRASHED: " + baseName(program) + " " + rest
	}
	return "CRASHED: " + line
}

// buildCrashLine names a program that crashed under a build step by its
// core: "CRASHED: gen SIGSEGV in gen_crash at gen.c:5 (in the build step)".
func buildCrashLine(c *TestCrash, step string) string {
	line := "CRASHED: " + baseName(c.Program)
	if c.Signal != "" {
		line += " " + c.Signal
	}
	line += " in " + c.Frame.Function
	if c.Frame.File != "" {
		line += fmt.Sprintf(" at %s:%d", baseName(c.Frame.File), c.Frame.Line)
	}
	return line + " (in the " + step + " step)"
}

// evidenceLine names a crash that has no crash record, by the best
// evidence: the test case the report records as crashed (the runner
// restarted after it), the runner's own crash verdict (a signal, a crash
// message in its output), or the runner's error saying it exited
// unexpectedly. A runner that merely exited non-zero has the verdict
// "FAILED (exit 65)", which is no crash and never follows "CRASHED:".
func (r *Result) evidenceLine(res *testStepOutcome) string {
	rep := r.Report
	if rep == nil {
		rep = &testreport.Report{}
	}
	var line string
	c, crashedCase := firstCrashedCase(rep)
	switch {
	case crashedCase:
		line = "CRASHED: " + qualifiedName(c, rep.Format) + " crashed"
		if msg := firstLine(c.Message); msg != "" {
			line += ": " + clip(msg, 160)
		}
	case res != nil && strings.HasPrefix(res.verdictLine, "CRASHED"):
		return res.verdictLine // it names the exit status
	case res != nil && res.crashed && res.verdictLine != "":
		return "CRASHED: " + res.verdictLine
	case len(rep.RunnerErrors) > 0:
		line = "CRASHED: the test runner exited unexpectedly: " + clip(firstLine(rep.RunnerErrors[0]), 160)
	default:
		line = "CRASHED: the test report records a crash"
	}
	if t := rep.Totals; t.Failed+t.Errored+t.Crashed > 1 {
		line += fmt.Sprintf(" (and %d more failed, of %d)", t.Failed+t.Errored+t.Crashed-1, t.Total)
	}
	if res != nil && res.exit != 0 {
		line += fmt.Sprintf(" (exit %d)", res.exit)
	}
	return line
}

func firstCrashedCase(rep *testreport.Report) (testreport.Case, bool) {
	for _, c := range rep.Cases {
		if c.Status == testreport.Crashed {
			return c, true
		}
	}
	return testreport.Case{}, false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(line)
}
