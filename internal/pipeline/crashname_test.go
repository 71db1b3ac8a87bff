package pipeline

import (
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/testreport"
)

// The crashing thread's stack names the test over the log's reading: a
// parallel libtest's "test tests::adds ... " cut from its result by the
// abort of tests::aborts made the log blame adds.
func TestCrashNamedByTheStack(t *testing.T) {
	const log = "     Running unittests src/lib.rs (target/debug/deps/crashy-3a07)\n\nrunning 2 tests\ntest tests::adds ... \n" +
		"error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit successfully: `/p/target/debug/deps/crashy-3a07` (signal: 6, SIGABRT: process abort signal)\n"
	stack := []coredump.Frame{
		{Function: "__pthread_kill_implementation"},
		{Function: "std::sys::pal::unix::abort_internal"},
		{Function: "crashy::give_up", File: "src/lib.rs", Line: 7},
		{Function: "crashy::tests::aborts", File: "src/lib.rs", Line: 14},
		{Function: "core::ops::function::FnOnce::call_once<crashy::tests::aborts::{closure_env#0}, ()>"},
	}
	for _, tc := range []struct{ name, log string }{
		{"misnamed by the log", log},
		{"unnamed by the log", strings.Replace(log, "test tests::adds ... \n", "test tests::adds ... ok\n", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := testreport.Parse(testreport.FormatCargo, strings.NewReader(tc.log))
			if err != nil {
				t.Fatal(err)
			}
			c := crashedTest(rep)
			c.Backtrace = stack
			c.nameFromStack(rep)
			if !strings.HasSuffix(c.Test, "tests::aborts") {
				t.Errorf("crash named %q, want tests::aborts", c.Test)
			}
			if again := crashedTest(rep); again.Test != c.Test {
				t.Errorf("the report's crashed case is %q, the crash's %q", again.Test, c.Test)
			}
		})
	}
}
