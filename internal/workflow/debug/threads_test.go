package debug_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// A stopped program's stack lists its threads, each where its own code
// is, and thread: N picks one, as the list numbers it or by its position;
// a thread that is not there is refused with the list, not "invalid
// thread".
func TestStackOfAnotherThread(t *testing.T) {
	needTool(t, "gcc", "gcc")
	bin := filepath.Join(t.TempDir(), "threads")
	src, _ := filepath.Abs("testdata/threads.c")
	if out, err := exec.Command("gcc", "-g", "-O0", "-pthread", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			r := c.Call("debug_attach", map[string]any{"program": bin, "breakpoints": []string{"threads.c:19"}, "backend": backend.name})
			if !strings.HasPrefix(r.FirstLine(), "STOPPED at breakpoint 1 in main") {
				t.Fatalf("attach:\n%s", r.Text)
			}
			if !strings.Contains(r.Text, "in thread #1 (main) of 3; 2 other threads:\n  #2 worker ") {
				t.Errorf("the breakpoint's stop does not say where the other threads are:\n%s", r.Text)
			}
			r = c.Call("debug_stack", nil)
			if !strings.Contains(r.Text, "threads (3):\n  #1 main at threads.c:19 (stopped: breakpoint") || !strings.Contains(r.Text, "[this stack]") {
				t.Fatalf("debug_stack does not list the 3 threads:\n%s", r.Text)
			}
			for _, n := range []int{2, 3} {
				w := c.Call("debug_stack", map[string]any{"thread": n})
				if w.IsError || !strings.Contains(w.Text, "worker at threads.c:") {
					t.Errorf("debug_stack thread %d (a worker, by its number):\n%s", n, w.Text)
				}
			}
			bad := c.Call("debug_stack", map[string]any{"thread": 99})
			if !bad.IsError || !strings.Contains(bad.Text, "no thread 99: the threads are #1, #2, #3") {
				t.Errorf("debug_stack thread 99:\n%s", bad.Text)
			}
		})
	}
}

// The acceptance of issue 45's thread list: on a two-thread deadlock,
// debug_pause says how many threads there are and where the others are
// blocked, the same in the text and the structured answer, and
// debug_stack lists them all.
func TestPauseNamesWhereTheOtherThreadsAre(t *testing.T) {
	p := hangers.ABBA(t)
	where := map[string]string{
		"main": "main blocked in pthread_join at abba.c:",
		"one":  fmt.Sprintf("one blocked in pthread_mutex_lock at abba.c:%d", p.Line(t, "LOCK-B-IN-ONE")),
		"two":  fmt.Sprintf("two blocked in pthread_mutex_lock at abba.c:%d", p.Line(t, "LOCK-A-IN-TWO")),
	}
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			pid := startReady(t, c, p.Bin)
			if r := c.Call("debug_attach", map[string]any{"pid": pid, "program": p.Bin, "backend": backend.name}); r.IsError {
				t.Fatalf("attach:\n%s", r.Text)
			}
			r := c.Call("debug_pause", nil)
			summary := checkSummary(t, r.Text, where)
			state, _ := r.Out["state"].(map[string]any)
			threads, _ := state["threads"].(map[string]any)
			if threads["summary"] != summary || threads["count"] != float64(3) || len(threads["list"].([]any)) != 3 {
				t.Errorf("structured threads %v, want the text's summary:\n%s", threads, summary)
			}
			st := c.Call("debug_stack", nil)
			for _, w := range where {
				if !strings.Contains(st.Text, w) {
					t.Errorf("debug_stack's thread list lacks %q:\n%s", w, st.Text)
				}
			}
		})
	}
}

// checkSummary checks a stop's report names the stopped thread of three
// and where each of the others is (where: by function), and returns the
// summary's text.
func checkSummary(t *testing.T, text string, where map[string]string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^in thread #\d \((\w+)\) of 3; 2 other threads:\n(  .*\n){2}`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("the stop does not say where the other threads are:\n%s", text)
	}
	for fn, w := range where {
		if fn != m[1] && !strings.Contains(m[0], w) {
			t.Errorf("the stop in %s does not say %q:\n%s", m[1], w, text)
		}
	}
	return m[0]
}

