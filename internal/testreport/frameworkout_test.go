package testreport

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Helpers of the tests of the TAP, GoogleTest, Catch2 and doctest readers
// (tap_test.go, gtest_test.go, catch2_test.go, doctest_test.go), which read
// the real outputs in testdata/frameworks (each directory's README says how
// they were made).

// fwWant is what a test expects of a report read from a recorded output.
type fwWant struct {
	status Status
	totals Totals
	tool   *ToolSummary // Total, Passed, Failed, Skipped and Verdict; nil: no tally printed
	cases  []caseWant   // named cases, in any order
	cut    []CutShort   // How is a substring
	note   string       // a substring of one of the notes
}

// caseWant is one case: Suite "" matches any suite; Message is a substring.
type caseWant struct {
	Suite, Name string
	Status      Status
	File        string
	Line        int
	Message     string
}

func checkFramework(t *testing.T, format, path string, w fwWant) {
	t.Helper()
	rep := parseFile(t, format, path)
	if rep.Format != format {
		t.Errorf("format %q, want %q", rep.Format, format)
	}
	if rep.Status != w.status {
		t.Errorf("status %s, want %s", rep.Status, w.status)
	}
	if rep.Totals != w.totals {
		t.Errorf("totals %+v, want %+v", rep.Totals, w.totals)
	}
	checkToolSummary(t, rep.ToolSummary, w.tool)
	for _, cw := range w.cases {
		checkCase(t, rep, cw)
	}
	if len(rep.CutShort) != len(w.cut) {
		t.Errorf("cut short %+v, want %+v", rep.CutShort, w.cut)
	} else {
		for i, cs := range rep.CutShort {
			if cs.Suite != w.cut[i].Suite || cs.Test != w.cut[i].Test || !strings.Contains(cs.How, w.cut[i].How) {
				t.Errorf("cut short[%d] %+v, want %+v", i, cs, w.cut[i])
			}
		}
	}
	if w.note != "" && !strings.Contains(strings.Join(rep.Notes, "\n"), w.note) {
		t.Errorf("notes %q, want one with %q", rep.Notes, w.note)
	}
}

func checkToolSummary(t *testing.T, got, want *ToolSummary) {
	t.Helper()
	switch {
	case want == nil && got != nil:
		t.Errorf("tool summary %+v, want none", got)
	case want != nil && got == nil:
		t.Errorf("no tool summary, want %+v", want)
	case want != nil && (got.Total != want.Total || got.Passed != want.Passed || got.Failed != want.Failed ||
		got.Skipped != want.Skipped || got.Verdict != want.Verdict):
		t.Errorf("tool summary %d total, %d passed, %d failed, %d skipped, verdict %q; want %d, %d, %d, %d, %q",
			got.Total, got.Passed, got.Failed, got.Skipped, got.Verdict, want.Total, want.Passed, want.Failed, want.Skipped, want.Verdict)
	}
}

func checkCase(t *testing.T, rep *Report, w caseWant) {
	t.Helper()
	for _, c := range rep.Cases {
		if c.Name != w.Name || w.Suite != "" && c.Suite != w.Suite {
			continue
		}
		if c.Status != w.Status || c.File != w.File || c.Line != w.Line || !strings.Contains(c.Message, w.Message) {
			t.Errorf("case %s %s: %s at %s:%d %q; want %s at %s:%d with %q",
				c.Suite, c.Name, c.Status, c.File, c.Line, c.Message, w.Status, w.File, w.Line, w.Message)
		}
		return
	}
	t.Errorf("no case %s %q in %+v", w.Suite, w.Name, rep.Cases)
}

// tally is a ToolSummary of counts (-1: not printed) and a verdict.
func tally(total, passed, failed, skipped int, verdict string) *ToolSummary {
	return &ToolSummary{Total: total, Passed: passed, Failed: failed, Skipped: skipped, Verdict: verdict}
}

