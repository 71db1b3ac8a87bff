package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/toolchain"
)

type syncBuilder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuilder) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuilder) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testUntilReady runs a project's test plan and times it out once the
// test printed "ready" (the raw log is flushed every 10 ms).
func testUntilReady(t *testing.T, tc toolchain.Toolchain, dir string) (*Result, string) {
	t.Helper()
	steps, err := toolchain.TestPlan(tc, dir, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return runUntilReady(t, KindTest, steps)
}

// runUntilReady runs steps and times them out once their output says
// "ready" (the raw log is flushed every 10 ms).
func runUntilReady(t *testing.T, kind string, steps []toolchain.Step) (*Result, string) {
	t.Helper()
	ctx := testutil.NewExpireOn("ready")
	var raw syncBuilder
	res, err := Run(ctx, Request{Kind: kind, Steps: steps, Level: logfilter.Standard,
		Raw: io.MultiWriter(&raw, ctx), ProgressInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return res, raw.String()
}

func TestTimedOutGoTestNamesTheStuckLine(t *testing.T) {
	p := hangers.GoChanTest(t)
	res, raw := testUntilReady(t, toolchain.Go, p.Dir)
	want := fmt.Sprintf(" in TestWaitsForever, blocked in chan receive at hang_test.go:%d", p.Line(t, "RECV-FOREVER"))
	if res.Status != TimedOut || !strings.HasPrefix(res.Line, "TIMED OUT after ") || !strings.Contains(res.Line, want) {
		t.Fatalf("%s %q, want TIMED OUT …%q\nraw log:\n%s", res.Status, res.Line, want, tail(raw))
	}
	if res.Hang == nil || len(res.Hang.Stuck) != 1 || !strings.Contains(raw, "goroutine ") {
		t.Errorf("hang report %+v; the stacks must be in the raw log", res.Hang)
	}
}

func TestTimedOutRustTestNamesTheLoop(t *testing.T) {
	p := hangers.RustLoopTest(t)
	res, raw := testUntilReady(t, toolchain.Cargo, p.Dir)
	want := fmt.Sprintf(" in tests::spins, running at lib.rs:%d", p.Line(t, "SPIN"))
	if res.Status != TimedOut || !strings.HasSuffix(res.Line, want) {
		t.Fatalf("%s %q, want TIMED OUT …%q\nraw log:\n%s", res.Status, res.Line, want, tail(raw))
	}
	if !strings.Contains(raw, "taken by gdb before the kill") {
		t.Errorf("the stacks are not in the raw log:\n%s", tail(raw))
	}
}

// TestCancelledTestRunCapturesNothing: a client's cancel is not a hang.
func TestCancelledTestRunCapturesNothing(t *testing.T) {
	p := hangers.GoChanTest(t)
	steps, err := toolchain.TestPlan(toolchain.Go, p.Dir, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := testutil.NewExpireOn("ready")
	go func() {
		<-ready.Done()
		cancel()
	}()
	var raw syncBuilder
	res, err := Run(ctx, Request{Kind: KindTest, Steps: steps, Raw: io.MultiWriter(&raw, ready), ProgressInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Interrupted || res.Hang != nil || strings.Contains(raw.String(), "SIGQUIT") {
		t.Fatalf("%s %q, hang %+v", res.Status, res.Line, res.Hang)
	}
}

func tail(s string) string {
	if len(s) > 3000 {
		return "…" + s[len(s)-3000:]
	}
	return s
}

// TestTimedOutBuildStepNamesTheGenerator: a build whose code generator
// deadlocks (make runs it as a build step) ends TIMED OUT in the build
// step, naming both lock sites of the generator, not make's own wait.
func TestTimedOutBuildStepNamesTheGenerator(t *testing.T) {
	gen := hangers.ABBA(t)
	mk := "all:\n\t" + gen.Bin + " | tee generated.h\n"
	if err := os.WriteFile(filepath.Join(gen.Dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	steps, err := toolchain.BuildPlan(toolchain.Make, gen.Dir, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, raw := runUntilReady(t, KindBuild, steps)
	one, two := gen.Line(t, "LOCK-B-IN-ONE"), gen.Line(t, "LOCK-A-IN-TWO")
	for _, want := range []string{"build step", "deadlocked", fmt.Sprintf("abba.c:%d", one), fmt.Sprintf("abba.c:%d", two)} {
		if res.Status != TimedOut || !strings.Contains(res.Line, want) {
			t.Fatalf("%s %q: want TIMED OUT naming %q\nraw log:\n%s", res.Status, res.Line, want, tail(raw))
		}
	}
	t.Logf("verdict: %s", res.Line)
}
