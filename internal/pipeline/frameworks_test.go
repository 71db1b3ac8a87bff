package pipeline

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// catch2Tests are Catch2 v2 cases (Debian's catch2, its prebuilt main);
// with EXIT_EARLY set, the second calls exit(0), and Catch2 prints nothing.
const catch2Tests = `#include <catch2/catch.hpp>
#include <cstdlib>

TEST_CASE("adds numbers") { CHECK(1 + 1 == 2); }

TEST_CASE("exits early")
{
    if (std::getenv("EXIT_EARLY")) std::exit(0);
    CHECK(2 + 2 == 4);
}

TEST_CASE("runs last") { CHECK(3 + 3 == 6); }
`

// checkTests are Check tests run in the program's own process (CK_FORK=no,
// as CTest's ENVIRONMENT sets it); with EXIT_EARLY set, the second calls
// a helper that calls exit(0).
const checkTests = `#include <check.h>
#include <stdlib.h>

static void leave(void) { if (getenv("EXIT_EARLY")) exit(0); }

START_TEST(test_adds) { ck_assert_int_eq(1 + 1, 2); }
END_TEST

START_TEST(test_exits_early)
{
    leave();
    ck_assert_int_eq(2 + 2, 4);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("own");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_adds);
    tcase_add_test(tc, test_exits_early);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
`

// runFrameworkProject runs the CMake project's tests through the test
// plan, with env added.
func runFrameworkProject(t *testing.T, dir string, env map[string]string) *Result {
	t.Helper()
	steps, err := toolchain.TestPlan(toolchain.CMake, dir, toolchain.Options{Env: env})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard,
		ProjectDir: dir, Timeout: 3 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCatch2ProgramHeldToItsSummary: a Catch2 program that exits 0 in a
// case prints nothing and CTest passes it; triage knows the program is
// Catch2's from its ELF file, calls it cut short, and names the case by
// rerunning it alone with Catch2's XML reporter.
func TestCatch2ProgramHeldToItsSummary(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "c++")
	if _, err := os.Stat("/usr/include/catch2/catch.hpp"); err != nil {
		t.Skipf("Catch2 v2: %v (scripts/install-deps.sh installs catch2)", err)
	}
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(c2 CXX)\nfind_package(Catch2 REQUIRED)\nenable_testing()\n" +
			"add_executable(test_c2 tests.cpp)\ntarget_link_libraries(test_c2 PRIVATE Catch2::Catch2WithMain)\nadd_test(NAME test_c2 COMMAND test_c2)\n",
		"tests.cpp": catch2Tests,
	})
	if res := runFrameworkProject(t, dir, nil); res.Status != Succeeded {
		t.Fatalf("pristine: %s %q, want a pass", res.Status, res.Line)
	}
	res := runFrameworkProject(t, dir, map[string]string{"EXIT_EARLY": "1"})
	t.Logf("verdict: %s", res.Line)
	for _, want := range []string{"test_c2", "exit 0 before Catch2's summary", "while running exits early (tests.cpp:6;"} {
		if res.Status != Failed || !strings.Contains(res.Line, want) {
			t.Errorf("exit(0) in a case: %s %q, want failed with %q", res.Status, res.Line, want)
		}
	}
}

// TestCheckProgramExitNamed: a Check program cut short by exit(0) in a
// test is rerun alone under gdb, stopped at its exit: the stack names the
// test and the function that called exit.
func TestCheckProgramExitNamed(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc", "gdb", "pkg-config")
	if _, err := os.Stat("/usr/include/check.h"); err != nil {
		t.Skipf("Check: %v (scripts/install-deps.sh installs check)", err)
	}
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(ck C)\nfind_package(PkgConfig REQUIRED)\n" +
			"pkg_check_modules(CHECK REQUIRED IMPORTED_TARGET check)\nenable_testing()\n" +
			"add_executable(check_own check_own.c)\ntarget_link_libraries(check_own PRIVATE PkgConfig::CHECK)\n" +
			"add_test(NAME check_own COMMAND check_own)\nset_tests_properties(check_own PROPERTIES ENVIRONMENT CK_FORK=no)\n",
		"check_own.c": checkTests,
	})
	if res := runFrameworkProject(t, dir, nil); res.Status != Succeeded {
		t.Fatalf("pristine: %s %q, want a pass", res.Status, res.Line)
	}
	res := runFrameworkProject(t, dir, map[string]string{"EXIT_EARLY": "1"})
	t.Logf("verdict: %s", res.Line)
	for _, want := range []string{"check_own", "while running test_exits_early (exit called in leave at check_own.c:4;", "under gdb"} {
		if res.Status != Failed || !strings.Contains(res.Line, want) {
			t.Errorf("exit(0) in a test: %s %q, want failed with %q", res.Status, res.Line, want)
		}
	}
}
