package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// ownRunner is a test program with a runner of its own, no framework
// triage knows: a line per check and a closing count; with
// OWN_RUNNER_EXIT_EARLY set, exit(0) after the first check.
const ownRunner = `#include <stdio.h>
#include <stdlib.h>
int main(void) {
	const char *names[] = {"parse", "emit", "round_trip"};
	for (int i = 0; i < 3; i++) {
		printf("check %s ... ok\n", names[i]);
		fflush(stdout);
		if (getenv("OWN_RUNNER_EXIT_EARLY")) exit(0);
	}
	printf("ran 3 checks, 0 failures\n");
	return 0;
}
`

// TestOwnRunnerHeldToItsClosingLine: under CTest, a project's own runner
// that exits 0 before its closing count line passes by its exit status;
// triage holds it to the line its last passing run printed.
func TestOwnRunnerHeldToItsClosingLine(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc")
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(own C)\nenable_testing()\n" +
			"add_executable(own_tests own.c)\nadd_test(NAME own_tests COMMAND own_tests)\n",
		"own.c": ownRunner,
	})
	run := func(env map[string]string) *Result {
		t.Helper()
		steps, err := toolchain.TestPlan(toolchain.CMake, dir, toolchain.Options{Env: env})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard,
			ProjectDir: dir, Timeout: 2 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run(nil); res.Status != Succeeded {
		t.Fatalf("pristine: %s %q, want a pass", res.Status, res.Line)
	}
	res := run(map[string]string{"OWN_RUNNER_EXIT_EARLY": "1"})
	t.Logf("verdict: %s", res.Line)
	if res.Status != Failed || !strings.Contains(res.Line, "own_tests") || !strings.Contains(res.Line, "ran N checks, N failures") {
		t.Errorf("exit 0 before the closing line: %s %q, want own_tests cut short naming its closing line", res.Status, res.Line)
	}
	if res := run(nil); res.Status != Succeeded {
		t.Errorf("pristine again: %s %q, want a pass", res.Status, res.Line)
	}
}

// TestNoTestsNamesTheTestOption: a CMake project that builds its tests
// only when asked answers NO TESTS RAN with the configure argument that
// turns them on; given it, the tests run.
func TestNoTestsNamesTheTestOption(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc")
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(opt C)\n" +
			"option(OPT_BUILD_TESTS \"build the tests\" OFF)\nif(OPT_BUILD_TESTS)\n  enable_testing()\n" +
			"  add_executable(t t.c)\n  add_test(NAME t COMMAND t)\nendif()\n",
		"t.c": "int main(void) { return 0; }\n",
	})
	run := func(o toolchain.Options) *Result {
		t.Helper()
		steps, err := toolchain.TestPlan(toolchain.CMake, dir, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, ProjectDir: dir, Timeout: 2 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := run(toolchain.Options{})
	if res.Status != NoTests || !strings.Contains(res.Line, `configure_args ["-DOPT_BUILD_TESTS=ON"]`) {
		t.Fatalf("tests off: %s %q, want NO TESTS RAN naming -DOPT_BUILD_TESTS=ON", res.Status, res.Line)
	}
	if res := run(toolchain.Options{ConfigureArgs: []string{"-DOPT_BUILD_TESTS=ON"}}); res.Status != Succeeded {
		t.Errorf("with the option: %s %q, want a pass", res.Status, res.Line)
	}
}