// TestDetectFormatUnchanged: the readers of TAP, GoogleTest, Catch2 and
// doctest take no log another format took before them (each existing
// testdata file detects as it did), and each of their recorded outputs
// is detected as its own.
func TestDetectFormatUnchanged(t *testing.T) {
	// By path prefix under testdata, as DetectFormat named them before these readers.
	before := []struct{ prefix, ext, format string }{
		{"gotext/", ".txt", FormatGoText},
		{"gotext/", ".json", FormatGoJSON},
		{"meson/", ".txt", FormatMeson},
		{"meson/", ".json", ""}, // meson's testlog.json, read by its own reader
		{"go-test-json", ".log", FormatGoJSON},
		{"cargo-test-compile-error", ".log", ""},
		{"cargo-", ".log", FormatCargo},
		{"ctest-junit", ".xml", FormatJUnit},
		{"ctest-", ".log", FormatCTest},
		{"automake-", ".log", FormatAutomake},
		{"make-test-compile-error", ".log", ""},
		{"frameworks/gtest/", ".log", FormatGTest},
		{"frameworks/catch2/", ".log", FormatCatch2},
		{"frameworks/doctest/", ".log", FormatDoctest},
		{"frameworks/tap/", ".log", FormatTAP},
	}
	seen := map[string]int{}
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(path, "testdata"+string(filepath.Separator)))
		for _, b := range before {
			if !strings.HasPrefix(rel, b.prefix) || filepath.Ext(rel) != b.ext {
				continue
			}
			seen[b.prefix+b.ext]++
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if got := DetectFormat(data[:min(len(data), sniffSize)]); got != b.format {
				t.Errorf("%s: detected %q, want %q", rel, got, b.format)
			}
			break
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range before {
		if seen[b.prefix+b.ext] == 0 {
			t.Errorf("no testdata file %s*%s", b.prefix, b.ext)
		}
	}
}

