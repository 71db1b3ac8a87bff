package verdict_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/verdict"
)

// runAndClassify runs argv through spawn with a Scanner on the combined
// output, as the run workflow does.
func runAndClassify(t *testing.T, spec spawn.Spec, outputID string) verdict.Verdict {
	t.Helper()
	scan := verdict.NewScanner()
	spec.Combined = scan
	if spec.Timeout == 0 {
		spec.Timeout = time.Minute
	}
	res, err := spawn.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	return verdict.Classify(verdict.Input{Result: res, Scan: scan, OutputID: outputID})
}

// TestCrashers runs every crasher and checks the verdict an agent would see.
func TestCrashers(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		status    verdict.Status
		crash     verdict.CrashType
		indicator string // an indicator that must fire ("" = none needed)
		line      string // a fragment of the verdict line
		frame     string // "fn file:line" of the crash frame, when the output shows one
	}{
		{name: "segv", status: verdict.StatusCrash, crash: verdict.CrashSegmentationFault, line: "CRASHED (SIGSEGV)"},
		{name: "abort", status: verdict.StatusCrash, crash: verdict.CrashAbort, line: "CRASHED (SIGABRT)"},
		{name: "fpe", status: verdict.StatusCrash, crash: verdict.CrashFPException, line: "CRASHED (SIGFPE)"},
		{name: "trap", status: verdict.StatusCrash, crash: verdict.CrashIllegalInstruction, line: "CRASHED (SIG"},
		{name: "stackoverflow", status: verdict.StatusCrash, crash: verdict.CrashSegmentationFault, line: "CRASHED (SIGSEGV)"},
		{name: "doublefree", status: verdict.StatusCrash, crash: verdict.CrashAbort, indicator: "glibc heap corruption", line: "double free detected"},
		{name: "assert", status: verdict.StatusCrash, crash: verdict.CrashAbort, indicator: "C assertion failure",
			line: "CRASHED (SIGABRT, C assertion failure) in check at assert.c:4 — ", frame: "check assert.c:4"},
		{name: "stacksmash", status: verdict.StatusCrash, crash: verdict.CrashAbort, indicator: "glibc fatal error", line: "*** stack smashing detected ***"},
		{name: "asan", status: verdict.StatusCrash, crash: verdict.CrashSanitizer, indicator: "AddressSanitizer",
			line: "CRASHED (AddressSanitizer, exit 1) in main at asan.c:5", frame: "main asan.c:5"},
		{name: "ubsan", status: verdict.StatusCrash, crash: verdict.CrashSanitizer, indicator: "UndefinedBehaviorSanitizer",
			line: "signed integer overflow", frame: " ubsan.c:6"},
		// A project's own -fsanitize=undefined goes on after its report:
		// the report, not the exit status, is the verdict.
		{name: "ubsanrecover", status: verdict.StatusCrash, crash: verdict.CrashSanitizer, indicator: "UndefinedBehaviorSanitizer",
			line: "CRASHED (exit 0, but output shows: UndefinedBehaviorSanitizer) in ubsan.c:6 — ", frame: " ubsan.c:6"},
		{name: "leak", status: verdict.StatusCrash, crash: verdict.CrashSanitizer, indicator: "LeakSanitizer", frame: "main leak.c:6"},
		{name: "tsan", status: verdict.StatusCrash, crash: verdict.CrashSanitizer, indicator: "ThreadSanitizer", line: "CRASHED (ThreadSanitizer, exit 66)"},
		{name: "cxxthrow", status: verdict.StatusCrash, crash: verdict.CrashAbort, indicator: "uncaught C++ exception", line: "std::runtime_error"},
		{name: "gopanic", status: verdict.StatusCrash, crash: verdict.CrashPanic, indicator: "Go panic",
			line: "CRASHED (Go panic, exit 2) in main.main at gopanic.go:7 — panic: runtime error: index out of range", frame: "main.main gopanic.go:7"},
		{name: "gonilmap", status: verdict.StatusCrash, crash: verdict.CrashPanic, indicator: "Go panic", line: "assignment to entry in nil map", frame: "main.main gonilmap.go:7"},
		{name: "godeadlock", status: verdict.StatusCrash, crash: verdict.CrashFatalError, indicator: "Go fatal error", line: "all goroutines are asleep", frame: "main.main godeadlock.go:7"},
		{name: "gorace", status: verdict.StatusCrash, crash: verdict.CrashSanitizer, indicator: "Go data race", line: "CRASHED (Go data race, exit 66)", frame: "main.main"}, // either racing access may be reported first,
		{name: "rustpanic", status: verdict.StatusCrash, crash: verdict.CrashPanic, indicator: "Rust panic", line: "CRASHED (Rust panic, exit 101) in rustpanic.rs:4", frame: " rustpanic.rs:4"},
		{name: "buildkill", status: verdict.StatusCrash, crash: verdict.CrashKilled, line: `CRASHED (SIGKILL) — though output claimed "** BUILD SUCCEEDED **"`},
		{name: "exit0panic", status: verdict.StatusCrash, crash: verdict.CrashPanic, indicator: "Go panic", line: "CRASHED (exit 0, but output shows: Go panic)"},
		{name: "exitwith", args: []string{"0"}, status: verdict.StatusSuccess, crash: verdict.CrashNone, line: "SUCCEEDED (exit 0)"},
		{name: "exitwith", args: []string{"3", "config file missing"}, status: verdict.StatusFailure, crash: verdict.CrashNone, line: "FAILED (exit 3) — last line: config file missing"},
		{name: "exitwith", args: []string{"3"}, status: verdict.StatusSilentFailure, crash: verdict.CrashUnknown, line: "FAILED SILENTLY (exit 3, no output)"},
		{name: "exitwith", args: []string{"78"}, status: verdict.StatusSilentFailure, crash: verdict.CrashUnknown, line: "FAILED SILENTLY (exit 78, no output)"},
		{name: "exitwith", args: []string{"139"}, status: verdict.StatusCrash, crash: verdict.CrashSegmentationFault, line: "CRASHED (SIGSEGV, exit 139 from a shell)"},
	}
	for _, tt := range tests {
		t.Run(tt.name+strings.Join(tt.args, "_"), func(t *testing.T) {
			t.Parallel()
			path := crashers.Build(t, tt.name)
			v := runAndClassify(t, spawn.Spec{Argv: append([]string{path}, tt.args...)}, "")
			t.Log(v.Line)
			if v.Status != tt.status || v.CrashType != tt.crash {
				t.Errorf("status %s/%s, want %s/%s; line %q", v.Status, v.CrashType, tt.status, tt.crash, v.Line)
			}
			if !strings.Contains(v.Line, tt.line) {
				t.Errorf("line %q lacks %q", v.Line, tt.line)
			}
			if tt.indicator != "" && !hasIndicator(v, tt.indicator) {
				t.Errorf("indicator %q did not fire; got %+v", tt.indicator, v.Indicators)
			}
			if tt.frame != "" {
				got := "<nil>"
				if f := v.CrashFrame; f != nil {
					got = f.Function + " " + baseName(f.File) + ":" + itoa(f.Line)
				}
				if !strings.HasPrefix(got, strings.TrimSuffix(tt.frame, ":")) && !strings.Contains(got, tt.frame) {
					t.Errorf("crash frame %q, want %q", got, tt.frame)
				}
			}
			if (v.Status == verdict.StatusCrash || v.Status == verdict.StatusSilentFailure) && len(v.Hints) == 0 {
				t.Errorf("no hints for %s", v.Line)
			}
		})
	}
}

func hasIndicator(v verdict.Verdict, name string) bool {
	for _, in := range v.Indicators {
		if in.Name == name {
			return true
		}
	}
	return false
}

func baseName(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestShellSwallowedCrash: a script that runs a crashing program and then
// exits 0 is not a success; both dash's and bash's reports are caught.
func TestShellSwallowedCrash(t *testing.T) {
	segv := crashers.Build(t, "segv")
	for _, shell := range []string{"sh", "bash"} {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(shell); err != nil {
				t.Skipf("%s not installed", shell)
			}
			v := runAndClassify(t, spawn.Spec{Argv: []string{shell, "-c", `"$0"; echo carrying on`, segv}}, "")
			if v.Status != verdict.StatusCrash || v.CrashType != verdict.CrashSegmentationFault ||
				!strings.HasPrefix(v.Line, "CRASHED (exit 0, but output shows: shell: segmentation fault)") {
				t.Errorf("got %s/%s: %s", v.Status, v.CrashType, v.Line)
			}
		})
	}
}
