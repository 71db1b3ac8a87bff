package run_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// The sanitizer project's tests pass when built plainly; under each check
// test builds in a sanitizer build directory of its own and the one test
// whose bug the sanitizer reports fails, the verdict naming the report's
// kind and file:line.
func TestCTestCheck(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc")
	c, _ := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.CMakeSanitize())
	if r := c.Call("test", map[string]any{"project_dir": dir}); r.Outcome != "ok" {
		t.Fatalf("the plain build's tests: %q\n%s", r.FirstLine(), r.Text)
	}
	for _, tc := range []struct {
		check, run, build string
		verdict           []string
	}{
		{"memory", "", "debug-asan", []string{"t_oob", "AddressSanitizer: heap-buffer-overflow in sum at ", "t_oob.c:6"}},
		{"leaks", "t_leak", "debug-asan", []string{"t_leak", "LeakSanitizer: detected memory leaks in make_buf at ", "t_leak.c:3"}},
		{"undefined", "", "debug-ubsan", []string{"t_ovf", "runtime error: signed integer overflow", "t_ovf.c:3"}},
		{"thread", "", "debug-tsan", []string{"data race in t_race at t_race.c:"}},
	} {
		t.Run(tc.check, func(t *testing.T) {
			args := map[string]any{"project_dir": dir, "check": tc.check}
			if tc.run != "" {
				args["run"] = []string{tc.run}
			}
			r := c.Call("test", args)
			if r.Outcome != "failed" || !strings.Contains(r.Text, "/.triage/build/"+tc.build+"\n") {
				t.Fatalf("outcome %q, want a failure built in %s:\n%s", r.Outcome, tc.build, r.Text)
			}
			for _, w := range tc.verdict {
				if !strings.Contains(r.FirstLine(), w) {
					t.Errorf("verdict %q lacks %q", r.FirstLine(), w)
				}
			}
			if strings.Contains(r.Text, "memcheck") {
				t.Errorf("a sanitizer build's test was rerun under memcheck:\n%s", r.Text)
			}
		})
	}
	r := c.Call("test", map[string]any{"project_dir": dir, "check": "races"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "want memory, leaks, undefined or thread") {
		t.Errorf("check races: %q\n%s", r.Outcome, r.Text)
	}
}

// A project that assigns CMAKE_C_FLAGS and CMAKE_EXE_LINKER_FLAGS
// outright still builds with the sanitizer (the compile and link options
// of triage's CMAKE_PROJECT_INCLUDE script): its overflow is reported.
func TestCTestCheckAssignedFlags(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc")
	c, _ := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.CMakeSanitizeAssigning())
	r := c.Call("test", map[string]any{"project_dir": dir, "check": "memory"})
	if r.Outcome != "failed" || !strings.Contains(r.FirstLine(), "AddressSanitizer: heap-buffer-overflow in sum at ") ||
		!strings.Contains(r.FirstLine(), "t_oob.c:6") {
		t.Fatalf("outcome %q verdict %q, want the overflow named\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
}

// An autotools project's tests under each check: make check in a
// sanitizer build directory of its own (configured with the sanitizer's
// CFLAGS and LDFLAGS); the report, in the test's .log, fails the test it
// is in and the verdict names its kind and site.
func TestAutotoolsCheck(t *testing.T) {
	nativeprojects.Need(t, "autoreconf", "automake", "make", "cc")
	c, _ := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.AutomakeSanitize())
	if r := c.Call("test", map[string]any{"project_dir": dir}); r.Outcome != "ok" {
		t.Fatalf("the plain build's tests: %q\n%s", r.FirstLine(), r.Text)
	}
	for _, tc := range []struct {
		check, only, build string
		verdict            []string
	}{
		{"memory", "", "autotools-debug-asan", []string{"t_oob", "AddressSanitizer: heap-buffer-overflow in sum at ", "t_oob.c:6"}},
		{"leaks", "t_leak", "autotools-debug-asan", []string{"t_leak", "LeakSanitizer: detected memory leaks in make_buf at ", "t_leak.c:3"}},
		{"undefined", "", "autotools-debug-ubsan", []string{"t_ovf", "runtime error: signed integer overflow", "t_ovf.c:3"}},
		{"thread", "t_race", "autotools-debug-tsan", []string{"t_race", "ThreadSanitizer: data race", "in bump at t_race.c:4|in main at t_race.c:8"}},
	} {
		t.Run(tc.check, func(t *testing.T) {
			args := map[string]any{"project_dir": dir, "check": tc.check}
			if tc.only != "" {
				args["args"] = []string{"TESTS=" + tc.only}
			}
			r := c.Call("test", args)
			if r.Outcome != "failed" || !strings.Contains(r.Text, "/.triage/build/"+tc.build) {
				t.Fatalf("outcome %q, want a failure built in %s:\n%s", r.Outcome, tc.build, r.Text)
			}
			for _, w := range tc.verdict { // a|b: either (which side of a race TSan names first varies)
				if !slices.ContainsFunc(strings.Split(w, "|"), func(w string) bool { return strings.Contains(r.FirstLine(), w) }) {
					t.Errorf("verdict %q lacks %q\n%s", r.FirstLine(), w, r.Text)
				}
			}
		})
	}
}

// Go's thread check is go test -race: a race the plain run passes over
// fails the test, named at its access.
func TestGoTestCheckThread(t *testing.T) {
	nativeprojects.Need(t, "go", "cc")
	c, _ := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.GoRace())
	r := c.Call("test", map[string]any{"project_dir": dir, "check": "thread"})
	if r.Outcome != "failed" || !strings.Contains(r.FirstLine(), "data race in ") || !strings.Contains(r.FirstLine(), "race.go:") ||
		!strings.Contains(r.Text, "go test -json -race") {
		t.Fatalf("outcome %q verdict %q, want the race named\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	r = c.Call("test", map[string]any{"project_dir": dir, "check": "undefined"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "go has no undefined-behaviour sanitizer") {
		t.Errorf("check undefined on go: %q\n%s", r.Outcome, r.Text)
	}
}
