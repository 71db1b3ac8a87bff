package hang_test

import (
	"bufio"
	"os"
	"testing"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/hang"
)

// TestLogStacksNameTheLibtestTest: the stacks a capture wrote into a real
// cargo test log (semver, an endless loop in a library function that
// test_default calls) are read back, and the stuck thread names its test.
func TestLogStacksNameTheLibtestTest(t *testing.T) {
	f, err := os.Open("../testreport/testdata/cargo-test-hang-semver.log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ls hang.LogStacks
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		ls.Line(sc.Text())
	}
	rep := ls.Report()
	if rep == nil || len(rep.Stacks) != 2 {
		t.Fatalf("stacks %+v, want the test binary's two threads", rep)
	}
	want := "in test_default, running at lib.rs:485"
	if got := hang.Phrase(rep.Analyze("")); got != want {
		t.Errorf("phrase %q, want %q", got, want)
	}
}

func TestLogStacksWithoutCapture(t *testing.T) {
	var ls hang.LogStacks
	for _, l := range []string{"running 2 tests", "Thread 1 (Thread 0x1 (LWP 2) \"x\"):", "#0  f () at a.c:1"} {
		ls.Line(l)
	}
	if rep := ls.Report(); rep != nil {
		t.Fatalf("stacks read outside a capture's section: %+v", rep)
	}
}

// TestLibtestName: the test's name comes from the closure libtest calls
// (whole, whatever the thread's name), else from a thread name the kernel
// kept whole; other threads name none.
func TestLibtestName(t *testing.T) {
	frames := func(fns ...string) []coredump.Frame {
		var fs []coredump.Frame
		for _, fn := range fns {
			fs = append(fs, coredump.Frame{Function: fn})
		}
		return fs
	}
	runner := []string{"core::ops::function::FnOnce::call_once<fn() -> core::result::Result<(), alloc::string::String>, ()>",
		"test::__rust_begin_short_backtrace<core::result::Result<(), alloc::string::String>, fn() -> core::result::Result<(), alloc::string::String>>",
		"test::run_test_in_process::{closure#0}"}
	for _, tt := range []struct {
		name string
		st   hang.Stack
		want string
	}{
		{"integration test", hang.Stack{Kind: hang.KindThread, Name: "test_default", Frames: frames(append([]string{
			"core::hint::black_box<bool>", "semver::{impl#2}::default", "test_version_req::test_default",
			"test_version_req::test_default::{closure#0}",
			"core::ops::function::FnOnce::call_once<test_version_req::test_default::{closure_env#0}, ()>"}, runner...)...)}, "test_default"},
		{"unit test, name cut by the kernel", hang.Stack{Kind: hang.KindThread, Name: "tests::a_very_l", Frames: frames(append([]string{
			"mycrate::tests::a_very_long_test_name", "mycrate::tests::a_very_long_test_name::{closure#0}"}, runner...)...)}, "tests::a_very_long_test_name"},
		{"older rustc closure", hang.Stack{Kind: hang.KindThread, Frames: frames(append([]string{
			"mycrate::tests::spins", "mycrate::tests::spins::{{closure}}"}, runner...)...)}, "tests::spins"},
		{"frames without the closure: the thread's name", hang.Stack{Kind: hang.KindThread, Name: "tests::spins", Frames: frames(runner...)}, "tests::spins"},
		{"a name the kernel cut", hang.Stack{Kind: hang.KindThread, Name: "tests::a_very_l", Frames: frames(runner...)}, ""},
		{"not a libtest thread", hang.Stack{Kind: hang.KindThread, Name: "worker", Frames: frames("worker::run", "std::thread::spawn")}, ""},
		{"the main thread", hang.Stack{Kind: hang.KindThread, Name: "test_version_re", Frames: frames("test::run_tests", "test::console::run_tests_console", "test::test_main")}, ""},
		{"a goroutine", hang.Stack{Kind: hang.KindGoroutine, Name: "x", Frames: frames(runner...)}, ""},
	} {
		if got := hang.LibtestName(&tt.st); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
