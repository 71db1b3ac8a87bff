package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// TestTestRerunOptions: the crashed test alone is rerun, by its program
// as its runner names it (meson: the command, its environment over the
// step's, in the build directory when workdir is null), with its own
// duration for the limit; automake's by its path under the build
// directory; a plain make's by its core's program and command line; a
// test whose program no one names is not rerun, and the reason says so.
func TestTestRerunOptions(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bdir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(bdir, "meson-info"), 0o755); err != nil {
		t.Fatal(err)
	}
	intro := `[{"cmd": ["` + exe + `", "--one"], "env": {"T": "1"}, "name": "crashy", "workdir": null, "suite": ["p"]}]`
	if err := os.WriteFile(filepath.Join(bdir, "meson-info", "intro-tests.json"), []byte(intro), 0o644); err != nil {
		t.Fatal(err)
	}
	step := toolchain.Step{Name: toolchain.StepTest, Argv: []string{"meson", "test", "-C", bdir}, Dir: bdir, Env: map[string]string{"S": "2", "T": "0"},
		Format: testreport.FormatMeson}
	sr := StepResult{Step: step, Ran: true, Outcome: &capture.Outcome{Result: &spawn.Result{Exited: true, ExitCode: 1, Duration: time.Minute}}}
	rep := &testreport.Report{Format: testreport.FormatMeson, Cases: []testreport.Case{
		{Name: "fine", Status: testreport.Passed}, {Name: "crashy", Status: testreport.Crashed, Duration: time.Second}}}
	opts, ran, err := testRerunOptions(context.Background(), sr, rep, &TestCrash{Test: "crashy"})
	if err != nil || !slices.Equal(opts.Argv, []string{exe, "--one"}) || opts.Dir != bdir || opts.Env["T"] != "1" || opts.Env["S"] != "2" || ran != time.Second {
		t.Errorf("meson: %+v ran %s err %v", opts, ran, err)
	}
	if step.Env["T"] != "0" {
		t.Error("the step's environment was changed")
	}

	rep.Cases[1].Name = "unnamed"
	if _, _, err := testRerunOptions(context.Background(), sr, rep, &TestCrash{Test: "unnamed"}); err == nil || !strings.Contains(err.Error(), "does not say which program unnamed ran") {
		t.Errorf("a test no one names: %v", err)
	}

	// automake: TESTS by their path under the build directory.
	am := filepath.Join(bdir, "t_am")
	if err := copyFile(exe, am); err != nil {
		t.Fatal(err)
	}
	sr.Step = toolchain.Step{Name: toolchain.StepTest, Argv: []string{"make", "check"}, Dir: bdir}
	amRep := &testreport.Report{Format: testreport.FormatAutomake, Cases: []testreport.Case{{Name: "t_am", Status: testreport.Crashed}}}
	if opts, ran, err := testRerunOptions(context.Background(), sr, amRep, &TestCrash{Test: "t_am"}); err != nil || !slices.Equal(opts.Argv, []string{am}) || opts.Dir != bdir || ran != time.Minute {
		t.Errorf("automake: %+v ran %s err %v", opts, ran, err)
	}

	// A plain make: the core's program and command line, where make ran.
	c := &TestCrash{Program: "/p/crasher", core: &coredump.CoreInfo{Args: "./crasher --quick 3"}}
	if opts, _, err := testRerunOptions(context.Background(), sr, nil, c); err != nil || !slices.Equal(opts.Argv, []string{"/p/crasher", "--quick", "3"}) || opts.Dir != bdir {
		t.Errorf("make: %+v err %v", opts, err)
	}
	c.core.Args = "./crasher " + strings.Repeat("x", 70) // as long as pr_psargs: perhaps cut
	if _, _, err := testRerunOptions(context.Background(), sr, nil, c); err == nil {
		t.Error("a command line the core may have cut was taken whole")
	}
	if _, _, err := testRerunOptions(context.Background(), sr, nil, &TestCrash{}); err == nil {
		t.Error("a crash without a core was given a program")
	}

	// cargo: the test binary with the test's name and --exact, but never
	// for a crash no test is named by.
	cargo := &testreport.Report{Format: testreport.FormatCargo, Cases: []testreport.Case{{Suite: "unittests src/lib.rs", Name: "tests::boom", Status: testreport.Crashed}}}
	msg := "process didn't exit successfully: `/p/target/debug/deps/memy-1f2e` (signal: 6, SIGABRT: process abort signal)"
	if opts, _, err := testRerunOptions(context.Background(), sr, cargo, &TestCrash{Test: "unittests src/lib.rs/tests::boom", Message: msg}); err != nil ||
		!slices.Equal(opts.Argv, []string{"/p/target/debug/deps/memy-1f2e", "tests::boom", "--exact"}) {
		t.Errorf("cargo: %+v err %v", opts, err)
	}
	cargo.Cases[0].Name = testreport.UnnamedCase
	if _, _, err := testRerunOptions(context.Background(), sr, cargo, &TestCrash{Message: msg}); err == nil || !strings.Contains(err.Error(), "does not name the test") {
		t.Errorf("cargo, unnamed: %v", err)
	}
}

