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

// twoCrashes is a make project whose test target runs two gcc-built
// programs that crash in turn in the project's directory, under bash
// (whose job reports name each crashed process's pid): first dereferences
// NULL in first_crash (without a core of its own when built with
// -DNOCORE), then second aborts in second_crash. $(WAIT) runs between.
var twoCrashes = map[string]string{
	"Makefile": "SHELL = /bin/bash\nCFLAGS = -g -O0\n\nall: first second\n\n" +
		"test: all\n\t./first; $(WAIT) ./second; exit 1\n",
	"first.c": "#include <stdio.h>\n#include <sys/resource.h>\n" +
		"int first_crash(int *p) {\n  return *p;\n}\n" +
		"int main(void) {\n#ifdef NOCORE\n  struct rlimit none = {0, 0};\n  setrlimit(RLIMIT_CORE, &none);\n#endif\n" +
		"  puts(\"first: starting\");\n  fflush(stdout);\n  return first_crash(0);\n}\n",
	"second.c": "#include <stdlib.h>\nvoid second_crash(void) {\n  abort();\n}\nint main(void) {\n  second_crash();\n  return 0;\n}\n",
}

// runTwoCrashes runs the project's test target with make's extra
// arguments, cores kept in a directory of their own.
func runTwoCrashes(t *testing.T, dir string, makeArgs ...string) (*Result, string) {
	t.Helper()
	keep := t.TempDir()
	step := toolchain.Step{Name: toolchain.StepTest, Argv: append([]string{"make", "test"}, makeArgs...), Dir: dir}
	// The time limit only ends a run whose second crash waits for a
	// watch that never held the first core.
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: []toolchain.Step{step}, Level: logfilter.Standard,
		ProjectDir: dir, CoreDirs: []string{dir}, KeepCores: keep, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Crashed || res.Crash == nil {
		t.Fatalf("%s %q, crash %+v: want a crash", res.Status, res.Line, res.Crash)
	}
	t.Logf("verdict: %s", res.Line)
	return res, keep
}

// TestTestCoreIsTheCrashedProcesss: two processes of one test step each
// leave ./core in turn, the second's replacing the first's. The crash the
// verdict reports is the first's (bash names its pid), so the second's
// core is never its evidence: the first's own core is used when it was
// kept, and with none of its own the answer says whose the core found is.
func TestTestCoreIsTheCrashedProcess(t *testing.T) {
	nativeprojects.Need(t, "make", "cc", "bash", "find")
	t.Run("overwritten", func(t *testing.T) {
		dir := nativeprojects.Write(t, twoCrashes)
		w := coredump.WatchCores([]string{dir}, 1)
		if w == nil {
			t.Skip("core_pattern names each core apart: no core is overwritten")
		}
		w.Stop(0)
		// The second crash waits until triage holds the first core open:
		// what a slower second process gives, made certain.
		wait := "until find /proc/" + strconv.Itoa(os.Getpid()) + "/fd -lname '$(CURDIR)/core' 2>/dev/null | grep -q .; do :; done;"
		res, keep := runTwoCrashes(t, dir, "WAIT="+wait)
		c := res.Crash
		ci, err := coredump.OpenCore(c.Core)
		if err != nil {
			t.Fatalf("no core used (%v): %s\nno core: %s", err, res.Line, c.NoCore)
		}
		if filepath.Base(ci.ExePath) != "first" || ci.SignalName != "SIGSEGV" || !strings.HasPrefix(c.Core, keep) {
			t.Errorf("the crash's core %s is of %s (%s), want first's (SIGSEGV) kept in %s", c.Core, ci.ExePath, ci.SignalName, keep)
		}
		if c.Frame == nil || c.Frame.Function != "first_crash" || !strings.Contains(res.Line, "in first_crash at first.c:4") || strings.Contains(res.Line, "second") {
			t.Errorf("verdict %q, frame %+v: want first_crash at first.c:4", res.Line, c.Frame)
		}
		if left := leftCores(dir); len(left) > 0 {
			t.Errorf("cores left in the project: %v", left)
		}
	})
	t.Run("no core of its own", func(t *testing.T) {
		dir := nativeprojects.Write(t, twoCrashes)
		res, keep := runTwoCrashes(t, dir, "CPPFLAGS=-DNOCORE")
		c := res.Crash
		if c.Core != "" || c.Frame != nil || strings.Contains(res.Line, "second_crash") {
			t.Fatalf("the second process's core was taken for the first's crash: %q, core %s, frame %+v", res.Line, c.Core, c.Frame)
		}
		for _, want := range []string{"no core of the crashed test: a core in " + dir + " is of pid ", " (second), not the crashed test (pid ", " (first)); kept as " + keep} {
			if !strings.Contains(c.NoCore, want) {
				t.Errorf("no core %q lacks %q", c.NoCore, want)
			}
		}
		var text strings.Builder
		c.WriteText(&text)
		if !strings.Contains(text.String(), "core: none — no core of the crashed test: a core in ") {
			t.Errorf("the answer does not say whose the core is:\n%s", text.String())
		}
	})
}

