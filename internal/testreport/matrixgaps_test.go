package testreport

import (
	"strings"
	"testing"
)

// A make check killed mid-test (triage's timeout): the parallel harness
// printed no result, and make deletes the log of the test it was making.
// That test was running; the harness's own test-suite.log is no test.
func TestAutomakeStoppedTest(t *testing.T) {
	log := "make  check-TESTS\n" +
		"make[3]: *** Deleting file 'main.log'\n" +
		"Terminated\n" +
		"make[2]: *** [Makefile:987: check-TESTS] Terminated\n" +
		"make[3]: *** [Makefile:1005: main.log] Error 143\n" +
		"make[2]: *** [Makefile:990: test-suite.log] Error 143\n"
	if got := DetectFormat([]byte(log)); got != FormatAutomake {
		t.Errorf("DetectFormat = %q, want %q", got, FormatAutomake)
	}
	rep, err := Parse(FormatAutomake, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 || rep.Cases[0].Name != "main" || rep.Cases[0].Status != Errored {
		t.Fatalf("cases %+v, want main errored", rep.Cases)
	}
	if len(rep.CutShort) != 1 || rep.CutShort[0].Test != "main" || rep.Status == Passed {
		t.Errorf("cut short %+v, status %s", rep.CutShort, rep.Status)
	}

	// A test whose result came: make's error on its rule adds nothing.
	rep, err = Parse(FormatAutomake, strings.NewReader("FAIL: a\nmake[3]: *** [Makefile:1: a.log] Error 1\n# TOTAL: 1\n# FAIL:  1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Cases) != 1 || rep.CutShort != nil {
		t.Errorf("cases %+v, cut short %+v", rep.Cases, rep.CutShort)
	}
}

func TestRunnerCase(t *testing.T) {
	for _, tt := range []struct {
		fn, caller, module, want string
	}{
		{"test_riemann_attribute_set_fn", "tcase_run_tfun_nofork", "/src/tests/check_libriemann", "test_riemann_attribute_set"},
		{"test_random_bytes", "??", "/lib/x86_64-linux-gnu/libcmocka.so.0", "test_random_bytes"},
		{"test_random_bytes", "_cmocka_run_group_tests", "", "test_random_bytes"},
		{"test_ngtcp2_range_not_after", "", "/lib/x86_64-linux-gnu/libcunit.so.1", "test_ngtcp2_range_not_after"},
		{"test_parse", "UnityDefaultTestRun", "/src/build/test_parse", "test_parse"},
		{"helper", "test_x", "/src/build/t", ""},
		{"??", "_cmocka_run_group_tests", "", ""},
	} {
		got, ok := RunnerCase(tt.fn, tt.caller, tt.module)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("RunnerCase(%q, %q, %q) = %q, %v; want %q", tt.fn, tt.caller, tt.module, got, ok, tt.want)
		}
	}
}

// Check under automake's serial harness, killed by an ASan report before
// it named a test: the report's stack names the case (the function
// Check's runner called) and the fault's frame.
func TestFrameworkDeathBySanitizer(t *testing.T) {
	log := "Running suite(s): Riemann C client library tests\n" +
		"=================================================================\n" +
		"==12144==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000005278 at pc 0x7f17c897f4ea bp 0x7fff672f8c50 sp 0x7fff672f8c48\n" +
		"WRITE of size 1 at 0x602000005278 thread T0\n" +
		"    #0 0x7f17c897f4e9 in riemann_attribute_set_key lib/riemann/attribute.c:50\n" +
		"    #1 0x564caff02c4e in test_riemann_attribute_set_fn tests/check_attributes.c:23\n" +
		"    #2 0x564caff13ce0 in tcase_run_tfun_nofork (/src/tests/check_libriemann+0x1ece0)\n" +
		"    #3 0x564caff14291 in srunner_run_tagged (/src/tests/check_libriemann+0x1f291)\n" +
		"    #4 0x564caff11538 in main tests/check_libriemann.c:36\n" +
		"\n" +
		"SUMMARY: AddressSanitizer: heap-buffer-overflow lib/riemann/attribute.c:50 in riemann_attribute_set_key\n"
	rep, err := Parse(FormatCheck, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	fs := rep.Failures()
	if len(fs) != 1 || fs[0].Name != "test_riemann_attribute_set" || fs[0].Status != Crashed ||
		!strings.Contains(fs[0].Message, "in riemann_attribute_set_key at attribute.c:50") || fs[0].Line != 50 {
		t.Fatalf("failures %+v", fs)
	}

	var s SanitizerSite
	for _, l := range strings.Split(log, "\n") {
		s.Line(l)
	}
	if got, want := s.Site(), "AddressSanitizer: heap-buffer-overflow in riemann_attribute_set_key at attribute.c:50"; got != want {
		t.Errorf("Site() = %q, want %q", got, want)
	}
}

// Boost.Test colours its summary even on a pipe, and CTest's JUnit file
// writes the ESC out: the summary is seen through its colours, and a line
// that only resets the colour is no closing line.
func TestFrameworkWatchColouredSummary(t *testing.T) {
	var w frameworkWatch
	w.Write([]byte("Running 16 test cases...\n\n[NON-XML-CHAR-0x1B][1;32;49m*** No errors detected\n[NON-XML-CHAR-0x1B][0;39;49m\n"))
	if fw := w.cutShort(); fw != "" {
		t.Errorf("cut short by %s: the coloured summary was not seen", fw)
	}
	if string(w.last) != "*** No errors detected" {
		t.Errorf("last line %q", w.last)
	}
}

// A meson test script whose command died of a signal: the shell's line in
// the test's output makes the test crashed, though the script exited 1.
func TestMesonScriptCommandDied(t *testing.T) {
	log := "1/1 Resolve unknown current user FAIL            0.04s   exit status 1\n" +
		">>> MESON_BUILD_ROOT=/b /src/tests/resolve.t\n" +
		"――――――――――――――――――――――――――――――――――――― ✀  ―――――――――――――――――――――――――――――――――――――\n" +
		"stdout:\nnot ok 1 - A passwd entry is returned\n# failed 1 among 1 test(s)\n1..1\n" +
		"stderr:\nSegmentation fault (core dumped)\n" +
		"――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――\n\n" +
		"Ok:                 0\nExpected Fail:      0\nFail:               1\nUnexpected Pass:    0\nSkipped:            0\nTimeout:            0\n"
	rep, err := Parse(FormatMeson, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	fs := rep.Failures()
	if len(fs) != 1 || fs[0].Status != Crashed || !strings.Contains(fs[0].Message, "a program the test ran died") {
		t.Fatalf("failures %+v", fs)
	}
}

// A TAP test file whose program an ASan report killed (an XS module built
// with ASan, `make test` through Test::Harness): the report's frame is the
// crash's place.
func TestTAPDeathBySanitizer(t *testing.T) {
	rep := parseFile(t, FormatTAP, "testdata/tap-xs-asan.log")
	var found bool
	for _, c := range rep.Failures() {
		if c.Name == "t/01level0.t" {
			found = true
			if c.Status != Crashed || !strings.Contains(c.Message, "in XS_Perl__Destruct__Level_get_destruct_level at Level.xs:18") || c.Line != 18 {
				t.Errorf("t/01level0.t: %s %q line %d", c.Status, c.Message, c.Line)
			}
		}
	}
	if !found {
		t.Fatalf("no t/01level0.t among %+v", rep.Failures())
	}
}
