package run_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// memTestCase is what test must say of one crashed test of the
// memory-error projects (nativeprojects.CMakeMemory and the others).
type memTestCase struct {
	test    string // the test program
	verdict string // in the verdict line
	// memcheck is the answer's second line's start; "" when no rerun
	// is wanted, and nothing is to be said of memcheck.
	memcheck string
}

// The tests of the memory-error projects: a heap overflow that glibc dies
// of later in another function's malloc, a use after free that reads a
// wild pointer, a NULL dereference (no rerun), a crash that looks like
// corruption and is none (not reproduced), and an uninitialised field
// that decides a branch, then a write through a wild pointer.
var memTestCases = []memTestCase{
	{"t_overflow", "SIGABRT", "memcheck: heap buffer overflow: invalid write of size 1 at memlib.c:13 in label (heap block of 24 bytes allocated at memlib.c:11 in label, 0 bytes past its end)"},
	{"t_uaf", "SIGSEGV in list_sum at memlib.c:29", "memcheck: use after free: invalid read of size 8 at memlib.c:29 in list_sum (heap block of 16 bytes freed at t_uaf.c:8 in main, allocated at memlib.c:34 in push, 8 bytes into it)"},
	{"t_null", "SIGSEGV in head_value at memlib.c:40", ""},
	{"t_fake", "SIGSEGV", "memcheck: no memory error seen in 1 rerun under memcheck; the program died of SIGSEGV"},
	{"t_uninit", "SIGSEGV in job_run at memlib.c:58", "memcheck: uninitialised value decides a branch at memlib.c:57 in job_run (created by a heap allocation at memlib.c:51 in job_new)"},
}

// dfreeCase is the C++ double free of the CMake and Makefile projects:
// the second delete[] (in the destructor), the first (in reset) and the
// allocation (the member initialiser, in the implicit constructor).
var dfreeCase = memTestCase{"t_dfree", "SIGABRT",
	"memcheck: invalid free (double free) at t_dfree.cpp:5 in Buffer::~Buffer() (heap block of 32 bytes freed at t_dfree.cpp:4 in Buffer::reset(), allocated at t_dfree.cpp:2 in Buffer::Buffer())"}

// checkMemTest calls test with args and checks that the crashed test's
// rerun under memcheck is the answer's first finding, under the verdict
// and above the crash site, in its structured result too, with valgrind's
// XML in the store, which it returns ("" when there is none), of exe (by
// the end of its path) alone.
func checkMemTest(t *testing.T, c *mcptest.Client, args map[string]any, want memTestCase, exe string) string {
	t.Helper()
	r := c.Call("test", args)
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED") || !strings.Contains(r.FirstLine(), want.verdict) ||
		!strings.Contains(r.FirstLine(), want.test) {
		t.Fatalf("outcome %q verdict %q, want a crash of %s with %q\n%s", r.Outcome, r.FirstLine(), want.test, want.verdict, r.Text)
	}
	var out buildTestOutput
	r.Decode(t, &out)
	if out.Crash == nil {
		t.Fatalf("no crash in the structured answer:\n%s", r.Text)
	}
	me := out.Crash.MemoryError
	if want.memcheck == "" {
		if me != nil || strings.Contains(r.Text, "memcheck") {
			t.Errorf("rerun under memcheck: %+v\n%s", me, r.Text)
		}
		return ""
	}
	lines := strings.Split(r.Text, "\n")
	if !strings.HasPrefix(lines[1], want.memcheck) || !before(lines, "memcheck: ", "crash site: ") {
		t.Fatalf("the answer's first finding is not memcheck's %q:\n%s", want.memcheck, r.Text)
	}
	if me == nil || me.OutputID == "" || me.LimitMS < 10000 || me.Why == "" {
		t.Fatalf("memory_error %+v", me)
	}
	// valgrind's XML, kept: the test alone was rerun, by its own
	// program, never the runner.
	xml := c.Call("output_get", map[string]any{"output_id": me.OutputID, "limit": 40}).Text
	if !strings.Contains(xml, "<valgrindoutput>") || !strings.Contains(xml, exe+"</exe>") {
		t.Errorf("valgrind's XML is not of %s alone:\n%s", exe, xml)
	}
	return xml
}