// leftCores lists the process cores under dir.
func leftCores(dir string) []string {
	var cores []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if _, err := coredump.OpenCore(p); err == nil {
				cores = append(cores, p)
			}
		}
		return nil
	})
	return cores
}

// generated is a CMake project whose build runs a generator, gen, by a
// custom command in the build directory: gen dereferences NULL in
// gen_crash at gen.c:5 (GEN_CRASHES), or forks a child that does while it
// writes the header itself (GEN_CHILD_CRASHES), a core nobody reports.
func generated(how string) map[string]string {
	return map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(gen C)\nset(CMAKE_C_FLAGS \"-g -O0 -D" + how + "\")\n" +
			"add_executable(gen gen.c)\n" +
			"add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/gen.h COMMAND gen > gen.h DEPENDS gen)\n" +
			"add_executable(app app.c ${CMAKE_BINARY_DIR}/gen.h)\ntarget_include_directories(app PRIVATE ${CMAKE_BINARY_DIR})\n",
		"gen.c": "#include <stdio.h>\n#include <sys/wait.h>\n#include <unistd.h>\n" +
			"int gen_crash(int *p) {\n  return *p;\n}\n" +
			"int main(void) {\n#ifdef GEN_CHILD_CRASHES\n  if (fork() == 0)\n    return gen_crash(0);\n  wait(0);\n#else\n  gen_crash(0);\n#endif\n" +
			"  puts(\"#define GENERATED 1\");\n  return 0;\n}\n",
		"app.c": "#include \"gen.h\"\nint main(void) { return GENERATED - 1; }\n",
	}
}

// TestBuildStepCoreIsCollected: a core that a process of a build step
// leaves in the build directory (a generator run by a CMake custom
// command) is found, moved out of the project and said: as the failed
// build's crash evidence, or in the notes when nothing reported it.
func TestBuildStepCoreIsCollected(t *testing.T) {
	nativeprojects.Need(t, "cmake", "make", "cc")
	run := func(t *testing.T, how string) (*Result, string, string) {
		dir := nativeprojects.Write(t, generated(how))
		steps, err := toolchain.BuildPlan(toolchain.CMake, dir, toolchain.Options{BuildDir: "build"})
		if err != nil {
			t.Fatal(err)
		}
		keep := t.TempDir()
		res, err := Run(context.Background(), Request{Kind: KindBuild, Steps: steps, Level: logfilter.Standard,
			ProjectDir: dir, CoreDirs: []string{dir}, KeepCores: keep})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("verdict: %s; notes: %q", res.Line, res.Notes)
		if left := leftCores(dir); len(left) > 0 {
			t.Errorf("cores left in the project: %v", left)
		}
		return res, dir, keep
	}
	t.Run("the generator crashed", func(t *testing.T) {
		res, _, keep := run(t, "GEN_CRASHES")
		c := res.Crash
		if res.Status.OK() || c == nil || !strings.HasPrefix(c.Core, keep) || filepath.Base(c.Program) != "gen" {
			t.Fatalf("%s %q, crash %+v: want the failed build's crash, gen's core kept in %s", res.Status, res.Line, c, keep)
		}
		if c.Frame == nil || c.Frame.Function != "gen_crash" || c.Signal != "SIGSEGV" {
			t.Errorf("crash frame %+v (%s), want gen_crash (SIGSEGV)", c.Frame, c.Signal)
		}
		if !strings.HasPrefix(res.Line, "CRASHED: gen SIGSEGV in gen_crash at gen.c:") || !strings.HasSuffix(res.Line, "(in the build step)") {
			t.Errorf("verdict %q: want gen's crash named from its core", res.Line)
		}
	})
	t.Run("a child of the generator crashed", func(t *testing.T) {
		res, dir, keep := run(t, "GEN_CHILD_CRASHES")
		if !res.Status.OK() || res.Crash != nil {
			t.Fatalf("%s %q, crash %+v: the build succeeded", res.Status, res.Line, res.Crash)
		}
		want := " (gen) in " + filepath.Join(dir, "build") + " (SIGSEGV); kept as " + keep
		if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], "the build step left a core of pid ") || !strings.Contains(res.Notes[0], want) {
			t.Errorf("notes %q: want the core said (%q)", res.Notes, want)
		}
	})
}

