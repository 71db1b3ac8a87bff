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
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// forkerC is a test program that runs its tests as Criterion does: each
// in a worker it forks into a session of its own (setsid), so the worker
// is neither in the step's process group nor a child of its leader, and
// no line names its pid. A worker a signal killed is reported in
// Criterion's words ("[FAIL] forks::first: CRASH!", at the line of the
// test, forker.c:1), and forker exits 1; with FORKER_CHECK set, as Check
// does (its default CK_FORK mode): the worker in a process group of its
// own (setpgid), its crash "forker.c:1:E:forks:first:0: (after this point)
// Received signal 11 (Segmentation fault)". Its first test dereferences
// NULL in first_crash at forker.c:2; with FORKER_TWICE set a second test
// aborts in second_crash, once the process TRIAGE_TEST_PID names
// (triage's watch) holds ./core open, so that its core replaces the
// first's only once that is kept. With FORKER_NOCORE the workers dump no
// core; with UNRELATED_CORE set forker first copies that file (another
// process's core) to ./core.
const forkerC = "int first_crash(int *p) {\n  return *p;\n}\n" +
	"#include <dirent.h>\n#include <limits.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n" +
	"#include <sys/resource.h>\n#include <sys/wait.h>\n#include <unistd.h>\n" +
	"void second_crash(void) {\n  abort();\n}\n" +
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
	"static void copy(const char *from) {\n  FILE *in = fopen(from, \"rb\"), *out = fopen(\"core\", \"wb\");\n" +
	"  char buf[65536];\n  size_t n;\n  while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)\n    fwrite(buf, 1, n, out);\n" +
	"  if (in)\n    fclose(in);\n  if (out)\n    fclose(out);\n}\n" +
	"static char report[4096];\n" +
	"static int run(const char *name, int which) {\n  fflush(stdout);\n  pid_t pid = fork();\n" +
	"  if (pid == 0) {\n    if (getenv(\"FORKER_CHECK\"))\n      setpgid(0, 0);\n    else\n      setsid();\n" +
	"    if (getenv(\"FORKER_NOCORE\")) {\n      struct rlimit none = {0, 0};\n      setrlimit(RLIMIT_CORE, &none);\n    }\n" +
	"    if (which == 2)\n      second_crash();\n    _exit(first_crash(0));\n  }\n" +
	"  int st = 0;\n  waitpid(pid, &st, 0);\n  if (!WIFSIGNALED(st))\n    return 0;\n  size_t used = strlen(report);\n" +
	"  if (getenv(\"FORKER_CHECK\"))\n" +
	"    snprintf(report + used, sizeof report - used, \"forker.c:1:E:forks:%s:0: (after this point) Received signal %d (%s)\\n\", name, WTERMSIG(st), strsignal(WTERMSIG(st)));\n" +
	"  else\n" +
	"    snprintf(report + used, sizeof report - used, \"[----] forker.c:1: Unexpected signal caught below this line!\\n[FAIL] forks::%s: CRASH!\\n\", name);\n" +
	"  return 1;\n}\n" +
	"int main(void) {\n  if (getenv(\"UNRELATED_CORE\"))\n    copy(getenv(\"UNRELATED_CORE\"));\n" +
	"  int tested = 1, crashed = run(\"first\", 1);\n" +
	"  const char *pid = getenv(\"TRIAGE_TEST_PID\");\n  char core[PATH_MAX];\n" +
	"  if (getenv(\"FORKER_TWICE\")) {\n" +
	"    if (pid && getcwd(core, sizeof core - 8)) {\n      strcat(core, \"/core\");\n      while (!held(pid, core)) {\n      }\n    }\n" +
	"    tested++;\n    crashed += run(\"second\", 2);\n  }\n" +
	"  if (getenv(\"FORKER_CHECK\"))\n" +
	"    printf(\"Running suite(s): forks\\n%d%%: Checks: %d, Failures: 0, Errors: %d\\n%s\", 100 * (tested - crashed) / tested, tested, crashed, report);\n" +
	"  else\n" +
	"    printf(\"%s[====] Synthesis: Tested: %d | Passing: %d | Failing: %d | Crashing: %d \\n\", report, tested, tested - crashed, crashed, crashed);\n" +
	"  return crashed ? 1 : 0;\n}\n"