// startReady starts program through process_start and waits for its
// "ready" line: its threads are in place then. It returns the pid.
func startReady(t *testing.T, c *mcptest.Client, program string) int {
	t.Helper()
	start := c.Call("process_start", map[string]any{"program": program})
	if start.IsError {
		t.Fatal(start.Text)
	}
	out := c.Call("process_output", map[string]any{"id": start.Out["id"], "wait_s": 60}).Out
	if lines, _ := out["lines"].([]any); len(lines) == 0 || lines[0] != "ready" {
		t.Fatalf("process_output = %v", out)
	}
	return int(start.Out["pid"].(float64))
}

// Under dlv a thread is a goroutine: a pause of a Go program deadlocked
// on two mutexes says where its goroutines are, each numbered by its id.
func TestPauseNamesWhereTheOtherGoroutinesAre(t *testing.T) {
	needTool(t, "dlv", "go install github.com/go-delve/delve/cmd/dlv")
	p := hangers.GoMutexes(t, 0)
	c := mcptest.Connect(t, nil)
	pid := startReady(t, c, p.Bin)
	if r := c.Call("debug_attach", map[string]any{"pid": pid, "program": p.Bin}); r.IsError {
		t.Fatalf("attach:\n%s", r.Text)
	}
	r := c.Call("debug_pause", nil)
	worker := fmt.Sprintf("main.worker blocked in sync.(*Mutex).Lock at main.go:%d", p.Line(t, "LOCK-A-IN-WORKER"))
	m := regexp.MustCompile(`(?m)^in thread #1 \(main\.main\) of \d+; \d+ other threads:\n(  .*\n)+`).FindString(r.Text)
	if !strings.Contains(m, worker) {
		t.Errorf("the pause does not say where the worker goroutine is (%q):\n%s", worker, r.Text)
	}
	st := c.Call("debug_stack", nil)
	main := fmt.Sprintf("#1 main.main blocked in sync.(*Mutex).Lock at main.go:%d (stopped: pause) [this stack]", p.Line(t, "LOCK-B-IN-MAIN"))
	if !strings.Contains(st.Text, main) || !strings.Contains(st.Text, worker) {
		t.Errorf("debug_stack's goroutine list:\n%s", st.Text)
	}
}

// A crash of a program of two threads, launched or from its core, says
// where the other thread is.
func TestCrashNamesWhereTheOtherThreadIs(t *testing.T) {
	needTool(t, "gcc", "gcc")
	dir := t.TempDir()
	bin := filepath.Join(dir, "threadcrash")
	src, _ := filepath.Abs("testdata/threadcrash.c")
	if out, err := exec.Command("gcc", "-g", "-O0", "-pthread", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	other := regexp.MustCompile(`(?m)^in thread #1 \(main\) of 2; 1 other thread:\n  #2 worker blocked in (pause at threadcrash.c:9|pthread_barrier_wait at threadcrash.c:7)\n`)
	res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{bin}, Dir: dir, CoreDumps: true})
	core := filepath.Join(dir, "core")
	if _, serr := os.Stat(core); err != nil || !res.CoreDumped || serr != nil {
		core = "" // no core here (core_pattern): the launch is checked alone
	}
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			if r := c.Call("debug_attach", map[string]any{"program": bin, "backend": backend.name, "breakpoints": []string{"main"}}); r.IsError {
				t.Fatalf("launch:\n%s", r.Text)
			}
			r := c.Call("debug_continue", map[string]any{"wait_s": 30})
			if !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in main at threadcrash.c:18") || !other.MatchString(r.Text) {
				t.Errorf("the crash does not say where the other thread is:\n%s", r.Text)
			}
			if core == "" {
				return
			}
			r = c.Call("debug_attach", map[string]any{"core": core, "program": bin, "backend": backend.name})
			if !strings.HasPrefix(r.FirstLine(), "CRASHED (SIGSEGV) in main at threadcrash.c:18") || !other.MatchString(r.Text) {
				t.Errorf("the core does not say where the other thread is:\n%s", r.Text)
			}
		})
	}
}
