package pipeline

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// TestRepeatStepsBuildOnce: a repeat's first run runs every step, later
// runs only the test step; go test never answers from its cache in a
// repeat; a call outside a repeat keeps its plan.
func TestRepeatStepsBuildOnce(t *testing.T) {
	cmake := []toolchain.Step{{Name: toolchain.StepConfigure, Argv: []string{"cmake"}}, {Name: toolchain.StepBuild, Argv: []string{"cmake", "--build"}},
		{Name: toolchain.StepTest, Argv: []string{"ctest"}}}
	names := func(steps []toolchain.Step) []string {
		var ns []string
		for _, s := range steps {
			ns = append(ns, s.Name)
		}
		return ns
	}
	for run, want := range map[int][]string{0: {"configure", "build", "test"}, 1: {"configure", "build", "test"}, 2: {"test"}} {
		c := &Call{repeatRun: run}
		if got := names(c.repeatSteps(cmake)); !slices.Equal(got, want) {
			t.Errorf("run %d: steps %v, want %v", run, got, want)
		}
	}
	goTest := []toolchain.Step{{Name: toolchain.StepTest, Argv: []string{"go", "test", "-json", "./..."}}}
	c := &Call{repeatRun: 2}
	if got := c.repeatSteps(goTest)[0].Argv; !slices.Equal(got, []string{"go", "test", "-count=1", "-json", "./..."}) {
		t.Errorf("go test argv %v", got)
	}
	if goTest[0].Argv[2] != "-json" {
		t.Errorf("the plan's own argv changed: %v", goTest[0].Argv)
	}
	counted := []toolchain.Step{{Name: toolchain.StepTest, Argv: []string{"go", "test", "-count=3", "./..."}}}
	if got := c.repeatSteps(counted)[0].Argv; len(got) != 4 {
		t.Errorf("the caller's -count doubled: %v", got)
	}
}

// TestRepeatJudgesOnlyTests: a run whose build failed, that ran no tests,
// or that the call's time limit ended does not count as a run of the
// tests; a crash or a failure does, with its test and crash function.
func TestRepeatJudgesOnlyTests(t *testing.T) {
	past, future := time.Now().Add(-time.Second), time.Now().Add(time.Hour)
	build := &Result{Status: Failed, Failed: &StepResult{Step: toolchain.Step{Name: toolchain.StepBuild}}}
	if judged(build, future) || judged(&Result{Status: NoTests}, future) || judged(&Result{Status: TimedOut}, past) {
		t.Error("a build failure, no tests or the call's time limit counted as a run")
	}
	if !judged(&Result{Status: TimedOut}, future) {
		t.Error("a stall before the time limit is the tests'")
	}
	rep := &testreport.Report{Format: "ctest", Cases: []testreport.Case{{Name: "crashy", Status: testreport.Crashed, Message: "SegFault"}, {Name: "ok", Status: testreport.Passed}}}
	res := &Result{Status: Crashed, Report: rep, Crash: &TestCrash{Test: "crashy"}}
	res.Crash.Frame = &coredump.Frame{Function: "crash_here"}
	occ := Occurrences(res)
	if !judged(res, future) || len(occ) != 1 || occ[0].Test != "crashy" || occ[0].Kind != "crashed" || occ[0].Site != "crash_here" {
		t.Errorf("occurrences %+v", occ)
	}
	if occ := Occurrences(&Result{Status: SilentFailure, Line: "FAILED: exit 1"}); len(occ) != 1 || occ[0].Test != "" || occ[0].Message != "FAILED: exit 1" {
		t.Errorf("a failure naming no test: %+v", occ)
	}
	if _, err := RepeatTests(context.Background(), Call{}, Repeat{Times: MaxRepeat + 1}); err == nil {
		t.Error("a repeat beyond the bound was accepted")
	}
}