// TestTestCrashFacts: a test's crash is judged by its core and backtrace,
// and by the crash lines of its message, of the run and of its own log
// (automake's, where glibc's words are).
func TestTestCrashFacts(t *testing.T) {
	log := filepath.Join(t.TempDir(), "t.log")
	if err := os.WriteFile(log, []byte(strings.Repeat("noise\n", 20000)+"free(): invalid pointer\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sr := StepResult{Ran: true, Outcome: &capture.Outcome{Result: &spawn.Result{Exited: true, ExitCode: 2}}}
	rep := &testreport.Report{Format: testreport.FormatAutomake, Cases: []testreport.Case{{Name: "t", Status: testreport.Crashed, LogFile: log}}}
	crash := testCrashFacts(sr, rep, &TestCrash{Test: "t", Signal: "SIGSEGV"}, "/p")
	if ok, why := crash.LooksLikeCorruption(); !ok || why != "glibc reported corrupted memory: free(): invalid pointer" {
		t.Errorf("from the test's log: %v %q", ok, why)
	}
	rep.Cases[0].LogFile = ""
	crash = testCrashFacts(sr, rep, &TestCrash{Test: "t", Signal: "SIGSEGV", core: &coredump.CoreInfo{SigCode: "SEGV_MAPERR", FaultAddr: 8, HasFaultAddr: true}}, "/p")
	if ok, _ := crash.LooksLikeCorruption(); ok {
		t.Error("a NULL dereference taken for memory corruption")
	}
	crash.Core.FaultAddr = 0x5a5a5a5a5a62
	if ok, why := crash.LooksLikeCorruption(); !ok || !strings.Contains(why, "wild address 0x5a5a5a5a5a62") {
		t.Errorf("a wild address: %v %q", ok, why)
	}
}

// TestMemcheckCrashOff: no rerun with memcheck off, on a host, or for a
// crash that does not look like corruption.
func TestMemcheckCrashOff(t *testing.T) {
	res := &Result{Kind: KindTest, Crash: &TestCrash{Test: "t", Signal: "SIGABRT", Message: "malloc(): corrupted top size"},
		Steps: []StepResult{{Step: toolchain.Step{Name: toolchain.StepTest}, Ran: true, Outcome: &capture.Outcome{Result: &spawn.Result{Exited: true, ExitCode: 1}}}}}
	res.memcheckCrash(context.Background(), Request{Memcheck: capture.Memcheck{Off: true}})
	if res.Crash.Memcheck != nil {
		t.Errorf("memcheck off reran: %+v", res.Crash.Memcheck)
	}
	// On: the program is not known, and the answer says so.
	res.memcheckCrash(context.Background(), Request{})
	if m := res.Crash.Memcheck; m == nil || m.Result != nil || !strings.Contains(m.Summary(), "memcheck: not rerun: no core of the crashed program names it") {
		t.Errorf("not rerun: %+v", m)
	}
	res.Crash = &TestCrash{Test: "t", Signal: "SIGABRT", Message: "Assertion `x' failed."}
	res.memcheckCrash(context.Background(), Request{})
	if res.Crash.Memcheck != nil {
		t.Errorf("an assertion reran: %+v", res.Crash.Memcheck)
	}
}