// TestFrameworkWatchDirect: under CTest, a doctest, Catch2 v2 or TAP
// program that exits 0 before its end is caught; one that finished is not.
func TestFrameworkWatchDirect(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{"doctest finished", "[doctest] doctest version is \"2.4.9\"\n[doctest] run with \"--help\" for options\n" +
			"===============================================================================\n" +
			"[doctest] test cases: 2 | 2 passed | 0 failed | 7 skipped\n[doctest] Status: SUCCESS!\n", ""},
		{"doctest cut short", "[doctest] doctest version is \"2.4.9\"\n[doctest] run with \"--help\" for options\n", "doctest"},
		{"catch2 v2 cut short after a failure", "\n~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n" +
			"t2 is a Catch v2.13.10 host application.\nRun with -? for options\n\ntests.cpp:15: FAILED:\n", "Catch2"},
		{"catch2 v3 no test matched", "Randomness seeded to: 1\nNo test cases matched '\"x\"'\n===\nNo tests ran\n", ""},
		{"tap plan first finished", "1..2\nok 1 - a\nok 2 - b\n", ""},
		{"tap plan first, nothing after it", "1..2\n", "TAP"},
		{"tap plan last finished", "ok 1 - a\nok 2 - b\n1..2\n", ""},
		{"tap plan last cut short", "ok 1 - a\nok 2 - b\n", "TAP"},
		{"tap skip all", "1..0 # SKIP no database\n", ""},
	}
	for _, tt := range tests {
		w := &frameworkWatch{}
		w.Write([]byte(tt.out))
		if got := w.cutShort(); got != tt.want {
			t.Errorf("%s: cutShort = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCrashEvidence: the lines a shell, make, a sanitizer or the C++
// runtime print when a program dies, and lines that only look like them.
func TestCrashEvidence(t *testing.T) {
	tests := []struct{ line, want string }{
		{"Segmentation fault", "SIGSEGV (Segmentation fault)"},
		{"Segmentation fault (core dumped)", "SIGSEGV (Segmentation fault)"},
		{"Aborted", "SIGABRT (Aborted)"},
		{"bash: line 1: 4242 Aborted                 (core dumped) ./t", "SIGABRT (Aborted)"},
		{"bash:  2162 Segmentation fault      ./t2 x", "SIGSEGV (Segmentation fault)"},
		{"/bin/sh: 1: Bus error", "SIGBUS (Bus error)"},
		{"make: *** [Makefile:4: test] Error 139", "SIGSEGV (make: exit status 139)"},
		{"make[1]: *** [Makefile:4: test] Segmentation fault", "SIGSEGV (Segmentation fault)"},
		{"==2428==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020", "AddressSanitizer: heap-buffer-overflow"},
		{"terminate called after throwing an instance of 'std::runtime_error'", "uncaught C++ exception: terminate called after throwing an instance of 'std::runtime_error'"},
		{"make: *** [Makefile:4: test] Error 1", ""},
		{"make: *** [Makefile:4: test] Error 2", ""},
		{"Aborted the request after 3 tries", ""},
		{"test: Segmentation fault handler installed", ""},
		{"WARNING: ThreadSanitizer: data race (pid=1)", ""},
		{"ok 1 - Killed process is reaped", ""},
	}
	for _, tt := range tests {
		if got := crashEvidence(tt.line); got != tt.want {
			t.Errorf("crashEvidence(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestFrameworkReadersHostile: malformed and cut input to each reader
// never panics, and never passes without a passed case or with a run cut
// short.
func TestFrameworkReadersHostile(t *testing.T) {
	inputs := []string{
		"",
		"\x00\xff garbage\n",
		strings.Repeat("x", 1<<20),
		"1..99999999999999999999\nok 1\n",
		"ok 99999999999999999999 - big\n1..1\n",
		"1..2\nok 1\n  ---\n  message: 'never closed\n",
		"1..1\nok 1\n  ---\n  error: |-\n",
		"not ok 1 # TODO\n1..1\n",
		"    ok 1 - only a subtest\n",
		"t/x.t .. \nTest Summary Report\n-------------------\nt/x.t (Wstat: 11 (Signal: SEGV) Tests: 0 Failed: 0)\n  Parse errors: Bad plan.  You planned 9 tests but ran 0.\n",
		"Test Summary Report\nt/y.t (Wstat: 11 (Signal: SEGV) Tests: 1 Failed: 0)\n  Parse errors: No plan found in TAP output\n",
		"Files=1, Tests=999999999999999999999,  0 wallclock secs\nResult: PASS\n",
		"[==========] Running 1 test from 1 test suite.\n[ RUN      ] A.B\n[       OK ] C.D (0 ms)\n",
		"[       OK ] A.B (99999999999999999999 ms)\n",
		"[==========] 5 tests from 1 test suite ran. (0 ms total)\n[  PASSED  ] 5 tests.\n",
		"-------------------------------------------------------------------------------\n",
		"-------------------------------------------------------------------------------\nname\n",
		"tests.cpp:1: FAILED:\ndue to a fatal error condition:\n",
		"test cases: 99999999999999999999 | 1 passed\n",
		"All tests passed (1 assertion in 99999999999999999999 test cases)\n",
		"TEST CASE:  x\nx.cpp:1: FATAL ERROR: test case CRASHED: SIGSEGV\n",
		"[doctest] test cases: 1 | 1 passed | 0 failed | 0 skipped\n",
		"[doctest] Status: SUCCESS!\n",
	}
	for _, format := range []string{FormatTAP, FormatGTest, FormatCatch2, FormatDoctest} {
		for _, in := range inputs {
			name := format + "/" + in
			t.Run(name[:min(len(name), 60)], func(t *testing.T) {
				rep, err := Parse(format, strings.NewReader(in))
				if err != nil {
					return
				}
				if rep.Status == Passed && (rep.Totals.Passed == 0 || len(rep.CutShort) > 0) {
					t.Errorf("passed with %d passed cases, cut short %+v", rep.Totals.Passed, rep.CutShort)
				}
			})
		}
	}
}

// FuzzFrameworkParse: the TAP, GoogleTest, Catch2 and doctest readers turn
// any input into a report that claims no pass it did not see, with its
// totals the cases' and everything it keeps bounded (fuzz_test.go's
// checkReport).
func FuzzFrameworkParse(f *testing.F) {
	formats := []string{FormatTAP, FormatGTest, FormatCatch2, FormatDoctest}
	for i, fw := range []string{"tap", "gtest", "catch2", "doctest"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "frameworks", fw, "*.log"))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(uint8(i), b[:min(len(b), 16<<10)])
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		rep, err := Parse(formats[int(which)%len(formats)], bytes.NewReader(data))
		if err != nil {
			t.Fatalf("a reader of a bytes.Reader failed: %v", err)
		}
		checkReport(t, rep)
	})
}
