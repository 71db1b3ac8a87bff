package testreport

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The recordings are real `meson test` runs: testdata/meson/README.
const mesonData = "testdata/meson/"

// mesonConsole reads a recorded console log through ParseAuto, so that the
// format is detected as triage filter detects it.
func mesonConsole(t *testing.T, name string) *Report {
	t.Helper()
	f, err := os.Open(mesonData + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := ParseAuto(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if rep.Format != FormatMeson {
		t.Fatalf("%s: format %q, want %q", name, rep.Format, FormatMeson)
	}
	return rep
}

func mesonTestlog(t *testing.T, name string) *Report {
	t.Helper()
	f, err := os.Open(mesonData + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rep, err := ParseMesonTestlog(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rep
}

// mesonCases maps the cases by name, failing on a name read twice.
func mesonCases(t *testing.T, rep *Report) map[string]Case {
	t.Helper()
	got := map[string]Case{}
	for _, c := range rep.Cases {
		if _, dup := got[c.Name]; dup {
			t.Errorf("%q read twice", c.Name)
		}
		got[c.Name] = c
	}
	return got
}

// A passing run passes on meson's own evidence: every test's OK line and
// the tally. The TAP test's subtest lines under -v are not tests.
func TestMesonPassing(t *testing.T) {
	for _, file := range []string{"pass.txt", "pass-verbose.txt", "pass.json"} {
		t.Run(file, func(t *testing.T) {
			var rep *Report
			if strings.HasSuffix(file, ".json") {
				rep = mesonTestlog(t, file)
			} else {
				rep = mesonConsole(t, file)
				ts := rep.ToolSummary
				if ts == nil || ts.Total != 3 || ts.Passed != 3 || ts.Failed != 0 || ts.Skipped != 0 || ts.Verdict != "" {
					t.Errorf("tool summary %+v, want 3 total, 3 passed, 0 failed", ts)
				}
			}
			if rep.Status != Passed || rep.CutShort != nil || rep.CountMismatch || len(rep.Notes) > 0 {
				t.Errorf("status %s, cut short %+v, mismatch %v, notes %q; want passed", rep.Status, rep.CutShort, rep.CountMismatch, rep.Notes)
			}
			var names []string
			for _, c := range rep.Cases {
				names = append(names, c.Name)
				if c.Status != Passed || c.Suite != FormatMeson {
					t.Errorf("%q: %s in suite %q, want passed in %q", c.Name, c.Status, c.Suite, FormatMeson)
				}
			}
			if want := []string{"alpha", "parse number", "tap"}; !slices.Equal(names, want) {
				t.Errorf("tests %q, want %q", names, want)
			}
		})
	}
}

// mesonDemoWant is what each test of the demo project's runs is (README):
// its status and what its message says of meson's verdict on its exit.
var mesonDemoWant = map[string]struct {
	status Status
	msg    string // the message's first line starts with it
	output string // what the test printed, in the message where the output was shown
}{
	"ok":    {Passed, "", ""},
	"seg":   {Crashed, "killed by signal 11 SIGSEGV", "about to crash"},
	"ab":    {Crashed, "killed by signal 6 SIGABRT", "ab: ../ab.c:2: main: Assertion `x == 1' failed."},
	"fail":  {Failed, "exit status 1", "fail.c:2: check failed: expected 1, got 2"},
	"hang":  {Errored, "timed out after 2.0", ""},
	"skip":  {Skipped, "", ""},
	"xfail": {Passed, "", ""},
	"xpass": {Failed, "unexpected pass", ""},
	"err":   {Errored, "error (exit status 99)", "cannot open fixture data.bin"},
}

// Every status meson has, in each shape of its output and in testlog.json:
// a signal is a crash, a timeout errored, an expected failure a pass; the
// tally is the ToolSummary, and "Summary of Failures:" repeats lines that
// are not read twice.
func TestMesonStatuses(t *testing.T) {
	for _, tc := range []struct {
		file       string
		showOutput bool   // the failed tests' output is in the log
		prefix     string // meson 1.10+ names: the project's
	}{
		{"demo.txt", false, ""},
		{"demo-tty.txt", false, ""},
		{"demo-errorlogs.txt", true, ""},
		{"demo-verbose.txt", true, ""},
		{"demo-verbose-serial.txt", true, ""},
		{"demo-1.12-errorlogs.txt", true, "demo:"},
		{"demo.json", true, ""},
		{"demo-errorlogs.json", true, ""},
		{"demo-verbose-serial.json", true, ""},
		{"demo-1.12-errorlogs.json", true, "demo:"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var rep *Report
			json := strings.HasSuffix(tc.file, ".json")
			if json {
				rep = mesonTestlog(t, tc.file)
			} else {
				rep = mesonConsole(t, tc.file)
			}
			got := mesonCases(t, rep)
			if len(got) != len(mesonDemoWant) {
				t.Errorf("%d tests, want %d", len(got), len(mesonDemoWant))
			}
			for name, want := range mesonDemoWant {
				c, ok := got[tc.prefix+name]
				if !ok {
					t.Errorf("%s%s missing", tc.prefix, name)
					continue
				}
				first, _, _ := strings.Cut(c.Message, "\n")
				if c.Status != want.status || !strings.HasPrefix(first, want.msg) {
					t.Errorf("%s: %s %q, want %s %q…", name, c.Status, c.Message, want.status, want.msg)
				}
				if tc.showOutput && want.output != "" && !strings.Contains(first, want.msg+": "+want.output) {
					t.Errorf("%s: message %q, want %q with the output's %q", name, c.Message, want.msg, want.output)
				}
				if wantSuite := strings.TrimSuffix(tc.prefix, ":"); wantSuite != "" && c.Suite != wantSuite {
					t.Errorf("%s: suite %q, want %q", name, c.Suite, wantSuite)
				}
			}
			if want := (Totals{Total: 9, Passed: 2, Failed: 2, Skipped: 1, Errored: 2, Crashed: 2}); rep.Totals != want {
				t.Errorf("totals %+v, want %+v", rep.Totals, want)
			}
			if rep.Status != Crashed || rep.CutShort != nil || rep.CountMismatch {
				t.Errorf("status %s, cut short %+v, mismatch %v (notes %q)", rep.Status, rep.CutShort, rep.CountMismatch, rep.Notes)
			}
			if json {
				if rep.ToolSummary != nil {
					t.Errorf("testlog.json has no tally, yet ToolSummary %+v", rep.ToolSummary)
				}
				return
			}
			// Ok 1, Expected Fail 1, Fail 4 (FAIL ×3 and ERROR), Unexpected
			// Pass 1, Skipped 1, Timeout 1.
			ts := rep.ToolSummary
			if ts == nil || ts.Total != 9 || ts.Passed != 2 || ts.Failed != 6 || ts.Skipped != 1 || ts.Verdict != "tests failed" || len(ts.Lines) != 6 {
				t.Errorf("tool summary %+v, want 9 total, 2 passed, 6 failed, 1 skipped, 6 lines", ts)
			}
		})
	}
}

// The console and testlog.json of one run say the same of each test, when
// the console shows the failed tests' output.
func TestMesonConsoleAndTestlogAgree(t *testing.T) {
	for _, run := range []string{"demo-errorlogs", "demo-verbose-serial", "demo-1.12-errorlogs", "asan-errorlogs", "suites", "suites-1.12"} {
		t.Run(run, func(t *testing.T) {
			console, log := mesonConsole(t, run+".txt"), mesonTestlog(t, run+".json")
			want := mesonCases(t, log)
			for _, c := range console.Cases {
				w := want[c.Name]
				if c.Status != w.Status || c.Suite != w.Suite || c.Message != w.Message || c.File != w.File || c.Line != w.Line {
					t.Errorf("%q: console %s %q %q at %s:%d, testlog.json %s %q %q at %s:%d",
						c.Name, c.Status, c.Suite, c.Message, c.File, c.Line, w.Status, w.Suite, w.Message, w.File, w.Line)
				}
			}
			if console.Totals != log.Totals {
				t.Errorf("totals: console %+v, testlog.json %+v", console.Totals, log.Totals)
			}
		})
	}
}

// Suite-qualified names are kept as meson prints them, which is how
// testlog.json names the test too; the suite is the part before the
// test's own name. Meson 1.10 changed the shape, and 1.8 the tally.
func TestMesonSuites(t *testing.T) {
	for _, tc := range []struct {
		file  string
		names map[string]string // name -> suite
		crash string
	}{
		{"suites.txt", map[string]string{"suites:unit / parse": "suites:unit", "suites:unit+slow / crash": "suites:unit+slow",
			"suites:integration / roundtrip": "suites:integration", "suites / plain": "suites", "sub:unit / vendored": "sub:unit"},
			"suites:unit+slow / crash"},
		{"suites-1.12.txt", map[string]string{"unit - suites:parse": "unit", "unit+slow - suites:crash": "unit+slow",
			"integration - suites:roundtrip": "integration", "suites:plain": "suites", "unit - sub:vendored": "unit"},
			"unit+slow - suites:crash"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rep := mesonConsole(t, tc.file)
			got := mesonCases(t, rep)
			for name, suite := range tc.names {
				c, ok := got[name]
				if !ok {
					t.Errorf("%q missing; read %q", name, failedNames(rep))
					continue
				}
				want := Passed
				if name == tc.crash {
					want = Crashed
				}
				if c.Suite != suite || c.Status != want || !strings.HasPrefix(c.Name, c.Suite) {
					t.Errorf("%q: suite %q, %s; want suite %q, %s", name, c.Suite, c.Status, suite, want)
				}
			}
			if len(got) != len(tc.names) || rep.Status != Crashed || rep.CutShort != nil || rep.CountMismatch {
				t.Errorf("%d tests, status %s, cut short %+v, mismatch %v", len(got), rep.Status, rep.CutShort, rep.CountMismatch)
			}
			// 1.12 prints only "Ok:" and "Fail:": what it leaves out is none.
			if ts := rep.ToolSummary; ts == nil || ts.Total != 5 || ts.Passed != 4 || ts.Failed != 1 || ts.Skipped != 0 {
				t.Errorf("tool summary %+v, want 5 total, 4 passed, 1 failed, 0 skipped", ts)
			}
		})
	}
}

// A run that ends before meson's tally was cut short, never a pass, naming
// the test it knows was running: -v's RUNNING line, a terminal's progress
// line; without either, what is known is the count. A tally after fewer
// results than tests (--maxfail) is cut short too.
func TestMesonCutShort(t *testing.T) {
	passing, err := os.ReadFile(mesonData + "pass.txt")
	if err != nil {
		t.Fatal(err)
	}
	// The passing run's log cut after its second result line.
	i := bytes.Index(passing, []byte("2/3 parse number"))
	cutPass := passing[:i+bytes.IndexByte(passing[i:], '\n')+1]
	rep, err := Parse(FormatMeson, bytes.NewReader(cutPass))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Status == Passed || len(rep.CutShort) != 1 || !strings.Contains(rep.CutShort[0].How, "2 of 3 tests reported") || rep.Totals.Passed != 2 {
		t.Errorf("passing run cut after 2 of 3: status %s, cut short %+v, totals %+v", rep.Status, rep.CutShort, rep.Totals)
	}

	for _, tc := range []struct {
		file, test, how string
		cases           int
	}{
		{"demo-killed.txt", "", "the output ended before meson's summary (8 of 9 tests reported)", 8},
		{"demo-verbose-killed.txt", "hang", "the output ended before meson's summary (8 of 9 tests reported)", 9},
		{"demo-tty-killed.txt", "hang", "the output ended before meson's summary (8 of 9 tests reported)", 9},
		{"demo-maxfail.txt", "", "7 of 9 tests reported no result", 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			rep := mesonConsole(t, tc.file)
			if len(rep.CutShort) != 1 || rep.CutShort[0] != (CutShort{Suite: FormatMeson, Test: tc.test, How: tc.how}) {
				t.Errorf("cut short %+v, want test %q, %q", rep.CutShort, tc.test, tc.how)
			}
			if len(rep.Cases) != tc.cases || rep.Status == Passed {
				t.Errorf("%d cases, status %s; want %d, not passed", len(rep.Cases), rep.Status, tc.cases)
			}
			if tc.test != "" {
				c := mesonCases(t, rep)[tc.test]
				if c.Status != Errored || !strings.HasPrefix(c.Message, msgEnded) {
					t.Errorf("%s: %s %q, want errored: meson ended before it finished", tc.test, c.Status, c.Message)
				}
			}
		})
	}

	// Interrupted, meson still prints the interrupted test and its tally:
	// the run is whole, the test errored.
	rep = mesonConsole(t, "demo-interrupt.txt")
	if c := mesonCases(t, rep)["hang"]; c.Status != Errored || c.Message != "interrupted (killed by signal 15 SIGTERM)" {
		t.Errorf("hang: %s %q, want errored, interrupted", c.Status, c.Message)
	}
	if rep.CutShort != nil || rep.CountMismatch || rep.Totals.Total != 9 {
		t.Errorf("interrupted run: cut short %+v, mismatch %v, totals %+v", rep.CutShort, rep.CountMismatch, rep.Totals)
	}
}

// testlog.json: a record cut off is the end of a run cut short, naming the
// test; a run killed between records leaves whole records only, which the
// file cannot tell from a finished run (ParseMesonTestlog's doc).
func TestMesonTestlogCutShort(t *testing.T) {
	rep := mesonTestlog(t, "demo-cut.json")
	if len(rep.CutShort) != 1 || rep.CutShort[0].Test != "skip" || !strings.Contains(rep.CutShort[0].How, "line 5") {
		t.Errorf("cut short %+v, want skip's record, line 5", rep.CutShort)
	}
	if c := mesonCases(t, rep)["skip"]; c.Status != Errored || len(rep.Cases) != 5 || rep.Status == Passed {
		t.Errorf("skip %s, %d cases, status %s; want skip errored among 5", c.Status, len(rep.Cases), rep.Status)
	}

	rep = mesonTestlog(t, "demo-killed.json")
	if len(rep.Cases) != 4 || rep.CutShort != nil || rep.Status != Crashed {
		t.Errorf("killed run's testlog: %d cases, cut short %+v, status %s; want its 4 whole records", len(rep.Cases), rep.CutShort, rep.Status)
	}
	rep = mesonTestlog(t, "demo-interrupt.json")
	if c := mesonCases(t, rep)["hang"]; c.Status != Errored || c.Message != "interrupted (killed by signal 15 SIGTERM)" {
		t.Errorf("hang: %s %q, want errored, interrupted", c.Status, c.Message)
	}
}

// A sanitizer's report in a failed test's output makes it crashed, at the
// report's first frame in the project, whatever exit status it chose.
func TestMesonSanitizer(t *testing.T) {
	for _, rep := range []*Report{mesonConsole(t, "asan-errorlogs.txt"), mesonTestlog(t, "asan-errorlogs.json")} {
		c := mesonCases(t, rep)["overflow"]
		want := "AddressSanitizer: heap-buffer-overflow in fill at overflow.c:2 (exit status 1)"
		if c.Status != Crashed || c.Message != want || c.File != "../overflow.c" || c.Line != 2 {
			t.Errorf("overflow: %s %q at %s:%d, want crashed %q at ../overflow.c:2", c.Status, c.Message, c.File, c.Line, want)
		}
		if rep.Status != Crashed || rep.Totals.Passed != 1 {
			t.Errorf("status %s, totals %+v", rep.Status, rep.Totals)
		}
	}
}

// A compile error in meson's rebuild stops the run before any test: a
// failure, never "no tests".
func TestMesonBuildFailure(t *testing.T) {
	rep := mesonConsole(t, "build-fail.txt")
	if rep.Status != Failed || len(rep.Cases) != 0 || len(rep.BuildErrors) != 1 || !strings.Contains(rep.BuildErrors[0], "‘undeclared’ undeclared") {
		t.Errorf("status %s, %d cases, build errors %q", rep.Status, len(rep.Cases), rep.BuildErrors)
	}
	if len(rep.RunnerErrors) != 1 || rep.RunnerErrors[0] != "Could not rebuild /tmp/meson-rec/brk/build" {
		t.Errorf("runner errors %q", rep.RunnerErrors)
	}
}

// Lines of meson's shapes that the recordings do not hold: a test killed by
// a signal meson did not send, the ambiguous exit status of a shell, an
// ERROR that is a crash (a TAP test's signal), a bad TAP subtest, the ASCII
// scissors, an IGNORED test, a log holding two runs.
func TestMesonLines(t *testing.T) {
	log := strings.Join([]string{
		"1/7 killed  FAIL            0.02s   killed by signal 9 SIGKILL",
		"2/7 shell   FAIL            0.02s   (exit status 139 or signal 11 SIGSEGV)",
		"3/7 term    FAIL            0.02s   (exit status 143 or signal 15 SIGTERM)",
		"4/7 taps    ERROR           0.02s   killed by signal 6 SIGABRT",
		"▶ 5/7 - reads body FAIL",
		"5/7 tapf    FAIL            0.02s   1/2 subtests passed",
		"6/7 ign     IGNORED         0.02s",
		"7/7 out     FAIL            0.02s   exit status 2",
		">>> /b/out",
		"------------------------------------- 8< -------------------------------------",
		"stderr:",
		"out.c:9: assertion failed: n == 3",
		"------------------------------------------------------------------------------",
		"",
		"Ok:                 0",
		"Fail:               6",
		"Ignored:            1",
		"",
		"1/1 again   OK              0.01s",
		"",
		"Ok:                 1",
		"Fail:               0",
	}, "\n")
	rep, err := Parse("mesontest", strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		status Status
		msg    string
	}{
		"killed": {Crashed, "killed by signal 9 SIGKILL"},
		"shell":  {Crashed, "(exit status 139 or signal 11 SIGSEGV)"},
		"term":   {Failed, "(exit status 143 or signal 15 SIGTERM)"},
		"taps":   {Crashed, "killed by signal 6 SIGABRT"},
		"tapf":   {Failed, "1/2 subtests passed: subtest - reads body: FAIL"},
		"ign":    {Skipped, "ignored: its results were not read (run interactively)"},
		"out":    {Failed, "exit status 2: out.c:9: assertion failed: n == 3"},
		"again":  {Passed, ""},
	}
	got := mesonCases(t, rep)
	for name, w := range want {
		if c := got[name]; c.Status != w.status || c.Message != w.msg {
			t.Errorf("%s: %s %q, want %s %q", name, c.Status, c.Message, w.status, w.msg)
		}
	}
	if len(got) != len(want) || rep.CutShort != nil || rep.CountMismatch {
		t.Errorf("%d tests, cut short %+v, mismatch %v (notes %q)", len(got), rep.CutShort, rep.CountMismatch, rep.Notes)
	}
	if ts := rep.ToolSummary; ts == nil || ts.Total != 8 || ts.Failed != 6 || ts.Skipped != 1 || ts.Passed != 1 {
		t.Errorf("tool summary over two runs %+v, want 8 total, 6 failed, 1 skipped, 1 passed", ts)
	}

	// A second run that starts before the first's tally: the first was cut.
	rep, err = Parse(FormatMeson, strings.NewReader("1/2 a OK 0.01s\n1/1 b OK 0.01s\n\nOk: 1\nFail: 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.CutShort) != 1 || !strings.Contains(rep.CutShort[0].How, "1 of 2 tests reported") || rep.Status == Passed {
		t.Errorf("cut short %+v, status %s; want the first run cut short", rep.CutShort, rep.Status)
	}
	// A second run whose only line is a terminal's progress line.
	rep, err = Parse(FormatMeson, strings.NewReader("1/1 a OK 0.01s\n\nOk: 1\nFail: 0\n[1/2] 🌑 b   0/30s\r"))
	if err != nil {
		t.Fatal(err)
	}
	want2 := CutShort{Suite: FormatMeson, Test: "b", How: "the output ended before meson's summary (0 of 2 tests reported)"}
	if len(rep.CutShort) != 1 || rep.CutShort[0] != want2 || rep.Status == Passed {
		t.Errorf("cut short %+v, status %s; want %+v", rep.CutShort, rep.Status, want2)
	}
}

// testlog.json read as a stream: fields in any order, escapes, nested
// values skipped, a line that is no record noted and passed over, a
// returncode of a signal, a stdout far larger than what is kept.
func TestMesonTestlogRecords(t *testing.T) {
	huge := strings.Repeat("x", 3<<20)
	log := strings.Join([]string{
		`{"name": "abrt", "stdout": "a\u00e9\ud83c\udf11\t\"q\"\n", "result": "FAIL", "returncode": -6, "env": {"A": {"b": [1, "}"]}}, "command": ["/b/abrt", "]"], "stderr": "abrt: x.c:3: main: Assertion ` + "`0'" + ` failed.\n"}`,
		`not json at all`,
		`{"result": "FAIL", "returncode": 139, "name": "shell", "duration": 0.5}`,
		`{"name": "big", "stdout": "` + huge + `\nbig.c:7: error: wrong answer\n", "result": "FAIL", "returncode": 1, "duration": 1e-2}`,
		`{"name": "nullcode", "stdout": "", "result": "OK", "returncode": null, "duration": 0.1}`,
		``,
	}, "\n")
	rep, err := ParseMesonTestlog(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	got := mesonCases(t, rep)
	if c := got["abrt"]; c.Status != Crashed || c.Message != "killed by signal 6 SIGABRT: abrt: x.c:3: main: Assertion `0' failed." {
		t.Errorf("abrt: %s %q", c.Status, c.Message)
	}
	if c := got["shell"]; c.Status != Crashed || c.Message != "(exit status 139 or signal 11 SIGSEGV)" || c.Duration.Seconds() != 0.5 {
		t.Errorf("shell: %s %q %v", c.Status, c.Message, c.Duration)
	}
	if c := got["big"]; c.Status != Failed || len(c.Message) > maxMessage+8 || !strings.Contains(c.Message, "big.c:7: error: wrong answer") {
		t.Errorf("big: %s, %d bytes of message %.80q…", c.Status, len(c.Message), c.Message)
	}
	if c := got["nullcode"]; c.Status != Passed {
		t.Errorf("nullcode: %s", c.Status)
	}
	if len(rep.Cases) != 4 || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "line 2") || rep.CutShort != nil {
		t.Errorf("%d cases, notes %q, cut short %+v; want 4 cases and line 2 noted", len(rep.Cases), rep.Notes, rep.CutShort)
	}
}

// Malformed and adversarial input: no panic, no pass without a passed test,
// no pass of a run whose tally did not come.
func TestMesonHostileInput(t *testing.T) {
	inputs := []string{
		"",
		"\x00\xff\xfe garbage \x1b[31m",
		strings.Repeat("x", 1<<20),
		"99999999999999999999999/1 a OK 0.00s\n",
		"1/1 a OK 99999999999999999999999999.99s\n",
		"1/1 a OK 0.01s\n", // no tally
		"1/1 a RUNNING\n――――――――――――― ✀  ―――――――――――――\nOk: 1\nFail: 0\n", // the block never closed
		"Summary of Failures:\n\n1/1 a FAIL 0.01s\n",
		"Ok: 1\nFail: 0\n",
		"[1/1] 🌑 a  0/30s\r",
		"{\"name\": \"a\", \"result\": \"OK\"",
		"{\"name\": \"a\", \"stdout\": \"\\ud800\", \"result\": \"OK\"}\n",
		"{\"name\": \"a\", \"env\": " + strings.Repeat("[", 100000) + "\n",
		"{\"name\": \"a\", \"result\": \"OK\", \"returncode\": 1e999999}\n",
		"{\"a\":\n{\"name\": \"b\", \"result\": \"OK\"}\n",
	}
	for _, in := range inputs {
		name := fmt.Sprintf("%.40q", in)
		t.Run(name, func(t *testing.T) {
			for _, parse := range []func() (*Report, error){
				func() (*Report, error) { return Parse(FormatMeson, strings.NewReader(in)) },
				func() (*Report, error) { return ParseMesonTestlog(strings.NewReader(in)) },
			} {
				rep, err := parse()
				if err != nil {
					continue // a clean error is fine
				}
				if rep.Status == Passed && (rep.Totals.Passed == 0 || (strings.Contains(in, "0.01s") && rep.CutShort == nil && rep.ToolSummary == nil)) {
					t.Errorf("passed: totals %+v, cut short %+v", rep.Totals, rep.CutShort)
				}
			}
		})
	}
}

// DetectFormat finds meson in each recorded shape, and the other runners'
// recordings are detected as they were before meson's reader (a table
// taken from DetectFormat without it).
func TestDetectFormatMesonAndOthers(t *testing.T) {
	paths, _ := filepath.Glob(mesonData + "*.txt")
	if len(paths) < 10 {
		t.Fatalf("%d meson recordings", len(paths))
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := DetectFormat(b); got != FormatMeson {
			t.Errorf("%s: %q, want %q", p, got, FormatMeson)
		}
	}
	before := map[string]string{
		"automake-check-segv.log": FormatAutomake, "cargo-test-compile-error-lib.log": "", "cargo-test-compile-error-test.log": "",
		"cargo-test-exit0-parallel.log": FormatCargo, "cargo-test-exit0-rerun-semver.log": FormatCargo, "cargo-test-exit0-serial.log": FormatCargo,
		"cargo-test-exit3-no-fail-fast.log": FormatCargo, "cargo-test-exit3.log": FormatCargo, "cargo-test-hang-semver.log": FormatCargo,
		"cargo-test-pass.log": FormatCargo, "cargo-test.log": FormatCargo, "ctest-junit.xml": FormatJUnit, "ctest-killed.log": FormatCTest,
		"ctest-pass.log": FormatCTest, "ctest-tsan.log": FormatCTest, "ctest-unity-fail.log": FormatCTest, "ctest.log": FormatCTest,
		"go-test-json-build-fail-lib.log": FormatGoJSON, "go-test-json-build-fail-test.log": FormatGoJSON, "go-test-json-cover.log": FormatGoJSON,
		"go-test-json-exit.log": FormatGoJSON, "go-test-json-goroutine-panic.log": FormatGoJSON, "go-test-json-panic.log": FormatGoJSON,
		"go-test-json-pass.log": FormatGoJSON, "go-test-json-race.log": FormatGoJSON, "go-test-json-syscall-exit0.log": FormatGoJSON,
		"go-test-json-testmain-exit0.log": FormatGoJSON, "go-test-json.log": FormatGoJSON, "make-test-compile-error.log": "",
	}
	for name, want := range before {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := DetectFormat(b[:min(len(b), sniffSize)]); got != want {
			t.Errorf("%s: %q, want %q as before", name, got, want)
		}
	}
	// The shared corpus (xcodebuild, JUnit), when present: never meson.
	shared, _ := filepath.Glob(filepath.Join(fixtures, "*", "*"))
	for _, p := range shared {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if got := DetectFormat(b[:min(len(b), sniffSize)]); got == FormatMeson {
			t.Errorf("%s: detected as meson", p)
		}
	}
	// A CTest line has "N/M" too; it is not meson's.
	if got := DetectFormat([]byte("1/3 Test #1: ok ...............   Passed    0.01 sec\n")); got != FormatCTest {
		t.Errorf("ctest line: %q", got)
	}
}

// A data race report in a failed test's output marks it, at the racy
// access in the project, as CTest's reader does (ThreadSanitizer's report
// of testdata/ctest-tsan.log shown by --print-errorlogs; exit status 66 is
// TSan's).
func TestMesonDataRace(t *testing.T) {
	b, err := os.ReadFile("testdata/ctest-tsan.log")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	report := s[strings.Index(s, "==================\nWARNING"):strings.Index(s, "counter 2")]
	log := "1/1 race FAIL            0.13s   exit status 66\n>>> /b/race\n" +
		"――――――――――――――――――――――――――――――――――――― ✀  ―――――――――――――――――――――――――――――――――――――\nstderr:\n" + report +
		"――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――――\n\nOk: 0\nFail: 1\n"
	rep, err := Parse(FormatMeson, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	c := mesonCases(t, rep)["race"]
	if c.Status != Failed || c.Kind != KindDataRace || c.File != "/tmp/cap/tsan/race.c" || c.Line != 8 ||
		!strings.HasPrefix(c.Message, "ThreadSanitizer: data race (pid=31578) in bump at race.c:8 (exit status 66)") {
		t.Errorf("race: %s %q %q at %s:%d", c.Status, c.Kind, c.Message, c.File, c.Line)
	}
}
