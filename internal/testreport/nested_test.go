package testreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A test program of each framework, run under each runner: the runner's
// case of the program says what the framework's own reader says of the
// program run directly — the test that failed (by name, and its place),
// a crash the framework caught, the test that was running when the
// program ended early. Each recording in testdata/frameworks is one
// program's real output.
func TestFrameworkInsideRunners(t *testing.T) {
	files, err := filepath.Glob("testdata/frameworks/*/*.log")
	if err != nil || len(files) < 40 {
		t.Fatalf("framework recordings: %d (%v)", len(files), err)
	}
	runners := []struct {
		name string
		run  func(t *testing.T, out []byte, exit int) (*Report, bool)
	}{
		{"ctest-junit", underCTestJUnit},
		{"ctest", underCTestConsole},
		{"automake", underAutomake},
		{"automake-serial", underAutomakeSerial},
		{"meson-testlog", underMesonTestlog},
	}
	checked := 0
	for _, path := range files {
		out, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(filepath.Base(path), "-make") {
			continue // a make run around the program: not one program's output
		}
		direct, err := ParseAuto(bytes.NewReader(out))
		if err != nil || direct.Format == FormatMeson || direct.Format == FormatAutomake {
			continue
		}
		f, _ := firstFailure(direct, false)
		exit := 0
		if f != nil && !strings.Contains(path, "exit0") {
			exit = 1
		}
		for _, r := range runners {
			rep, ok := r.run(t, out, exit)
			if !ok {
				continue
			}
			checked++
			judgeNested(t, r.name+" "+filepath.Base(path), rep, direct, f, exit)
		}
	}
	if checked < 100 {
		t.Errorf("%d runner×recording pairs checked, want the recordings under every runner", checked)
	}
}

// judgeNested compares the runner's one case with what the framework's
// reader said of the program run directly; exit is the program's status.
func judgeNested(t *testing.T, what string, rep, direct *Report, f *Case, exit int) {
	t.Helper()
	if len(rep.Cases) != 1 {
		t.Errorf("%s: %d cases, want the program's one", what, len(rep.Cases))
		return
	}
	c := rep.Cases[0]
	if rep.CountMismatch {
		// The runner's tally counts a program it passed as passed: that
		// its framework says otherwise is no mismatch of counts.
		t.Errorf("%s: count mismatch noted: %v", what, rep.Notes)
	}
	switch {
	case f == nil && len(direct.CutShort) == 0:
		if c.Status != Passed || len(rep.CutShort) > 0 {
			t.Errorf("%s: %s %q (cut short %v), want passed", what, c.Status, c.Message, rep.CutShort)
		}
	case f == nil:
		if c.Status != Errored || len(rep.CutShort) == 0 {
			t.Errorf("%s: %s, cut short %v; want errored, cut short as %v", what, c.Status, rep.CutShort, direct.CutShort)
		}
	default:
		if statusRank(c.Status) < statusRank(f.Status) || c.Status == Passed {
			t.Errorf("%s: %s, want at least %s (the framework's %s)", what, c.Status, f.Status, f.Name)
		}
		if !strings.Contains(c.Message, f.Name) {
			t.Errorf("%s: message %q does not name the framework's test %s", what, c.Message, f.Name)
		}
		if f.File != "" && (c.File != f.File || c.Line != f.Line) {
			t.Errorf("%s: at %s:%d, want %s:%d", what, c.File, c.Line, f.File, f.Line)
		}
		if exit == 0 && len(rep.CutShort) == 0 {
			t.Errorf("%s: ended early in %s, and the report has no cut-short record", what, f.Name)
		}
	}
}

// underCTestJUnit is CTest's JUnit file of the program's run, ESC written
// as CTest writes it.
func underCTestJUnit(t *testing.T, out []byte, exit int) (*Report, bool) {
	status, fail := "run", ""
	if exit != 0 {
		status, fail = "fail", `<failure message="Failed"/>`
	}
	text := strings.ReplaceAll(html.EscapeString(string(out)), "\x1b", ctestNonXMLEscape)
	doc := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="1" failures="%d"><testcase name="prog" classname="prog" status=%q>%s<system-out>%s</system-out></testcase></testsuite>`,
		exit, status, fail, text)
	rep, err := Parse(FormatJUnit, strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return rep, true
}

// underCTestConsole is ctest --output-on-failure's output, which shows a
// failed program's output only.
func underCTestConsole(t *testing.T, out []byte, exit int) (*Report, bool) {
	if exit == 0 {
		return nil, false
	}
	log := "Test project /b\n    Start 1: prog\n1/1 Test #1: prog .............................***Failed    0.01 sec\n" +
		string(out) + "\n0% tests passed, 1 tests failed out of 1\n"
	rep, err := Parse(FormatCTest, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	return rep, true
}

// underAutomake is make check's line for the program, its own log beside.
func underAutomake(t *testing.T, out []byte, exit int) (*Report, bool) {
	word := "PASS"
	if exit != 0 {
		word = "FAIL"
	}
	rep, err := Parse(FormatAutomake, strings.NewReader(word+": prog\n# TOTAL: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	log := fmt.Sprintf("%s%s prog (exit status: %d)\n", out, word, exit)
	rep.ReadTestLogs("/b", func(path string, max int) ([]byte, error) {
		if path != "/b/prog.log" {
			t.Errorf("read %s, want /b/prog.log", path)
		}
		return []byte(log), nil
	}, 10, nil)
	return rep, true
}

// underAutomakeSerial is make check's output under automake's serial
// harness, which prints the program's output before its result line.
func underAutomakeSerial(t *testing.T, out []byte, exit int) (*Report, bool) {
	word, summary := "PASS", "All 1 tests passed"
	if exit != 0 {
		word, summary = "FAIL", "1 of 1 tests failed"
	}
	log := fmt.Sprintf("make --no-print-directory check-TESTS\n%s\n%s: prog\n%s\n", bytes.TrimRight(out, "\n"), word, summary)
	rep, err := Parse(FormatAutomake, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	return rep, true
}

// underMesonTestlog is meson's testlog.json record of the program.
func underMesonTestlog(t *testing.T, out []byte, exit int) (*Report, bool) {
	result := "OK"
	if exit != 0 {
		result = "FAIL"
	}
	rec, err := json.Marshal(map[string]any{"name": "prog", "result": result, "returncode": exit, "duration": 0.01, "stdout": string(out)})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Parse(FormatMesonTestlog, bytes.NewReader(append(rec, '\n')))
	if err != nil {
		t.Fatal(err)
	}
	return rep, true
}

// A long build before the tests (automake's serial harness prints both in
// one stream) does not hide the test program's framework output after it.
func TestFrameworkAfterLongBuild(t *testing.T) {
	out, err := os.ReadFile("testdata/frameworks/check/check-nofork-fail.log")
	if err != nil {
		t.Fatal(err)
	}
	build := strings.Repeat("  CC       lib/riemann/attribute.lo\n", 4000) // 144 kB
	log := build + string(out) + "FAIL: tests/check_libriemann\n1 of 1 tests failed\n"
	rep, err := Parse(FormatAutomake, strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	direct, err := Parse(FormatCheck, bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := firstFailure(direct, false)
	if len(rep.Cases) != 1 || f == nil || !strings.Contains(rep.Cases[0].Message, f.Name) {
		t.Fatalf("cases %+v, want the program's case naming Check's %+v", rep.Cases, f)
	}
}
