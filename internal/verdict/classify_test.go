package verdict_test

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
	"github.com/triage-dev/triage/internal/verdict"
)

func TestExitCodeMeaning(t *testing.T) {
	tests := []struct {
		code int
		want string
	}{
		{0, ""},
		{1, "general failure"},
		{64, "EX_USAGE"},
		{65, "EX_DATAERR"},
		{70, "EX_SOFTWARE"},
		{78, "EX_CONFIG"},
		{79, ""},
		{101, "Rust"},
		{124, "timed out"},
		{126, "not executable"},
		{127, "command not found"},
		{128, ""},
		{130, "SIGINT"},
		{134, "SIGABRT"},
		{137, "SIGKILL"},
		{139, "SIGSEGV"},
		{143, "SIGTERM"},
		{200, ""},
		{-1, ""},
		{255, ""},
	}
	for _, tt := range tests {
		got := verdict.ExitCodeMeaning(tt.code)
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("ExitCodeMeaning(%d) = %q, want something with %q", tt.code, got, tt.want)
		}
	}
}

func TestSignalMeaning(t *testing.T) {
	tests := []struct {
		sig   syscall.Signal
		crash verdict.CrashType
		words string
	}{
		{syscall.SIGSEGV, verdict.CrashSegmentationFault, "memory"},
		{syscall.SIGBUS, verdict.CrashBusError, "bus"},
		{syscall.SIGABRT, verdict.CrashAbort, "abort"},
		{syscall.SIGILL, verdict.CrashIllegalInstruction, "illegal"},
		{syscall.SIGTRAP, verdict.CrashIllegalInstruction, "trap"},
		{syscall.SIGFPE, verdict.CrashFPException, "division"},
		{syscall.SIGKILL, verdict.CrashKilled, "OOM"},
		{syscall.SIGTERM, verdict.CrashTerminated, "SIGTERM"},
		{syscall.SIGINT, verdict.CrashInterrupted, "SIGINT"},
		{syscall.SIGPIPE, verdict.CrashTerminated, "pipe"},
		{syscall.SIGSYS, verdict.CrashUnknown, "seccomp"},
		{syscall.Signal(60), verdict.CrashUnknown, "SIG60"},
	}
	for _, tt := range tests {
		if got := verdict.SignalCrashType(tt.sig); got != tt.crash {
			t.Errorf("SignalCrashType(%d) = %s, want %s", tt.sig, got, tt.crash)
		}
		if got := verdict.SignalMeaning(tt.sig); !strings.Contains(got, tt.words) {
			t.Errorf("SignalMeaning(%d) = %q, want %q in it", tt.sig, got, tt.words)
		}
	}
}

