package pipeline

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/hang"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// withStuck names where a timed-out step was stuck, from the stacks the
// capture took before the kill (internal/hang), picked again now that the
// running test's name is known:
//
//	TIMED OUT after 10s in TestWaitsForever, blocked in chan receive at hang_test.go:7
//	TIMED OUT after 10s in the build step: in gen.main, blocked in read at gen.go:12
//	TIMED OUT after 10s in the test step while running x: deadlocked: ...
//	TIMED OUT after 30s while still building (go's compiler was running; no test had started)
func (r *Result) withStuck(f *StepResult, line string) string {
	rep := f.Outcome.Hang
	if rep == nil {
		return withStalled(f, line)
	}
	if len(rep.Building) > 0 {
		// Only the build's tools ran: their stacks are no test's.
		r.Hang = rep.Trimmed()
		return r.stillBuilding(f, line, rep.Building)
	}
	stuck := rep.Analyze(runningTest(r.Report))
	if len(stuck) == 1 && stuck[0].Test != "" && r.Report != nil {
		r.Report.NameCutShort("", stuck[0].Test, "it was still running when the run was killed")
	}
	if len(stuck) == 1 && stuck[0].Test != "" {
		stuck[0].Case = stuckCase(rep, stuck[0], f.Step.Dir)
	}
	r.Hang = rep.Trimmed()
	phrase := hang.Phrase(stuck)
	switch {
	case phrase == "" && len(rep.Notes) > 0:
		return withStalled(f, line) + "; stacks not taken: " + rep.Notes[0]
	case phrase == "":
		return withStalled(f, line)
	case len(stuck) == 1 && stuck[0].Test != "":
		return r.stopHead(f) + " " + phrase
	}
	return line + ": " + phrase
}

// stopHead begins the line of a step stopped for time: HUNG when the
// stall watch ended it (capture.Stalled.Head), else how long it ran and
// which limit ran out.
//
//	HUNG: no progress for 30s
//	TIMED OUT after 10m0s (the built-in limit; timeout_s raises it)
func (r *Result) stopHead(f *StepResult) string {
	if st := f.Outcome.Stalled; st != nil {
		return st.Head()
	}
	return capture.NameLimit(fmt.Sprintf("TIMED OUT after %s", f.Outcome.Result.Duration.Round(time.Second)), r.limit)
}

// withStalled adds to line what the stall watch saw every thread wait in,
// when no stacks say where the step was stuck (none taken, or none
// readable): "…: every thread blocked: 2 in futex wait".
func withStalled(f *StepResult, line string) string {
	st := f.Outcome.Stalled
	if st == nil || len(st.Threads) == 0 {
		return line
	}
	return line + ": " + st.Phrase()
}

// maxCaseFrames bounds the frames stuckCase reads the sources of.
const maxCaseFrames = 32

// stuckCase names the test case the stuck stack was running, from its
// first frame, at or past the stuck one, whose source line lies in a test
// case's body (testreport.CaseAt): Catch2 and doctest name a case only
// when it reports a failure, so a hung one goes unnamed in their output.
// A frame's relative file is taken from the step's directory.
func stuckCase(rep *hang.Report, s hang.Stuck, dir string) string {
	if s.Stack < 0 || s.Stack >= len(rep.Stacks) {
		return ""
	}
	frames := rep.Stacks[s.Stack].Frames
	start := slices.IndexFunc(frames, func(fr coredump.Frame) bool { return fr == s.Frame })
	for _, fr := range frames[max(start, 0):min(len(frames), max(start, 0)+maxCaseFrames)] {
		file := fr.File
		if file == "" || fr.Line <= 0 || !filepath.IsAbs(file) && dir == "" {
			continue
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		if name, ok := testreport.CaseAt(file, fr.Line); ok {
			return name
		}
	}
	return ""
}

// stillBuilding is the verdict of a step timed out while only the
// build's tools ran: in a test step, that no test had started (or, when
// some had finished, that none was running); in another, what it built.
func (r *Result) stillBuilding(f *StepResult, line string, tools []string) string {
	running := andList(tools) + " was running"
	if len(tools) > 1 {
		running = andList(tools) + " were running"
	}
	if f.Step.Name != toolchain.StepTest {
		if r.Kind == KindTest {
			running += "; the tests did not run"
		}
		return line + " while still building (" + running + ")"
	}
	none := "no test had started"
	if r.Report != nil && r.Report.Totals.Total > 0 {
		none = "no test was running"
	}
	return fmt.Sprintf("%s while still building (%s; %s)", r.stopHead(f), running, none)
}

// andList is "a", "a and b", "a, b and c".
func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// runningTest is the bare name of the test the report saw start and not
// finish ("TestWaitsForever", "tests::spins"), or "".
func runningTest(rep *testreport.Report) string {
	if rep == nil {
		return ""
	}
	name := ""
	for _, c := range rep.Failures() {
		if c.Status == testreport.Errored || c.Status == testreport.Crashed {
			name = c.Name
		}
	}
	return name
}
