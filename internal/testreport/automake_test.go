package testreport

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The make check log shows the test-driver shell's signal line before the
// test's FAIL line: the test crashed. Its own log is beside it, in the
// directory make entered.
func TestAutomakeCheckLog(t *testing.T) {
	b, err := os.ReadFile("testdata/automake-check-segv.log")
	if err != nil {
		t.Fatal(err)
	}
	if got := DetectFormat(b); got != FormatAutomake {
		t.Errorf("DetectFormat = %q, want %q", got, FormatAutomake)
	}
	rep := parseFile(t, FormatAutomake, "testdata/automake-check-segv.log")
	if rep.Status != Crashed || rep.Totals.Total != 2 || rep.Totals.Passed != 1 || rep.Totals.Crashed != 1 {
		t.Errorf("status %s, totals %+v; want crashed, 2 total, 1 passed, 1 crashed", rep.Status, rep.Totals)
	}
	fs := rep.Failures()
	if len(fs) != 1 || fs[0].Name != "test-version" || !strings.Contains(fs[0].Message, "Segmentation fault") {
		t.Fatalf("failures %+v, want test-version with the driver's signal line", fs)
	}
	if fs[0].LogFile != "/src/yaml/tests/test-version.log" {
		t.Errorf("LogFile %q, want /src/yaml/tests/test-version.log", fs[0].LogFile)
	}
	if rep.CountMismatch || rep.CutShort != nil || rep.ToolSummary == nil || rep.ToolSummary.Total != 2 {
		t.Errorf("summary %+v, mismatch %v, cut short %v", rep.ToolSummary, rep.CountMismatch, rep.CutShort)
	}
}

func TestAutomakeStatusesAndCutShort(t *testing.T) {
	log := "PASS: a\nXFAIL: b\nXPASS: c\nSKIP: d\nERROR: e\nFAIL: f.test\n"
	rep, err := Parse(FormatAutomake, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Status{"a": Passed, "b": Passed, "c": Failed, "d": Skipped, "e": Errored, "f.test": Failed}
	for _, c := range rep.Cases {
		if want[c.Name] != c.Status {
			t.Errorf("%s: %s, want %s", c.Name, c.Status, want[c.Name])
		}
	}
	if len(rep.Cases) != len(want) {
		t.Errorf("%d cases, want %d", len(rep.Cases), len(want))
	}
	if len(rep.CutShort) != 1 {
		t.Errorf("no summary: CutShort %+v, want the run cut short", rep.CutShort)
	}
}

// A failed test's own log carries what the run's did not: the exit status
// of a signal, a sanitizer report with its frame, an assertion.
func TestReadTestLogs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("abort.log", "abort: abort.c:20: main: Assertion `major == -1' failed.\nFAIL abort (exit status: 134)\n")
	write("asan.log", "=================================================================\n"+
		"==42==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602 at pc 0x7f bp 0x7ff sp 0x7fe\n"+
		"WRITE of size 1 at 0x602 thread T0\n"+
		"    #0 0x7f4 in yaml_get_version /src/yaml/src/api.c:21\n"+
		"    #1 0x55 in main /src/yaml/tests/test-version.c:19\n"+
		"FAIL asan (exit status: 1)\n")
	write("plain.log", "expected 1, got 2\nFAIL plain (exit status: 1)\n")
	// A test script whose program died: the shell said so, the script exited 2.
	write("script.log", "./run-tests: line 12:  4242 Segmentation fault      (core dumped) ./tmp.Ab12\nFAIL script (exit status: 2)\n")
	log := "FAIL: abort\nFAIL: asan\nFAIL: plain\nFAIL: script\nPASS: ok\n# TOTAL: 5\n# PASS:  1\n# FAIL:  4\n"
	rep, err := Parse(FormatAutomake, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	capped, err := Parse(FormatAutomake, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if unread := capped.ReadTestLogs(dir, nil, 1, nil); unread != 3 {
		t.Errorf("4 failed tests, at most 1 log: %d unread, want 3", unread)
	}
	var copied strings.Builder
	if unread := rep.ReadTestLogs(dir, nil, 10, &copied); unread != 0 {
		t.Errorf("%d logs unread", unread)
	}
	checkTestLogs(t, rep)
	// The logs that told more are copied into the run's log: read back
	// alone (triage filter), it says the same.
	if strings.Contains(copied.String(), "expected 1, got 2") {
		t.Errorf("plain's log told nothing more, yet it was copied:\n%s", copied.String())
	}
	again, err := Parse(FormatAutomake, strings.NewReader(log+copied.String()))
	if err != nil {
		t.Fatal(err)
	}
	checkTestLogs(t, again)
	if len(again.Cases) != len(rep.Cases) {
		t.Errorf("read back: %d cases, want %d", len(again.Cases), len(rep.Cases))
	}
}

func checkTestLogs(t *testing.T, rep *Report) {
	t.Helper()
	got := map[string]Case{}
	for _, c := range rep.Cases {
		got[c.Name] = c
	}
	if c := got["abort"]; c.Status != Crashed || !strings.HasPrefix(c.Message, "SIGABRT (exit status 134): abort: abort.c:20") {
		t.Errorf("abort: %s %q", c.Status, c.Message)
	}
	if c := got["asan"]; c.Status != Crashed || c.File != "/src/yaml/src/api.c" || c.Line != 21 || !strings.Contains(c.Message, "AddressSanitizer: heap-buffer-overflow in yaml_get_version at api.c:21") {
		t.Errorf("asan: %s %q at %s:%d", c.Status, c.Message, c.File, c.Line)
	}
	if c := got["plain"]; c.Status != Failed {
		t.Errorf("plain: %s, want failed", c.Status)
	}
	if c := got["script"]; c.Status != Crashed || !strings.HasPrefix(c.Message, "a program the test ran died: SIGSEGV") {
		t.Errorf("script: %s %q, want crashed by the SIGSEGV its shell reported", c.Status, c.Message)
	}
	if rep.Status != Crashed || rep.Totals.Crashed != 3 || rep.Totals.Failed != 1 {
		t.Errorf("status %s totals %+v", rep.Status, rep.Totals)
	}
}