// TestClassifyDecisions covers the precedence rules on process outcomes
// that are awkward to produce for real (an OOM kill, a foreign SIGTERM).
func TestClassifyDecisions(t *testing.T) {
	scanOf := func(lines ...string) *verdict.Scanner {
		s := verdict.NewScanner()
		for _, l := range lines {
			s.Feed([]byte(l))
		}
		return s
	}
	sig := func(s syscall.Signal) *spawn.Result {
		return &spawn.Result{Signaled: true, Signal: s, SignalName: spawn.SignalName(s), ExitCode: -1, Argv: []string{"./app"}}
	}
	exit := func(code int) *spawn.Result {
		return &spawn.Result{Exited: true, ExitCode: code, Argv: []string{"./app", "-v"}}
	}
	oom := sig(syscall.SIGKILL)
	oom.OOMKilled = true
	timedOut := sig(syscall.SIGKILL)
	timedOut.TimedOut, timedOut.Timeout, timedOut.Duration = true, 5*time.Second, 5*time.Second+20*time.Millisecond
	cancelled := sig(syscall.SIGTERM)
	cancelled.Cancelled, cancelled.Duration = true, 1500*time.Millisecond
	cored := sig(syscall.SIGSEGV)
	cored.CoreDumped = true

	tests := []struct {
		name   string
		in     verdict.Input
		status verdict.Status
		crash  verdict.CrashType
		line   string
		hint   string // a tool some hint must name
	}{
		{"timeout beats signal", verdict.Input{Result: timedOut}, verdict.StatusTimeout, verdict.CrashTimeout,
			"TIMED OUT after 5s — process group killed", "debug_attach"},
		{"cancel", verdict.Input{Result: cancelled}, verdict.StatusInterrupted, verdict.CrashInterrupted,
			"INTERRUPTED after 1.5s — process group stopped", ""},
		{"foreign SIGTERM", verdict.Input{Result: sig(syscall.SIGTERM)}, verdict.StatusInterrupted, verdict.CrashTerminated, "INTERRUPTED (SIGTERM)", ""},
		{"oom", verdict.Input{Result: oom}, verdict.StatusCrash, verdict.CrashOOMKilled, "CRASHED (SIGKILL, out of memory)", "debug_attach"},
		{"core evidence", verdict.Input{Result: cored, Evidence: []verdict.Evidence{{Kind: "core_dump", Path: "/tmp/core.42"}},
			CrashFrame: &verdict.Frame{Function: "crash_here", File: "/src/segv.c", Line: 5}},
			verdict.StatusCrash, verdict.CrashSegmentationFault, "CRASHED (SIGSEGV) in crash_here at segv.c:5 — core dump captured", "dump_open"},
		{"core not located", verdict.Input{Result: cored}, verdict.StatusCrash, verdict.CrashSegmentationFault,
			"CRASHED (SIGSEGV) — core dumped (not yet located)", "debug_attach"},
		{"evidence of an absent core", verdict.Input{Result: sig(syscall.SIGSEGV), Evidence: []verdict.Evidence{{Kind: "core_dump", Summary: "no core dump: core_pattern pipes to apport"}}},
			verdict.StatusCrash, verdict.CrashSegmentationFault, "CRASHED (SIGSEGV) — invalid memory access", "debug_attach"},
		{"swift trap on linux", verdict.Input{Result: sig(syscall.SIGILL), Scan: scanOf("Fatal error: Index out of range")},
			verdict.StatusCrash, verdict.CrashFatalError, "CRASHED (SIGILL, Swift index out of range)", ""},
		{"sigsegv keeps its type despite a panic line", verdict.Input{Result: sig(syscall.SIGSEGV), Scan: scanOf("panic: x")},
			verdict.StatusCrash, verdict.CrashSegmentationFault, "CRASHED (SIGSEGV) — panic: x", ""},
		{"timeout(1)", verdict.Input{Result: exit(124), Scan: scanOf()}, verdict.StatusTimeout, verdict.CrashTimeout, "TIMED OUT (exit 124 from timeout(1))", ""},
		{"shell 130 is a failure", verdict.Input{Result: exit(130), Scan: scanOf("^C")}, verdict.StatusFailure, verdict.CrashNone, "FAILED (exit 130)", ""},
		{"shell 134", verdict.Input{Result: exit(134), Scan: scanOf("Aborted (core dumped)")}, verdict.StatusCrash, verdict.CrashAbort, "CRASHED (shell: aborted, exit 134)", ""},
		{"exit 0 with runner crash", verdict.Input{Result: exit(0), Scan: scanOf("Restarting after unexpected exit, crash, or test timeout in T.t(); summary")},
			verdict.StatusCrash, verdict.CrashTestRunnerCrash, "CRASHED (exit 0, but output shows: XCTest runner restarted after a crash)", "debug_attach"},
		{"exit 0 with traceback stays success", verdict.Input{Result: exit(0), Scan: scanOf("Traceback (most recent call last):", "ValueError: handled")},
			verdict.StatusSuccess, verdict.CrashNone, "SUCCEEDED (exit 0)", ""},
		{"no scanner, no silence claim", verdict.Input{Result: exit(2)}, verdict.StatusFailure, verdict.CrashNone, "FAILED (exit 2)", ""},
		{"output id", verdict.Input{Result: exit(1), Scan: scanOf(append(slices.Repeat([]string{"cc -c lib.c"}, 11), "main.c:1:1: error: x")...), OutputID: "o7"},
			verdict.StatusFailure, verdict.CrashBuildFailure, "FAILED (exit 1) — main.c:1:1: error: x", "output_search"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := verdict.Classify(tt.in)
			if v.Status != tt.status || v.CrashType != tt.crash {
				t.Errorf("got %s/%s, want %s/%s (%s)", v.Status, v.CrashType, tt.status, tt.crash, v.Line)
			}
			if !strings.HasPrefix(v.Line, tt.line) {
				t.Errorf("line %q, want prefix %q", v.Line, tt.line)
			}
			if tt.hint != "" && !hasHint(v, tt.hint) {
				t.Errorf("no %s hint in %+v", tt.hint, v.Hints)
			}
			if v.OK() != (tt.status == verdict.StatusSuccess) {
				t.Errorf("OK() = %v", v.OK())
			}
		})
	}
	// An output of a few short lines is in the answer whole: no search of
	// it is suggested.
	v := verdict.Classify(verdict.Input{Result: exit(1), Scan: scanOf("main.c:1:1: error: x"), OutputID: "o7"})
	if hasHint(v, "output_search") {
		t.Errorf("a search of a 1-line output suggested: %+v", v.Hints)
	}
}

