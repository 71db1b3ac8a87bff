package pipeline

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// stallTestLimit is the stall watch's limit in these tests: short, so a
// hang is found quickly, yet long enough that a busy machine's compiler
// or configure step has moved within it.
const stallTestLimit = 2 * time.Second

// hungBound is how long a stalled run may take at most here: building
// the project, the stall limit, the stacks and a busy machine's slack;
// far below the ten-minute time limit it must not wait out.
const hungBound = 3 * time.Minute

// runStalled runs steps under a ten-minute limit with the stall watch on.
func runStalled(t *testing.T, kind string, steps []toolchain.Step, dir string) (*Result, string) {
	t.Helper()
	var raw syncBuilder
	res, err := Run(context.Background(), Request{Kind: kind, Steps: steps, Level: logfilter.Standard, Raw: &raw,
		Timeout: 10 * time.Minute, Stall: stallTestLimit, ProjectDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return res, raw.String()
}

// TestStallGoTestHung: a Go test deadlocked on a channel under a
// ten-minute limit ends HUNG after the stall limit, naming the test and
// where it is blocked.
func TestStallGoTestHung(t *testing.T) {
	p := hangers.GoChanTest(t)
	steps, err := toolchain.TestPlan(toolchain.Go, p.Dir, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, raw := runStalled(t, KindTest, steps, p.Dir)
	want := fmt.Sprintf("HUNG: no progress for 2s in TestWaitsForever, blocked in chan receive at hang_test.go:%d; no other goroutine is left that could send", p.Line(t, "RECV-FOREVER"))
	if res.Status != TimedOut || res.Line != want {
		t.Fatalf("%s %q, want %q\nraw log:\n%s", res.Status, res.Line, want, tail(raw))
	}
	if res.Hang == nil || res.Duration > hungBound {
		t.Errorf("hang report %+v after %s", res.Hang, res.Duration)
	}
}

// TestStallCTestHung: a CMake project whose test program deadlocks (two
// threads, two mutexes taken in opposite orders) is configured and built
// under the stall watch (neither step is called hung), and its test ends
// HUNG naming both lock sites.
func TestStallCTestHung(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc", "gdb")
	abba := hangers.ABBA(t)
	src, err := os.ReadFile(filepath.Join(abba.Dir, abba.Source))
	if err != nil {
		t.Fatal(err)
	}
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(abba C)\nenable_testing()\n" +
			"set(CMAKE_BUILD_TYPE Debug)\nfind_package(Threads REQUIRED)\nadd_executable(abba abba.c)\n" +
			"target_link_libraries(abba Threads::Threads)\nadd_test(NAME abba COMMAND abba)\n",
		"abba.c": string(src),
	})
	steps, err := toolchain.TestPlan(toolchain.CMake, dir, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, raw := runStalled(t, KindTest, steps, dir)
	one, two := abba.Line(t, "LOCK-B-IN-ONE"), abba.Line(t, "LOCK-A-IN-TWO")
	for _, want := range []string{"HUNG: no progress for 2s in the test step", "deadlocked", fmt.Sprintf("abba.c:%d", one), fmt.Sprintf("abba.c:%d", two)} {
		if res.Status != TimedOut || !strings.Contains(res.Line, want) {
			t.Fatalf("%s %q: want HUNG naming %q\nraw log:\n%s", res.Status, res.Line, want, tail(raw))
		}
	}
	if res.Duration > hungBound {
		t.Errorf("HUNG after %s", res.Duration)
	}
	t.Logf("verdict: %s", res.Line)
}

// TestStallSleepingTestNotHung: a make test whose program sleeps 6 s in
// one-second steps, silently, is never called hung under a 2 s stall
// limit: it passes.
func TestStallSleepingTestNotHung(t *testing.T) {
	nativeprojects.Need(t, "make")
	p := hangers.SleepSteps(t)
	mk := "all:\n\ntest:\n\t" + p.Bin + " 6\n"
	if err := os.WriteFile(filepath.Join(p.Dir, "Makefile"), []byte(mk), 0o644); err != nil {
		t.Fatal(err)
	}
	steps, err := toolchain.TestPlan(toolchain.Make, p.Dir, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, raw := runStalled(t, KindTest, steps, p.Dir)
	if res.Status == TimedOut || strings.HasPrefix(res.Line, "HUNG") || res.Duration < 6*time.Second {
		t.Fatalf("%s %q after %s: the sleeper must run to its end\nraw log:\n%s", res.Status, res.Line, res.Duration, tail(raw))
	}
}

// TestTimedOutNamesTheLimit: a test step that runs out of time says which
// limit ran out, before where it was stuck.
func TestTimedOutNamesTheLimit(t *testing.T) {
	p := hangers.GoChanTest(t)
	steps, err := toolchain.TestPlan(toolchain.Go, p.Dir, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testutil.NewExpireOn("ready")
	var raw syncBuilder
	res, err := Run(ctx, Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard, Limit: "the session default timeout_s",
		Raw: io.MultiWriter(&raw, ctx), ProgressInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf(" (the session default timeout_s) in TestWaitsForever, blocked in chan receive at hang_test.go:%d", p.Line(t, "RECV-FOREVER"))
	if res.Status != TimedOut || !strings.HasPrefix(res.Line, "TIMED OUT after ") || !strings.Contains(res.Line, want) {
		t.Fatalf("%s %q, want TIMED OUT …%q\nraw log:\n%s", res.Status, res.Line, want, tail(raw.String()))
	}
}
