package pipeline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/verdict"
)

// TestProcOfLine: the crashed process a crash line names, and nothing from
// lines that name none.
func TestProcOfLine(t *testing.T) {
	spaced := filepath.Join(t.TempDir(), "my dir", "calc-1f2e")
	os.MkdirAll(filepath.Dir(spaced), 0o755)
	os.WriteFile(spaced, []byte("x"), 0o755)
	for line, want := range map[string]coredump.Proc{
		"  process didn't exit successfully: `/c/target/debug/deps/calc-1f2e` (signal: 6, SIGABRT: process abort signal)":                       {Exe: "/c/target/debug/deps/calc-1f2e"},
		"process didn't exit successfully: `/c/target/debug/deps/calc-1f2e --exact tests::a` (signal: 11, SIGSEGV: invalid memory reference)":   {Exe: "/c/target/debug/deps/calc-1f2e"},
		"process didn't exit successfully: `" + spaced + " --test-threads=1` (signal: 6, SIGABRT: process abort signal)":                        {Exe: spaced},
		"process didn't exit successfully: `/c/target/debug/build/foo-0a1b/build-script-build` (signal: 11, SIGSEGV: invalid memory reference)": {Exe: "/c/target/debug/build/foo-0a1b/build-script-build"},
		"process didn't exit successfully: `/c/target/debug/deps/calc-1f2e` (exit status: 101)":                                                 {},
		"/bin/bash: line 1: 4242 Segmentation fault      (core dumped) ./first":                                                                 {Pid: 4242, Exe: "./first"},
		"bash: line 1: 4243 Segmentation fault      ./first --flag":                                                                             {Pid: 4243, Exe: "./first"},
		"bash: 4244 Aborted (core dumped)  ./a.out":                                                                                             {Pid: 4244, Exe: "./a.out"},
		`../test-driver: line 112: 28854 Segmentation fault      (core dumped) "$@" >> "$log_file" 2>&1`:                                        {Pid: 28854},
		"/bin/bash: line 1: 4245 Segmentation fault      ( ulimit -c 0; ./first )":                                                              {Pid: 4245},
		"Segmentation fault (core dumped)":                                                   {},
		"make: *** [Makefile:6: test] Segmentation fault (core dumped)":                      {},
		"bash: line 1: 4246 Terminated              ./server":                                {},
		"test.c:12: 4247 Segmentation fault looked into":                                     {},
		"process didn't exit successfully: `` (signal: 6, SIGABRT: process abort signal)":    {},
		"process didn't exit successfully: `/c/x (signal: 6, SIGABRT: process abort signal)": {},
		"": {},
	} {
		if got := procOfLine(line); got != want {
			t.Errorf("procOfLine(%q) = %+v, want %+v", line, got, want)
		}
	}
}

// TestFirstProcOf: of a run's crash lines, the earliest that names a
// process; only test-driver lines where a report tells the tests apart.
func TestFirstProcOf(t *testing.T) {
	ins := []verdict.Indicator{
		{Name: "shell: aborted", Crash: true, LineNo: 9, Line: "/bin/bash: line 1: 20 Aborted (core dumped) ./second"},
		{Name: "make: Segmentation fault", Crash: true, LineNo: 3, Line: "make: *** [Makefile:6: test] Segmentation fault (core dumped)"},
		{Name: "shell: segmentation fault", Crash: true, LineNo: 5, Line: "/bin/bash: line 1: 10 Segmentation fault (core dumped) ./first"},
		{Name: "compiler error", LineNo: 1, Line: "bash: line 1: 5 Segmentation fault ./not-a-crash-indicator"},
	}
	if got := firstProcOf(ins, false); got != (coredump.Proc{Pid: 10, Exe: "./first"}) {
		t.Errorf("firstProcOf = %+v, want pid 10 (./first)", got)
	}
	if got := firstProcOf(ins, true); got.Known() {
		t.Errorf("firstProcOf of test-driver lines only = %+v, want nothing", got)
	}
	ins = append(ins, verdict.Indicator{Crash: true, LineNo: 7, Line: `../test-driver: line 112: 30 Segmentation fault (core dumped) "$@" >> "$log_file" 2>&1`})
	if got := firstProcOf(ins, true); got != (coredump.Proc{Pid: 30}) {
		t.Errorf("firstProcOf of test-driver lines = %+v, want pid 30", got)
	}
}

// TestCrashedProcOrder: the crashed test's program, as its runner names
// it, is the crashed process, but for automake, whose test-driver line
// names the pid of a test program that itself died: that pid comes first,
// and the program only when no such line is there (a worker the program
// forked died).
func TestCrashedProcOrder(t *testing.T) {
	driver := verdict.Indicator{Crash: true, LineNo: 7, Line: `../test-driver: line 112: 30 Segmentation fault (core dumped) "$@" >> "$log_file" 2>&1`}
	withLines := StepResult{Outcome: &capture.Outcome{Verdict: verdict.Verdict{Indicators: []verdict.Indicator{driver}}}}
	noLines := StepResult{Outcome: &capture.Outcome{}}
	ctest, automake := &testreport.Report{Format: testreport.FormatCTest}, &testreport.Report{Format: testreport.FormatAutomake}
	for _, tt := range []struct {
		name string
		sr   StepResult
		rep  *testreport.Report
		exe  string
		want coredump.Proc
	}{
		{"ctest's program", withLines, ctest, "/b/forker", coredump.Proc{Exe: "/b/forker"}},
		{"ctest, no program", withLines, ctest, "", coredump.Proc{}},
		{"automake's driver line", withLines, automake, "/b/forker", coredump.Proc{Pid: 30}},
		{"automake, no driver line", noLines, automake, "/b/forker", coredump.Proc{Exe: "/b/forker"}},
		{"automake, nothing", noLines, automake, "", coredump.Proc{}},
		{"no outcome", StepResult{}, automake, "/b/forker", coredump.Proc{Exe: "/b/forker"}},
	} {
		if got := crashedProc(tt.sr, tt.rep, "", tt.exe); got != tt.want {
			t.Errorf("%s: crashedProc = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}
