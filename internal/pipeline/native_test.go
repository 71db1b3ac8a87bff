package pipeline

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// TestAnalyzeCargoCrashLog: `cargo test 2>&1 | triage filter` over a real
// crate whose test overflows its stack or aborts is a crash naming what the
// log names, never "BUILD FAILED", and keeps the crash lines.
func TestAnalyzeCargoCrashLog(t *testing.T) {
	nativeprojects.Need(t, "cargo")
	for _, tt := range []struct {
		test, names string
		kept        []string
	}{
		{"overflows", "tests::overflows", []string{"has overflowed its stack", "fatal runtime error: stack overflow", "(signal: 6, SIGABRT"}},
		// libtest prints a test's name only when it finishes: the log names
		// no test, and the verdict says so rather than guess. When the
		// abort comes while libtest writes the other test's result
		// ("test tests::adds ... " with cargo's error after it on the same
		// line), the log reads as a test that started and never ended, as
		// with one test thread, and the verdict names it: the log alone
		// cannot tell the two apart (a run names the test from its core).
		{"aborts", "(unnamed test)|tests::adds", []string{"error: test failed, to rerun pass `--lib`", "(signal: 6, SIGABRT"}},
	} {
		dir := nativeprojects.Write(t, nativeprojects.Cargo(tt.test))
		cmd := exec.Command("cargo", "test")
		cmd.Dir = dir
		raw, _ := cmd.CombinedOutput()
		var filtered strings.Builder
		res, err := Analyze(strings.NewReader(string(raw)), AnalyzeOptions{Level: logfilter.Standard, Filtered: &filtered})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != Crashed || !strings.HasPrefix(res.Line, "CRASHED: test binary SIGABRT while running ") || !slices.ContainsFunc(strings.Split(tt.names, "|"), func(n string) bool { return strings.Contains(res.Line, n) }) {
			t.Errorf("%s: %s %q\n%s", tt.test, res.Status, res.Line, raw)
		}
		for _, k := range tt.kept {
			if !strings.Contains(filtered.String(), k) {
				t.Errorf("%s: the filtered log lost %q:\n%s", tt.test, k, filtered.String())
			}
		}
	}
}
