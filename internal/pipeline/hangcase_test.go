package pipeline

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/testutil"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// caseSpinner is a test file in Catch2's shape: TEST_CASE("name") defines
// a function the framework names only when the case reports a failure;
// its second case calls a library function that never returns.
const caseSpinner = `#include <cstdio>
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
static void (*cases[4])();
static int ncases;
#define TEST_CASE(name) static void CAT(case_, __LINE__)(); \
	static int CAT(reg_, __LINE__) = (cases[ncases++] = CAT(case_, __LINE__), 0); \
	static void CAT(case_, __LINE__)()

volatile unsigned sink;
unsigned spin(unsigned x)
{
    for (;;) sink += x; // SPIN
}

TEST_CASE("adds")
{
    sink = 1 + 1;
}

TEST_CASE("spins forever")
{
    std::puts("ready");
    spin(1);
}

int main()
{
    for (int i = 0; i < ncases; i++) cases[i]();
}
`

// TestTimedOutCTestNamesTheCase: a CTest test whose program hangs in a
// test case its framework never named: the verdict names the case, read
// from the source at the stack's frame in the test file, besides the CTest
// test, and so does the hang report.
func TestTimedOutCTestNamesTheCase(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "c++", "gdb")
	dir := nativeprojects.Write(t, map[string]string{
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(spin CXX)\nenable_testing()\n" +
			"set(CMAKE_BUILD_TYPE Debug)\nadd_executable(test_spin test_spin.cpp)\nadd_test(NAME test_spin COMMAND test_spin)\n",
		"test_spin.cpp": caseSpinner,
	})
	steps, err := toolchain.TestPlan(toolchain.CMake, dir, toolchain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// CTest shows no output of a running test: the limit passes a moment
	// after the test starts, by when it spins.
	started, limit := testutil.NewExpireOn("Start 1: test_spin"), testutil.NewExpireOn("limit")
	go func() {
		<-started.Done()
		time.Sleep(time.Second)
		io.WriteString(limit, "limit")
	}()
	var raw syncBuilder
	res, err := Run(limit, Request{Kind: KindTest, Steps: steps, Level: logfilter.Standard,
		Raw: io.MultiWriter(&raw, started), ProgressInterval: 10 * time.Millisecond, ProjectDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := "in test_spin (spins forever), running at test_spin.cpp:"
	if res.Status != TimedOut || !strings.Contains(res.Line, want) {
		t.Fatalf("%s %q, want TIMED OUT …%q\nraw log:\n%s", res.Status, res.Line, want, tail(raw.String()))
	}
	if res.Hang == nil || len(res.Hang.Stuck) != 1 || res.Hang.Stuck[0].Case != "spins forever" {
		t.Errorf("hang report's stuck %+v, want the case", res.Hang)
	}
	t.Logf("verdict: %s", res.Line)
	// The filter over the raw log names the case too, from the stacks in it.
	fres, err := Analyze(strings.NewReader(raw.String()), AnalyzeOptions{Format: testreport.FormatCTest, Level: logfilter.Standard})
	if err != nil {
		t.Fatal(err)
	}
	if want := "while running spins forever (running at test_spin.cpp:"; !strings.Contains(fres.Line, want) {
		t.Errorf("filter: %q, want …%q", fres.Line, want)
	}
}
