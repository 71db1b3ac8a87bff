package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/toolchain"
)

func TestCounter(t *testing.T) {
	tests := []struct {
		in             string
		passed, failed int64
	}{
		{`{"Action":"pass","Package":"p","Test":"TestA"}` + "\n", 1, 0},
		{`{"Action":"pass","Package":"p"}` + "\n", 0, 0}, // a package, not a test
		{`{"Action":"fail","Package":"p","Test":"TestA/sub"}` + "\n", 0, 1},
		{"test tests::adds ... ok\ntest tests::bad ... FAILED\n", 1, 1},
		{"1/2 Test #1: adds .....   Passed    0.00 sec\n2/2 Test #2: crash ***Exception: SegFault  0.01 sec\n", 1, 1},
		{"Test Case '-[S t]' passed (0.001 seconds).\nTest Case '-[S u]' failed (0.002 seconds).\n", 1, 1},
		{"", 0, 0},
		{"\n\n\r\n", 0, 0},
		{strings.Repeat("x", 10000) + " ... ok\n", 0, 0},
		{"test a ... ok", 0, 0}, // unterminated: not a line yet
	}
	for _, tt := range tests {
		c := newCounter()
		// Byte by byte, as the worst split a stream can have.
		for i := range len(tt.in) {
			c.Write([]byte{tt.in[i]})
		}
		if c.passed.Load() != tt.passed || c.failed.Load() != tt.failed {
			t.Errorf("%.60q: passed %d failed %d, want %d %d", tt.in, c.passed.Load(), c.failed.Load(), tt.passed, tt.failed)
		}
		if want := int64(strings.Count(tt.in, "\n")); c.lines.Load() != want {
			t.Errorf("%.60q: %d lines, want %d", tt.in, c.lines.Load(), want)
		}
	}
}

func TestAnalyzeVerdicts(t *testing.T) {
	tests := []struct {
		name, format, log string
		status            Status
		line              string
	}{
		{"build ok", "", "gcc -c a.c\ncc -o app a.o\n", Succeeded, "BUILD SUCCEEDED (0 warnings)"},
		{"warning", "", "a.c:1:2: warning: unused variable 'x'\n", Succeeded, "BUILD SUCCEEDED (1 warning)"},
		{"errors", "", "a.c:1:2: error: x\nb.c:3:4: error: y\n", Failed, "BUILD FAILED: 2 errors: a.c:1:2: x"},
		{"empty", "", "", SilentFailure, "EMPTY LOG: nothing was read, so nothing can be said to have succeeded"},
		{"cargo pass", "cargo", "running 2 tests\ntest a ... ok\ntest b ... ignored\n\ntest result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out\n", Succeeded, "TESTS PASSED: 1 passed, 1 skipped"},
		{"cargo none", "cargo", "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out\n", NoTests, "NO TESTS RAN: the run found no tests"},
		{"ctest crash", "", "1/2 Test #1: adds .....   Passed    0.00 sec\n2/2 Test #2: boom ....***Exception: SegFault  0.01 sec\n\n50% tests passed, 1 tests failed out of 2\n", Crashed, "CRASHED: test binary SIGSEGV while running boom"},
	}
	for _, tt := range tests {
		res, err := Analyze(strings.NewReader(tt.log), AnalyzeOptions{Format: tt.format, Level: logfilter.Standard})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if res.Status != tt.status || res.Line != tt.line {
			t.Errorf("%s: %s %q, want %s %q", tt.name, res.Status, res.Line, tt.status, tt.line)
		}
	}
}

// TestRunStopsAtFailedStep: a failed build step ends the run; the test step
// is reported as not run, and the raw log has each step's command.
func TestRunStopsAtFailedStep(t *testing.T) {
	dir := t.TempDir()
	steps := []toolchain.Step{
		{Name: toolchain.StepConfigure, Argv: []string{"sh", "-c", "echo configured"}, Dir: dir},
		{Name: toolchain.StepBuild, Argv: []string{"sh", "-c", "echo 'main.c:3:1: error: expected declaration' >&2; exit 2"}, Dir: dir},
		{Name: toolchain.StepTest, Argv: []string{"sh", "-c", "echo never"}, Dir: dir},
	}
	var raw, filtered strings.Builder
	var progress []Progress
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Raw: &raw, Filtered: &filtered,
		Progress: func(p Progress) { progress = append(progress, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Failed || res.Line != "BUILD FAILED: 1 error (build step; the tests did not run): main.c:3:1: expected declaration" {
		t.Errorf("%s %q", res.Status, res.Line)
	}
	if len(res.Steps) != 3 || !res.Steps[1].Ran || res.Steps[2].Ran {
		t.Errorf("steps %+v", res.Steps)
	}
	if strings.Contains(raw.String(), "never") || !strings.Contains(raw.String(), "$ sh -c 'echo configured'\nconfigured\n") {
		t.Errorf("raw log:\n%s", raw.String())
	}
	if !strings.Contains(filtered.String(), "main.c:3:1: error: expected declaration") {
		t.Errorf("filtered log:\n%s", filtered.String())
	}
	if len(progress) < 2 || progress[0].StepName != toolchain.StepConfigure || progress[len(progress)-1].StepName != toolchain.StepBuild {
		t.Errorf("progress %+v", progress)
	}
}

func TestRunTimeout(t *testing.T) {
	steps := []toolchain.Step{{Name: toolchain.StepTest, Argv: []string{"sleep", "30"}, Dir: t.TempDir()}}
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != TimedOut || !strings.HasPrefix(res.Line, "TIMED OUT after ") {
		t.Errorf("%s %q", res.Status, res.Line)
	}
}

// TestCrashedStepLineSaysCrashedOnce: a step killed by a signal (a
// compiler, a configure script, xcodebuild itself) is named in a line that
// says CRASHED once and names the program that crashed, whatever the step
// and whether it was a build or a test run; a test step by the test
// run's own crash line.
func TestCrashedStepLineSaysCrashedOnce(t *testing.T) {
	for _, kind := range []string{KindBuild, KindTest} {
		for _, step := range []string{toolchain.StepConfigure, toolchain.StepBuild, toolchain.StepTest} {
			steps := []toolchain.Step{{Name: step, Argv: []string{"sh", "-c", "echo compiling; kill -SEGV $$"}, Dir: t.TempDir()}}
			res, err := Run(context.Background(), Request{Kind: kind, Steps: steps})
			if err != nil {
				t.Fatal(err)
			}
			want := "CRASHED: sh (SIGSEGV)" // the step's program, by its verdict
			if step == toolchain.StepTest && kind == KindTest {
				want = "CRASHED: test binary SIGSEGV" // the test run's crash line
			}
			if res.Status != Crashed || strings.Count(res.Line, "CRASHED") != 1 || !strings.HasPrefix(res.Line, want) {
				t.Errorf("%s, %s step: %s %q, want one CRASHED, as %q", kind, step, res.Status, res.Line, want)
			}
		}
	}
}