func TestClassifyHintArgs(t *testing.T) {
	v := verdict.Classify(verdict.Input{
		Result:   &spawn.Result{Signaled: true, Signal: syscall.SIGSEGV, SignalName: "SIGSEGV", ExitCode: -1, Argv: []string{"/bin/app", "--fast"}},
		Evidence: []verdict.Evidence{{Kind: "core_dump", Path: "/cores/core.1"}},
		OutputID: "out-9",
	})
	var tools []string
	for _, h := range v.Hints {
		tools = append(tools, h.Tool)
		switch h.Tool {
		case "dump_open":
			if h.Args["core"] != "/cores/core.1" || h.Args["program"] != "/bin/app" {
				t.Errorf("dump_open args %v", h.Args)
			}
		case "debug_attach":
			if h.Args["core"] != "/cores/core.1" || h.Args["program"] != "/bin/app" || len(h.Args) != 2 {
				t.Errorf("debug_attach args %v: want the core and its program only", h.Args)
			}
		case "output_search":
			if h.Args["output_id"] != "out-9" {
				t.Errorf("output_search args %v", h.Args)
			}
		}
	}
	if strings.Join(tools, ",") != "dump_open,debug_attach,output_search" {
		t.Errorf("hint tools %v", tools)
	}
}

// TestTimeoutThroughProc: a real timeout, end to end.
func TestTimeoutThroughProc(t *testing.T) {
	v := runAndClassify(t, spawn.Spec{Argv: []string{crashers.Build(t, "sleeper"), "600"}, Timeout: 200 * time.Millisecond}, "")
	if v.Status != verdict.StatusTimeout || !strings.HasPrefix(v.Line, "TIMED OUT after 200ms") {
		t.Errorf("got %s: %s", v.Status, v.Line)
	}
}

func TestCancelThroughProc(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	scan := verdict.NewScanner()
	ready := make(chan struct{})
	p, err := spawn.Start(ctx, spawn.Spec{Argv: []string{crashers.Build(t, "sleeper"), "600"}, Combined: scan, Stdout: closeOnWrite(ready)})
	if err != nil {
		t.Fatal(err)
	}
	<-ready
	cancel()
	res, _ := p.Wait()
	v := verdict.Classify(verdict.Input{Result: res, Scan: scan})
	if v.Status != verdict.StatusInterrupted || !strings.HasPrefix(v.Line, "INTERRUPTED after") {
		t.Errorf("got %s: %s", v.Status, v.Line)
	}
}

type closeOnWrite chan struct{}

func (c closeOnWrite) Write(p []byte) (int, error) {
	select {
	case <-c:
	default:
		close(c)
	}
	return len(p), nil
}

func TestPythonTraceback(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed (apt-get install python3)")
	}
	v := runAndClassify(t, spawn.Spec{Argv: []string{python, "-c", "def f():\n    raise ValueError('bad input')\nf()"}}, "out-py")
	if v.Status != verdict.StatusFailure || v.CrashType != verdict.CrashPanic || !hasIndicator(v, "Python traceback") {
		t.Errorf("got %s/%s %v", v.Status, v.CrashType, names(v))
	}
	if want := "FAILED (exit 1) — ValueError: bad input"; v.Line != want {
		t.Errorf("line %q, want %q", v.Line, want)
	}
	v = runAndClassify(t, spawn.Spec{Argv: []string{python, "-X", "faulthandler", "-c", "import ctypes; ctypes.string_at(0)"}}, "")
	if v.Status != verdict.StatusCrash || v.CrashType != verdict.CrashSegmentationFault || !hasIndicator(v, "Python fatal error") {
		t.Errorf("segfaulting python: %s/%s %v: %s", v.Status, v.CrashType, names(v), v.Line)
	}
}

// TestJVMCrash makes a real JVM crash (Unsafe write to address 0) and
// checks the hs_err log is found as evidence.
func TestJVMCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("java not installed (apt-get install default-jdk-headless)")
	}
	dir := t.TempDir()
	src := dir + "/Crash.java"
	code := `public class Crash {
  public static void main(String[] a) throws Exception {
    java.lang.reflect.Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
    f.setAccessible(true);
    ((sun.misc.Unsafe) f.get(null)).putAddress(0, 0);
  }
}
`
	if err := writeFile(src, code); err != nil {
		t.Fatal(err)
	}
	v := runAndClassify(t, spawn.Spec{Argv: []string{java, "-Xshare:auto", "-XX:-CreateCoredumpOnCrash", src}, Dir: dir}, "")
	if v.Status != verdict.StatusCrash || !hasIndicator(v, "JVM fatal error") {
		t.Fatalf("got %s/%s %v: %s", v.Status, v.CrashType, names(v), v.Line)
	}
	t.Log(v.Line)
	if !hasHint(v, "crash_report_show") {
		t.Errorf("no crash_report_show hint for the hs_err log: %+v %+v", v.Evidence, v.Hints)
	}
}

func writeFile(path, s string) error { return os.WriteFile(path, []byte(s), 0o644) }