// forkedWorkers is a CMake project whose one CTest test, forks, runs
// forker (forkerC).
var forkedWorkers = map[string]string{
	"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(forker C)\nenable_testing()\n" +
		"add_executable(forker forker.c)\nadd_test(NAME forks COMMAND forker)\n",
	"forker.c": forkerC,
}

// runForkedWorkers tests the project in dir as `test` plans it, with env
// for the tests, cores kept in a directory of their own.
func runForkedWorkers(t *testing.T, dir string, env map[string]string) (*Result, string) {
	t.Helper()
	return runPlannedCrash(t, toolchain.CMake, dir, toolchain.Options{Env: env}, "forks")
}

// TestForkedWorkerCores: a test program that runs each test in a worker
// of a session of its own (Criterion) leaves the worker's core. The core
// is the run's and the crashed test's by its executable, the program
// CTest names for the test (its pid is printed nowhere): the crash is
// reported from it, at the worker's crashing frame (not the framework's
// line of the test), and it is kept. A core replaced by a later worker's
// is kept under its pid and still the first crash's evidence; another
// process's core found where the workers run never is.
func TestForkedWorkerCores(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc")
	needFileCores(t)
	t.Run("the worker's core", func(t *testing.T) {
		dir := nativeprojects.Write(t, forkedWorkers)
		res, keep := runForkedWorkers(t, dir, nil)
		ci := checkFirstWorkerCore(t, res, keep)
		if left := leftCores(dir); len(left) > 0 {
			t.Errorf("cores left in the project: %v", left)
		}
		if ci != nil && !strings.Contains(res.Line, "SIGSEGV in first_crash at forker.c:2 while running forks") {
			t.Errorf("verdict %q: want the worker's SIGSEGV in first_crash at forker.c:2", res.Line)
		}
	})
	t.Run("replaced by a later worker's", func(t *testing.T) {
		w := coredump.WatchCores([]string{t.TempDir()}, 1)
		if w == nil {
			t.Skip("core_pattern names each core apart: no core is replaced")
		}
		w.Stop(0)
		dir := nativeprojects.Write(t, forkedWorkers)
		res, keep := runForkedWorkers(t, dir, map[string]string{"FORKER_TWICE": "1", "TRIAGE_TEST_PID": strconv.Itoa(os.Getpid())})
		checkFirstWorkerCore(t, res, keep)
		kept := map[string]string{}
		for _, p := range leftCores(keep) {
			if ci, err := coredump.OpenCore(p); err == nil {
				kept[ci.SignalName] = filepath.Base(ci.ExePath)
			}
		}
		if kept["SIGSEGV"] != "forker" || kept["SIGABRT"] != "forker" {
			t.Errorf("cores kept: %v; want both workers' (SIGSEGV, SIGABRT)", kept)
		}
	})
	t.Run("Check's worker", func(t *testing.T) {
		dir := nativeprojects.Write(t, forkedWorkers)
		res, keep := runForkedWorkers(t, dir, map[string]string{"FORKER_CHECK": "1"})
		checkFirstWorkerCore(t, res, keep)
	})
	t.Run("another process's core", func(t *testing.T) {
		other := unrelatedCore(t)
		dir := nativeprojects.Write(t, forkedWorkers)
		res, _ := runForkedWorkers(t, dir, map[string]string{"FORKER_NOCORE": "1", "UNRELATED_CORE": other})
		if c := res.Crash; c.Core != "" || c.Frame != nil && c.Frame.Function == "crash_here" || strings.Contains(res.Line, "crash_here") {
			t.Errorf("another process's core was taken for the worker's: %q, core %s, frame %+v", res.Line, c.Core, c.Frame)
		}
	})
}

