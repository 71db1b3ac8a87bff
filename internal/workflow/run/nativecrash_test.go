package run_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// crashCase is what `test` must say of a project whose test crashes.
type crashCase struct {
	verdict []string // substrings of the verdict line
	core    bool     // a core is found, moved out of the project, hinted
	frame   string   // the crashing frame's function, when the core is read
	kept    []string // lines of the raw log the filtered log keeps
	site    []string // lines of the crash site the text shows
}

// connectWithStore connects a client whose output store lives in a
// temporary directory, so that the cores triage keeps have a real home.
func connectWithStore(t *testing.T) (*mcptest.Client, string) {
	state := t.TempDir()
	return mcptest.Connect(t, &config.Config{Store: config.Store{Path: filepath.Join(state, "triage.db")}}), state
}

// checkCrash calls `test` on dir and checks the verdict, the core (found
// wherever the runner put it, moved into triage's state directory, named
// in the evidence and the dump_open hint), and the kept lines.
func checkCrash(t *testing.T, c *mcptest.Client, state, dir string, args map[string]any, want crashCase) buildTestOutput {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	args["project_dir"] = dir
	r := c.Call("test", args)
	if r.Outcome != "failed" || !strings.HasPrefix(r.FirstLine(), "CRASHED") {
		t.Fatalf("outcome %q verdict %q, want a crash\n%s", r.Outcome, r.FirstLine(), r.Text)
	}
	for _, w := range want.verdict {
		if !strings.Contains(r.FirstLine(), w) {
			t.Errorf("verdict %q lacks %q", r.FirstLine(), w)
		}
	}
	for _, s := range want.site {
		if !strings.Contains(r.Text, s+"\n") {
			t.Errorf("the crash site lacks %q:\n%s", s, r.Text)
		}
	}
	for _, k := range want.kept {
		if !strings.Contains(r.Text, k) {
			t.Errorf("the filtered log lost %q:\n%s", k, r.Text)
		}
	}
	var out buildTestOutput
	r.Decode(t, &out)
	if !want.core {
		return out
	}
	if out.Crash == nil || out.Crash.Core == "" {
		t.Fatalf("no core found: %+v\n%s", out.Crash, r.Text)
	}
	core := out.Crash.Core
	if !filepath.IsAbs(core) || !strings.HasPrefix(core, state+string(filepath.Separator)) {
		t.Errorf("core %s is not in triage's state directory %s", core, state)
	}
	if _, err := coredump.OpenCore(core); err != nil {
		t.Errorf("the kept core does not open: %v", err)
	}
	if left := coresUnder(t, dir); len(left) > 0 {
		t.Errorf("cores left in the project: %v", left)
	}
	if !strings.Contains(r.Text, `dump_open {"core":"`+core+`","program":"/`) {
		t.Errorf("no dump_open hint with absolute paths for %s:\n%s", core, r.Text)
	}
	if !strings.Contains(r.Text, `debug_attach {"core":"`+core+`","program":"/`) {
		t.Errorf("no debug_attach hint with absolute paths for %s:\n%s", core, r.Text)
	}
	if want.frame != "" && (out.Crash.Frame == nil || out.Crash.Frame.Function != want.frame) {
		t.Errorf("crashing frame %+v, want %s", out.Crash.Frame, want.frame)
	}
	return out
}

// coresUnder lists files named core or core.N under dir.
func coresUnder(t *testing.T, dir string) []string {
	t.Helper()
	var cores []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && (d.Name() == "core" || strings.HasPrefix(d.Name(), "core.")) {
			if _, err := coredump.OpenCore(p); err == nil {
				cores = append(cores, p)
			}
		}
		return nil
	})
	return cores
}

func TestCargoTestCrashes(t *testing.T) {
	nativeprojects.Need(t, "cargo")
	c, state := connectWithStore(t)
	t.Run("stack overflow", func(t *testing.T) {
		dir := nativeprojects.Write(t, nativeprojects.Cargo("overflows"))
		checkCrash(t, c, state, dir, nil, crashCase{
			verdict: []string{"SIGABRT", "while running ", "tests::overflows"},
			core:    true,
			// Not "thread 'tests::overflows'": Rust writes that message in
			// pieces, and libtest's own output can land between them.
			kept: []string{"has overflowed its stack", "fatal runtime error: stack overflow", "error: test failed, to rerun pass `--lib`", "(signal: 6, SIGABRT: process abort signal)"},
		})
	})
	t.Run("abort", func(t *testing.T) {
		dir := nativeprojects.Write(t, nativeprojects.Cargo("aborts"))
		checkCrash(t, c, state, dir, nil, crashCase{
			verdict: []string{"SIGABRT", "while running ", "tests::aborts"},
			core:    true,
			kept:    []string{"error: test failed, to rerun pass `--lib`", "(signal: 6, SIGABRT: process abort signal)"},
		})
	})
}