// crashyDoctest is a crate whose unit test aborts (tests::aborts, through
// give_up) and whose doctest aborts too, later, in the same directory.
var crashyDoctest = map[string]string{
	"Cargo.toml": "[package]\nname = \"crashy\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
	"src/lib.rs": "/// ```\n/// crashy::doc_aborts();\n/// ```\npub fn doc_aborts() {\n    std::process::abort();\n}\n\n" +
		"pub fn give_up(n: i32) -> i32 {\n    if n > 0 {\n        std::process::abort();\n    }\n    n\n}\n\n" +
		"#[cfg(test)]\nmod tests {\n    #[test]\n    fn aborts() {\n        assert_eq!(super::give_up(1), 3);\n    }\n}\n",
}

// TestRustDoctestCoreIsNotTheTests: `cargo test` (--no-fail-fast) of a crate
// whose unit test aborts and whose doctest aborts after it, each leaving
// ./core in the crate: the crash is the unit test's (cargo names its test
// binary), and the doctest's core is never taken for its evidence.
func TestRustDoctestCoreIsNotTheTests(t *testing.T) {
	nativeprojects.Need(t, "cargo")
	dir := nativeprojects.Write(t, crashyDoctest)
	steps, err := toolchain.TestPlan(toolchain.Cargo, dir, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keep := t.TempDir()
	var raw strings.Builder
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard,
		ProjectDir: dir, CoreDirs: []string{dir}, KeepCores: keep, Raw: &raw})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict: %s", res.Line)
	c := res.Crash
	if res.Status != Crashed || c == nil || !strings.Contains(res.Line, "tests::aborts") {
		t.Fatalf("%s %q, crash %+v: want the unit test's crash\n%s", res.Status, res.Line, c, raw.String())
	}
	if !strings.Contains(raw.String(), "Doc-tests crashy") {
		t.Fatalf("the doctest did not run:\n%s", raw.String())
	}
	if c.Core == "" {
		// Its own core was lost: the doctest's must be said, not used.
		if !strings.Contains(c.NoCore, "(rust_out), not the crashed test") {
			t.Errorf("no core, and %q does not say whose the core found is", c.NoCore)
		}
		return
	}
	ci, err := coredump.OpenCore(c.Core)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ci.ExePath, "/target/debug/deps/crashy-") || c.Frame == nil || !strings.Contains(c.Frame.Function, "give_up") {
		t.Errorf("core %s of %s, frame %+v: want the unit test binary's, in give_up", c.Core, ci.ExePath, c.Frame)
	}
}

// TestCTestCoresInOneDirectory: two CTest tests of one directory crash in
// turn in build/tests, the second's core replacing the first's; the crash
// the verdict names is the first test's, from its own core. t_wait, run
// between them, waits until triage holds the first core open.
func TestCTestCoresInOneDirectory(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc", "find")
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(two C)\nenable_testing()\nset(CMAKE_C_FLAGS \"-g -O0\")\nadd_subdirectory(tests)\n",
		"tests/CMakeLists.txt": "add_executable(t_first first.c)\nadd_executable(t_second second.c)\n" +
			"add_test(NAME t_first COMMAND t_first)\n" +
			"add_test(NAME t_wait COMMAND sh -c \"until find /proc/$TRIAGE_TEST_PID/fd -lname \\\"$PWD/core\\\" 2>/dev/null | grep -q .; do :; done\")\n" +
			"add_test(NAME t_second COMMAND t_second)\n",
		"tests/first.c":  twoCrashes["first.c"],
		"tests/second.c": twoCrashes["second.c"],
	})
	if w := coredump.WatchCores([]string{dir}, 1); w == nil {
		t.Skip("core_pattern names each core apart: no core is overwritten")
	} else {
		w.Stop(0)
	}
	steps, err := toolchain.TestPlan(toolchain.CMake, dir, toolchain.Options{Env: map[string]string{"TRIAGE_TEST_PID": strconv.Itoa(os.Getpid())}})
	if err != nil {
		t.Fatal(err)
	}
	keep := t.TempDir()
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard,
		ProjectDir: dir, CoreDirs: []string{dir}, KeepCores: keep, Timeout: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("verdict: %s", res.Line)
	c := res.Crash
	if res.Status != Crashed || c == nil || c.Test != "t_first" || c.Frame == nil || c.Frame.Function != "first_crash" {
		t.Fatalf("%s %q, crash %+v: want t_first's crash in first_crash, from its own core", res.Status, res.Line, c)
	}
	if ci, err := coredump.OpenCore(c.Core); err != nil || filepath.Base(ci.ExePath) != "t_first" {
		t.Errorf("core %s (%v): want t_first's", c.Core, err)
	}
	if left := leftCores(dir); len(left) > 0 {
		t.Errorf("cores left in the project: %v", left)
	}
}
