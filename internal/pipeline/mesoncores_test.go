package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// mesonCrashes is a meson project with a passing test and two crashing
// ones, each named apart from its program: null_deref runs seg, which
// dereferences NULL in first_crash at seg.c:4 (without a core of its own
// when SEG_NOCORE is set); abort_call runs ab, which aborts in
// second_crash at ab.c:8. abort_call is not parallel, so meson starts it
// once the others have ended and been reported: null_deref is the first
// crashed test. With TRIAGE_TEST_PID set, ab first waits until that
// process (triage's watch) holds ./core open, so that its core replaces
// seg's only once seg's is kept: what a slower second test gives, made
// certain. meson runs both in the build directory, each in a session of
// its own.
var mesonCrashes = map[string]string{
	"meson.build": "project('crashes', 'c')\n" +
		"test('passes', executable('ok', 'ok.c'))\n" +
		"test('null_deref', executable('seg', 'seg.c'))\n" +
		"test('abort_call', executable('ab', 'ab.c'), is_parallel: false)\n",
	"ok.c": "int main(void) { return 0; }\n",
	"seg.c": "#include <stdlib.h>\n#include <sys/resource.h>\n" +
		"int first_crash(int *p) {\n  return *p;\n}\n" +
		"int main(void) {\n  if (getenv(\"SEG_NOCORE\")) {\n    struct rlimit none = {0, 0};\n    setrlimit(RLIMIT_CORE, &none);\n  }\n" +
		"  return first_crash(0);\n}\n",
	"ab.c": "#include <dirent.h>\n#include <limits.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n" +
		"void second_crash(void) {\n  abort();\n}\n" +
		"/* held reports whether process pid has path open. */\n" +
		"static int held(const char *pid, const char *path) {\n" +
		"  char dir[64], link[PATH_MAX + 64], target[PATH_MAX];\n" +
		"  snprintf(dir, sizeof dir, \"/proc/%s/fd\", pid);\n" +
		"  DIR *d = opendir(dir);\n  if (!d)\n    return 0;\n" +
		"  int found = 0;\n  struct dirent *e;\n" +
		"  while (!found && (e = readdir(d))) {\n" +
		"    snprintf(link, sizeof link, \"%s/%s\", dir, e->d_name);\n" +
		"    ssize_t n = readlink(link, target, sizeof target - 1);\n" +
		"    if (n > 0) {\n      target[n] = 0;\n      found = strcmp(target, path) == 0;\n    }\n  }\n" +
		"  closedir(d);\n  return found;\n}\n" +
		"int main(void) {\n  const char *pid = getenv(\"TRIAGE_TEST_PID\");\n  char core[PATH_MAX];\n" +
		"  if (pid && getcwd(core, sizeof core - 8)) {\n    strcat(core, \"/core\");\n    while (!held(pid, core)) {\n    }\n  }\n" +
		"  second_crash();\n  return 0;\n}\n",
}

// runMesonCrashes tests the project in dir as `test` plans it, with env
// for the tests, cores kept in a directory of their own.
func runMesonCrashes(t *testing.T, dir string, env map[string]string) (*Result, string) {
	t.Helper()
	return runPlannedCrash(t, toolchain.Meson, dir, toolchain.Options{Jobs: 3, Env: env}, "null_deref")
}