func TestCTestCrashesInSubdirectory(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc")
	c, state := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.CMake())
	out := checkCrash(t, c, state, dir, nil, crashCase{
		verdict: []string{"SIGSEGV", "in name_length at lib.c:4", "while running t_segv"},
		core:    true,
		frame:   "name_length",
		kept:    []string{"tests/t_unity.c:6:test_compare:FAIL: Expected 1 Was 2", "Subprocess aborted***Exception:", "***Exception: SegFault"},
	})
	status := map[string]string{}
	for _, tc := range out.Tests.Cases {
		status[tc.Name] = string(tc.Status)
	}
	for name, st := range map[string]string{"t_ok": "passed", "t_segv": "crashed", "t_abort": "crashed", "t_unity": "failed"} {
		if status[name] != st {
			t.Errorf("%s: %q, want %q (all: %v)", name, status[name], st, status)
		}
	}
}

func TestMakeTestCrash(t *testing.T) {
	nativeprojects.Need(t, "make", "cc")
	c, state := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.Make())
	checkCrash(t, c, state, dir, nil, crashCase{
		verdict: []string{"SIGSEGV", "in name_length at lib.c:4", "crasher"},
		core:    true,
		frame:   "name_length",
		kept:    []string{"check.c:3: FAIL compare: expected 1, got 2", "Segmentation fault (core dumped)"},
		// The fault is in strlen; the site is the project's frame, from
		// the test's own core; the NULL it was given is main's literal.
		site: []string{"crash site: name_length at lib.c:4 (frame #1)", "  >    4 |   return (int)strlen(s) + s[0] * 0;", "  args: s = 0x0", "  fault address 0x0: s = 0x0",
			"  `s` is frame #2's `0`", "called from: main at crasher.c:5 (frame #2)", "  >    5 |   return name_length(0);"},
	})
}

func TestMakeCheckAutomakeCrash(t *testing.T) {
	nativeprojects.Need(t, "make", "cc", "autoreconf", "automake")
	c, state := connectWithStore(t)
	dir := nativeprojects.Write(t, nativeprojects.Automake())
	for _, argv := range [][]string{{"autoreconf", "-i"}, {"./configure"}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
	}
	checkCrash(t, c, state, dir, nil, crashCase{
		verdict: []string{"SIGSEGV", "in name_length at lib.c:4", "test_segv"},
		core:    true,
		frame:   "name_length",
		kept:    []string{"FAIL: test_segv", "FAIL: test_fail", "# FAIL:  2"},
	})
}

func TestASanReportInCTestAndMake(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "make", "cc")
	c, state := connectWithStore(t)
	for name, files := range map[string]map[string]string{"ctest": nativeprojects.CMakeASan(), "make": nativeprojects.MakeASan()} {
		t.Run(name, func(t *testing.T) {
			dir := nativeprojects.Write(t, files)
			checkCrash(t, c, state, dir, nil, crashCase{
				verdict: []string{"AddressSanitizer", "heap-buffer-overflow", "fill", "asan.c:4"},
				kept:    []string{"ERROR: AddressSanitizer: heap-buffer-overflow", "SUMMARY: AddressSanitizer: heap-buffer-overflow"},
			})
		})
	}
}

// TestUsersOwnCoreStays: a core the user had in the project before the run
// is neither moved nor reported as this run's.
func TestUsersOwnCoreStays(t *testing.T) {
	nativeprojects.Need(t, "make", "cc")
	c, _ := connectWithStore(t)
	dir := nativeprojects.Write(t, map[string]string{
		"Makefile": "test:\n\t@echo 'all good'\n\tfalse\n",
	})
	// A real core of another process, written before the run.
	user := nativeprojects.Write(t, nativeprojects.Make())
	r := c.Call("test", map[string]any{"project_dir": user})
	var out buildTestOutput
	r.Decode(t, &out)
	if out.Crash == nil || out.Crash.Core == "" {
		t.Fatalf("no core to plant: %s", r.Text)
	}
	b, err := os.ReadFile(out.Crash.Core)
	if err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, "core")
	if err := os.WriteFile(planted, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r = c.Call("test", map[string]any{"project_dir": dir})
	if strings.HasPrefix(r.FirstLine(), "CRASHED") || strings.Contains(r.Text, "dump_open") {
		t.Errorf("the user's own core was taken for this run's: %q\n%s", r.FirstLine(), r.Text)
	}
	if _, err := os.Stat(planted); err != nil {
		t.Errorf("the user's core was moved: %v", err)
	}
}