// checkFirstWorkerCore checks that the crash is reported from the first
// worker's own core, kept in keep: a process in a session of its own
// whose parent is not the step's leader, dead of SIGSEGV in first_crash
// at forker.c:2.
func checkFirstWorkerCore(t *testing.T, res *Result, keep string) *coredump.CoreInfo {
	t.Helper()
	c := res.Crash
	ci, err := coredump.OpenCore(c.Core)
	if err != nil {
		t.Errorf("no core used (%v): %s\nno core: %s", err, res.Line, c.NoCore)
		return nil
	}
	if filepath.Base(ci.ExePath) != "forker" || ci.SignalName != "SIGSEGV" || !strings.HasPrefix(c.Core, keep) {
		t.Errorf("the crash's core %s is of %s (%s), want the first worker's (forker, SIGSEGV) kept in %s", c.Core, ci.ExePath, ci.SignalName, keep)
	}
	if leader := res.Steps[len(res.Steps)-1].Outcome.Result.Pid; ci.Pgrp != ci.Pid || ci.PPid == leader {
		t.Errorf("the worker's core: pid %d, ppid %d, pgrp %d; want a group of its own, not a child of the step's leader (pid %d)", ci.Pid, ci.PPid, ci.Pgrp, leader)
	}
	if f := c.Frame; f == nil || f.Function != "first_crash" || filepath.Base(f.File) != "forker.c" || f.Line != 2 {
		t.Errorf("frame %+v: want first_crash at forker.c:2, the worker's own", c.Frame)
	}
	return ci
}

// unrelatedCore is the core of a process of no run of the pipeline: the
// segv crasher run here, in a directory of its own.
func unrelatedCore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	r, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{crashers.Build(t, "segv")}, Dir: dir, CoreDumps: true, Timeout: time.Minute})
	if err != nil || !r.Signaled {
		t.Fatalf("segv: %v %+v", err, r)
	}
	cores := leftCores(dir)
	if len(cores) == 0 {
		t.Skip("core_pattern writes no core into the crashing process's directory")
	}
	return cores[0]
}

// TestForkedWorkerCoreAutomake: under automake's make check, Check's
// worker (a group of its own, its parent the test program, whose parent
// is test-driver's shell) leaves its core in the build directory. The
// report names the test, forker, whose name is its program's path there:
// a core of that program is the run's and the crashed test's.
func TestForkedWorkerCoreAutomake(t *testing.T) {
	nativeprojects.Need(t, "make", "cc", "autoreconf", "automake")
	needFileCores(t)
	dir := nativeprojects.Write(t, map[string]string{
		"configure.ac": "AC_INIT([am], [1.0])\nAM_INIT_AUTOMAKE([foreign])\nAC_PROG_CC\nAC_CONFIG_FILES([Makefile])\nAC_OUTPUT\n",
		"Makefile.am":  "AM_CFLAGS = -g -O0\ncheck_PROGRAMS = forker\nTESTS = $(check_PROGRAMS)\n",
		"forker.c":     forkerC,
	})
	for _, argv := range [][]string{{"autoreconf", "-i"}, {"./configure", "CFLAGS=-g -O0"}} {
		if r, err := spawn.Run(context.Background(), spawn.Spec{Argv: argv, Dir: dir, Timeout: 2 * time.Minute}); err != nil || !r.Success() {
			t.Fatalf("%v: %v %v", argv, err, r)
		}
	}
	steps, _, err := toolchain.Plan(toolchain.StepTest, nil, "make", dir, toolchain.Options{Env: map[string]string{"FORKER_CHECK": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	res, keep := runCrashSteps(t, steps, dir, "forker")
	checkFirstWorkerCore(t, res, keep)
}
