package realworld

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// matrix is every cell of the fault matrix: each project's pristine run
// (no fault injected) before its faults, in the order of cells; then the
// pristine runs of projects without a fault cell, by name.
func matrix() []Cell {
	var m []Cell
	seen := map[string]bool{}
	for _, c := range slices.Concat(cells, pickedCells, ownCells) {
		if !seen[c.Project] {
			seen[c.Project] = true
			m = append(m, pristine(c.Project))
		}
		m = append(m, c)
	}
	names := make([]string, 0, len(projects))
	for name := range projects {
		if !seen[name] {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		m = append(m, pristine(name))
	}
	return m
}

// pristine is a project's run as fetched, no fault injected: triage call
// test and triage filter must say its tests passed, triage call build that
// it built, and none may list a diagnostic that would send an agent looking
// for a fault that is not there (a crash, a failure, an error). A project's
// own chatter (zlib's "*** zlib test OK ***", a test's log of an expected
// error) is not one.
func pristine(name string) Cell {
	p := projects[name]
	return Cell{Project: name, Fault: "pristine", Class: Passed, CI: p.CI, Known: p.PristineKnown}
}

// judgePristine checks a pristine run's test answer, and its build.
func judgePristine(t *testing.T, store string, args map[string]any, test toolResult) []string {
	probs := faultDiagnostics("test", test)
	build := maps.Clone(args)
	delete(build, "targets") // a build's targets are not a test run's packages
	delete(build, "timeout_s")
	delete(build, "command")
	r := callTool(t, store, "build", build)
	if r.Exit != 0 || !strings.HasPrefix(firstLine(r.Text), "BUILD SUCCEEDED") {
		return append(probs, fmt.Sprintf("build: exit %d: %s", r.Exit, clip(firstLine(r.Text), 120)))
	}
	return append(probs, faultDiagnostics("build", r)...)
}

// warningCount is a tool's count of its warnings ("`semver` (lib test)
// generated 26 warnings (23 duplicates)"), which is no warning itself.
var warningCount = regexp.MustCompile(`generated \d+ warnings?\b`)

// noFaultDiagnostics fails when a passing answer lists a diagnostic that
// says something went wrong: a crash, a failure, an error.
func noFaultDiagnostics(t *testing.T, tool string, r toolResult) {
	t.Helper()
	for _, p := range faultDiagnostics(tool, r) {
		t.Error(p)
	}
	t.Logf("%s: %s", tool, firstLine(r.Text))
}

// faultDiagnostics lists each diagnostic of a passing answer that says
// something went wrong: a crash, a failure, an error.
func faultDiagnostics(tool string, r toolResult) []string {
	var out struct {
		Diagnostics []struct{ Kind, Message string } `json:"diagnostics"`
	}
	if err := json.Unmarshal(r.Output, &out); err != nil {
		return []string{fmt.Sprintf("%s answer: %v", tool, err)}
	}
	var probs []string
	for _, d := range out.Diagnostics {
		switch {
		case d.Kind == "crash", d.Kind == "failure", d.Kind == "error", d.Kind == "linker":
			probs = append(probs, fmt.Sprintf("%s: a passing run lists a %s: %q", tool, d.Kind, clip(d.Message, 100)))
		case warningCount.MatchString(d.Message):
			probs = append(probs, fmt.Sprintf("%s: lists a tool's count of warnings as a %s: %q", tool, d.Kind, clip(d.Message, 100)))
		}
	}
	return probs
}