// runPlannedCrash tests the project in dir as `test` plans it for tc with
// o, cores kept in a directory of their own, and wants test's crash.
func runPlannedCrash(t *testing.T, tc toolchain.Toolchain, dir string, o toolchain.Options, test string) (*Result, string) {
	t.Helper()
	steps, err := toolchain.TestPlan(tc, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return runCrashSteps(t, steps, dir, test)
}

// runCrashSteps runs steps for the project in dir, cores kept in a
// directory of their own, and wants test's crash.
func runCrashSteps(t *testing.T, steps []toolchain.Step, dir, test string) (*Result, string) {
	t.Helper()
	keep := t.TempDir()
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard,
		ProjectDir: dir, CoreDirs: []string{dir}, KeepCores: keep, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict: %s", res.Line)
	if res.Status != Crashed || res.Crash == nil || res.Crash.Test != test {
		t.Fatalf("%s %q, crash %+v: want %s's crash", res.Status, res.Line, res.Crash, test)
	}
	return res, keep
}

// needFileCores skips when core_pattern sends cores to a program: the
// cores a test leaves in its directory are what these tests are about.
func needFileCores(t *testing.T) {
	t.Helper()
	raw, _ := os.ReadFile("/proc/sys/kernel/core_pattern")
	if p := strings.TrimSpace(string(raw)); p == "" || strings.HasPrefix(p, "|") {
		t.Skipf("core_pattern %q writes no core file", p)
	}
}

// TestMesonTestCores: meson runs each test in a session of its own (so
// its process group is not the step's) and in the build directory, where
// under core_pattern "core" the second crashed test's core replaces the
// first's. The first crashed test's crash is reported from its own core
// (matched by its program, which meson names), at its crashing function
// and file:line; the second's core is never taken for it.
func TestMesonTestCores(t *testing.T) {
	nativeprojects.Need(t, "meson", "ninja", "cc")
	needFileCores(t)
	t.Run("each its own core", func(t *testing.T) {
		dir := nativeprojects.Write(t, mesonCrashes)
		env := map[string]string{}
		w := coredump.WatchCores([]string{dir}, 1)
		if w != nil {
			// core_pattern names every core alike: ab's core replaces
			// seg's once triage holds seg's.
			env["TRIAGE_TEST_PID"] = strconv.Itoa(os.Getpid())
		}
		w.Stop(0)
		res, keep := runMesonCrashes(t, dir, env)
		c := res.Crash
		ci, err := coredump.OpenCore(c.Core)
		if err != nil {
			t.Fatalf("no core used (%v): %s\nno core: %s", err, res.Line, c.NoCore)
		}
		step := res.Steps[len(res.Steps)-1]
		if filepath.Base(ci.ExePath) != "seg" || ci.SignalName != "SIGSEGV" || !strings.HasPrefix(c.Core, keep) {
			t.Errorf("the crash's core %s is of %s (%s), want seg's (SIGSEGV) kept in %s", c.Core, ci.ExePath, ci.SignalName, keep)
		}
		if leader := step.Outcome.Result.Pid; ci.Pgrp == leader || ci.PPid != leader {
			t.Errorf("seg's core: pgrp %d, ppid %d; want a group of its own under meson (pid %d)", ci.Pgrp, ci.PPid, leader)
		}
		if c.Frame == nil || c.Frame.Function != "first_crash" || filepath.Base(c.Frame.File) != "seg.c" || c.Frame.Line != 4 ||
			!strings.Contains(res.Line, "in first_crash at seg.c:4") || strings.Contains(res.Line, "second_crash") {
			t.Errorf("verdict %q, frame %+v: want first_crash at seg.c:4", res.Line, c.Frame)
		}
		// ab's core was found too, and kept apart from seg's.
		kept := map[string]string{}
		for _, p := range leftCores(keep) {
			if ci, err := coredump.OpenCore(p); err == nil {
				kept[filepath.Base(ci.ExePath)] = ci.SignalName
			}
		}
		if kept["seg"] != "SIGSEGV" || kept["ab"] != "SIGABRT" {
			t.Errorf("cores kept: %v; want seg's (SIGSEGV) and ab's (SIGABRT)", kept)
		}
		if left := leftCores(dir); len(left) > 0 {
			t.Errorf("cores left in the project: %v", left)
		}
	})
	t.Run("no core of its own", func(t *testing.T) {
		dir := nativeprojects.Write(t, mesonCrashes)
		res, keep := runMesonCrashes(t, dir, map[string]string{"SEG_NOCORE": "1"})
		c := res.Crash
		if c.Core != "" || c.Frame != nil || strings.Contains(res.Line, "second_crash") {
			t.Fatalf("abort_call's core was taken for null_deref's crash: %q, core %s, frame %+v", res.Line, c.Core, c.Frame)
		}
		bdir := res.Steps[len(res.Steps)-1].Step.Dir
		for _, want := range []string{"no core of the crashed test: a core in " + bdir + " is of pid ", " (ab), not the crashed test (seg); kept as " + keep} {
			if !strings.Contains(c.NoCore, want) {
				t.Errorf("no core %q lacks %q", c.NoCore, want)
			}
		}
	})
}