// CTest's listing names each test's program, arguments and directory: the
// one test that crashed is rerun alone under memcheck.
func TestCTestMemcheck(t *testing.T) {
	needValgrind(t)
	nativeprojects.Need(t, "cmake", "ctest", "cc")
	c, _ := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.CMakeMemory())
	for _, tc := range append(memTestCases, dfreeCase) {
		t.Run(tc.test, func(t *testing.T) {
			checkMemTest(t, c, map[string]any{"project_dir": dir, "run": []string{"^" + tc.test + "$"}}, tc, "/"+tc.test)
		})
	}
	t.Run("memcheck false", func(t *testing.T) {
		r := c.Call("test", map[string]any{"project_dir": dir, "run": []string{"^t_uaf$"}, "memcheck": false})
		if !strings.HasPrefix(r.FirstLine(), "CRASHED") || strings.Contains(r.Text, "memcheck") {
			t.Errorf("memcheck: false reran:\n%s", r.Text)
		}
	})
}

// automake runs each of TESTS by its path under the build directory.
func TestAutomakeMemcheck(t *testing.T) {
	needValgrind(t)
	nativeprojects.Need(t, "make", "cc", "autoreconf", "automake")
	c, _ := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.AutomakeMemory())
	cmd := exec.Command("autoreconf", "-i")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("autoreconf: %v\n%s", err, out)
	}
	for _, tc := range memTestCases {
		t.Run(tc.test, func(t *testing.T) {
			checkMemTest(t, c, map[string]any{"project_dir": dir, "args": []string{"TESTS=" + tc.test}}, tc, "/"+tc.test)
		})
	}
}

// meson's introspection names each test's program, arguments, directory
// and environment.
func TestMesonMemcheck(t *testing.T) {
	needValgrind(t)
	nativeprojects.Need(t, "meson", "ninja", "cc")
	c, _ := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.MesonMemory())
	for _, tc := range memTestCases {
		t.Run(tc.test, func(t *testing.T) {
			checkMemTest(t, c, map[string]any{"project_dir": dir, "run": []string{tc.test}}, tc, "/"+tc.test)
		})
	}
}

// A plain Makefile names no test: the program its core names is rerun,
// with the command line the core keeps.
func TestMakeMemcheck(t *testing.T) {
	needValgrind(t)
	nativeprojects.Need(t, "make", "cc")
	c, _ := connectWithStore(t)
	for _, tc := range append(memTestCases, dfreeCase) {
		t.Run(tc.test, func(t *testing.T) {
			dir := nativeprojects.Write(t, nativeprojects.MakeMemory(tc.test))
			xml := checkMemTest(t, c, map[string]any{"project_dir": dir}, tc, "/"+tc.test)
			if tc.memcheck != "" && !strings.Contains(xml, "<arg>--quick</arg>") {
				t.Errorf("the rerun lost the program's argument --quick:\n%s", xml)
			}
		})
	}
}

// A Rust test that writes past a Vec in unsafe code: its test binary is
// rerun with the test's name and --exact.
func TestCargoMemcheck(t *testing.T) {
	needValgrind(t)
	nativeprojects.Need(t, "cargo")
	c, _ := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.CargoMemory())
	xml := checkMemTest(t, c, map[string]any{"project_dir": dir}, memTestCase{"tests::overflows", "SIGABRT",
		"memcheck: heap buffer overflow: invalid write of size 1 at lib.rs:5 in memy::fill (heap block of 2000 bytes allocated at lib.rs:18 in memy::tests::overflows, 0 bytes past its end)"},
		"")
	if !strings.Contains(xml, "/target/debug/deps/memy-") || !strings.Contains(xml, "<arg>tests::overflows</arg>") || !strings.Contains(xml, "<arg>--exact</arg>") {
		t.Errorf("not the one test alone:\n%s", xml)
	}
}

// A plain Makefile is not rebuilt under check (its flags are its own, and
// the refusal says how to add the sanitizer's); one that builds its test
// with -fsanitize=address itself has a leak reported the same way as
// under check: leaks, the verdict naming the allocation's function and
// file:line.
func TestMakeLeak(t *testing.T) {
	nativeprojects.Need(t, "make", "cc")
	c, _ := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.MakeLeak())
	r := c.Call("test", map[string]any{"project_dir": dir, "check": "leaks"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "-fsanitize=address") {
		t.Errorf("check: leaks on a plain Makefile: %q, want a usage error naming the flag\n%s", r.Outcome, r.Text)
	}
	r = c.Call("test", map[string]any{"project_dir": dir})
	for _, w := range []string{"LeakSanitizer", "in make_buf at t_leak.c:3", "detected memory leaks"} {
		if r.Outcome != "failed" || !strings.Contains(r.FirstLine(), w) {
			t.Errorf("outcome %q verdict %q, want it to name %q\n%s", r.Outcome, r.FirstLine(), w, r.Text)
		}
	}
}
