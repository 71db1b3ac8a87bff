package run_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/workflow/run"
)

// TestRunStallHung: under run's default ten-minute limit, a program
// blocked on a pipe nobody writes ends HUNG after stall_s, with the
// stacks a timeout takes.
func TestRunStallHung(t *testing.T) {
	c := mcptest.Connect(t, nil)
	p := hangers.PipeReader(t)
	r := c.Call("run", map[string]any{"program": p.Bin, "stall_s": 2})
	want := fmt.Sprintf("HUNG: no progress for 2s; in main, blocked in read at piperead.c:%d", p.Line(t, "READ-PIPE"))
	if r.IsError || r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), want) {
		t.Fatalf("outcome %q, verdict %q, want %q\n%s", r.Outcome, r.FirstLine(), want, r.Text)
	}
	var out run.RunOutput
	r.Decode(t, &out)
	if !strings.Contains(r.Text, "stall: no output, no CPU time and every thread blocked for 2s: 1 in read of a pipe") {
		t.Errorf("no stall evidence:\n%s", r.Text)
	}
	if !out.TimedOut || out.Hang == nil || time.Duration(out.DurationMS)*time.Millisecond > 2*time.Second+hungSlack {
		t.Errorf("timed_out %v, hang %+v, after %d ms", out.TimedOut, out.Hang, out.DurationMS)
	}
}

// TestRunStallOff: stall_s 0 waits for the time limit.
func TestRunStallOff(t *testing.T) {
	c := mcptest.Connect(t, nil)
	r := c.Call("run", map[string]any{"program": hangers.PipeReader(t).Bin, "stall_s": 0, "timeout_s": 3})
	if !strings.HasPrefix(r.FirstLine(), "TIMED OUT after 3s") {
		t.Fatalf("verdict %q, want a timeout\n%s", r.FirstLine(), r.Text)
	}
}

func TestRunStallBadInput(t *testing.T) {
	c := mcptest.Connect(t, nil)
	for _, v := range []any{-1, 1e12} {
		r := c.Call("run", map[string]any{"program": "true", "stall_s": v})
		if !r.IsError || !strings.Contains(r.Text, "stall_s") {
			t.Errorf("stall_s %v: isError %v text %q", v, r.IsError, r.Text)
		}
	}
}

// TestTestStallHung: test of a Go module whose test deadlocks on a
// channel, under a ten-minute timeout_s, ends HUNG after stall_s naming
// the test and where it waits, with the stacks.
func TestTestStallHung(t *testing.T) {
	p := hangers.GoChanTest(t)
	c := mcptest.Connect(t, nil)
	r := c.Call("test", map[string]any{"project_dir": p.Dir, "timeout_s": 600, "stall_s": 2})
	want := fmt.Sprintf("HUNG: no progress for 2s in TestWaitsForever, blocked in chan receive at hang_test.go:%d; no other goroutine is left that could send", p.Line(t, "RECV-FOREVER"))
	if r.Outcome != "failed" || r.FirstLine() != want {
		t.Fatalf("outcome %q, verdict %q, want %q\n%s", r.Outcome, r.FirstLine(), want, r.Text)
	}
	var out run.BuildTestOutput
	r.Decode(t, &out)
	if out.Status != "timed_out" || out.Hang == nil || out.DurationMS > 180_000 {
		t.Errorf("status %q, hang %+v, after %d ms", out.Status, out.Hang, out.DurationMS)
	}
}

// TestBuildUnderStallWatch: configuring and building a real CMake project
// (cmake's checks, the compiler, the linker) under a 2 s stall limit is
// never called hung.
func TestBuildUnderStallWatch(t *testing.T) {
	needTool(t, "cmake", "cmake")
	needTool(t, "cc", "gcc")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(demo C CXX)\nadd_executable(app app.c)\n",
		"app.c":          "#include <stdio.h>\nint main(void) { puts(\"hi\"); return 0; }\n",
	})
	r := c.Call("build", map[string]any{"project_dir": dir, "stall_s": 2})
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "BUILD SUCCEEDED") {
		t.Fatalf("outcome %q verdict %q\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
}

// TestStallSessionDefault: a session default stall_s applies to run, and
// an explicit stall_s (0: off) wins over it.
func TestStallSessionDefault(t *testing.T) {
	c := mcptest.Connect(t, nil)
	if r := c.Call("session_set_defaults", map[string]any{"stall_s": 2}); r.IsError {
		t.Fatalf("session_set_defaults: %s", r.Text)
	}
	p := hangers.PipeReader(t)
	r := c.Call("run", map[string]any{"program": p.Bin})
	if !strings.HasPrefix(r.FirstLine(), "HUNG: no progress for 2s") {
		t.Fatalf("verdict %q, want HUNG after the default's 2s\n%s", r.FirstLine(), r.Text)
	}
	r = c.Call("run", map[string]any{"program": p.Bin, "stall_s": 0, "timeout_s": 3})
	if !strings.HasPrefix(r.FirstLine(), "TIMED OUT after 3s") {
		t.Fatalf("verdict %q, want the explicit stall_s 0 to turn the watch off\n%s", r.FirstLine(), r.Text)
	}
	if r := c.Call("session_set_defaults", map[string]any{"stall_s": -1}); !r.IsError || !strings.Contains(r.Text, "stall_s") {
		t.Errorf("stall_s -1 accepted: %s", r.Text)
	}
}

// TestTimedOutNamesTheLimit: a run that runs out of time says which limit
// it was: the call's timeout_s, the session's, or the config's.
func TestTimedOutNamesTheLimit(t *testing.T) {
	p := hangers.PipeReader(t)
	c := mcptest.Connect(t, &config.Config{Timeouts: config.Timeouts{Run: config.Duration(2 * time.Second)}})
	want := func(r mcptest.Result, head string) {
		t.Helper()
		if !strings.HasPrefix(r.FirstLine(), head) {
			t.Errorf("verdict %q, want %q…\n%s", r.FirstLine(), head, r.Text)
		}
	}
	want(c.Call("run", map[string]any{"program": p.Bin, "stall_s": 0}), "TIMED OUT after 2s (the config's timeouts.run; timeout_s overrides it)")
	want(c.Call("run", map[string]any{"program": p.Bin, "stall_s": 0, "timeout_s": 1}), "TIMED OUT after 1s (timeout_s)")
	if r := c.Call("session_set_defaults", map[string]any{"timeout_s": 1}); r.IsError {
		t.Fatalf("session_set_defaults: %s", r.Text)
	}
	want(c.Call("run", map[string]any{"program": p.Bin, "stall_s": 0}), "TIMED OUT after 1s (the session default timeout_s)")
}
