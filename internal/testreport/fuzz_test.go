package testreport

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: every parser turns any input into a report or a clean error.
// A report never claims a pass it did not see, its totals are the cases'
// and everything it keeps is bounded.
func FuzzParse(f *testing.F) {
	globs := []string{
		filepath.Join(fixtures, "xcodebuild", "*"),
		filepath.Join(fixtures, "junit", "*"),
		"testdata/*",
	}
	for _, g := range globs {
		files, _ := filepath.Glob(g)
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(uint8(0), b[:min(len(b), 16<<10)])
			}
		}
	}
	f.Add(uint8(1), []byte(`{"Action":"run","Package":"p","Test":"T"}`+"\n"+`{"Action":"output","Package":"p","Test":"T","Output":"panic: x\n"}`))
	f.Add(uint8(2), []byte("running 2 tests\ntest a ... ok\ntest b ... FAILED\n\ntest result: FAILED. 1 passed; 1 failed;\n"))
	f.Add(uint8(3), []byte("1/2 Test #1: a ....   Passed 0.1 sec\n2/2 Test #2: b ....***Exception: SegFault 0.0 sec\n50% tests passed, 1 tests failed out of 2\n"))
	f.Add(uint8(4), []byte(`<testsuites><testsuite name="s" tests="1"><testcase name="a"><failure message="m"/></testcase></testsuite></testsuites>`))
	f.Add(uint8(5), []byte("Test Case '-[A b]' started.\n/x.m:3: error: -[A b] : failed\nTest Case '-[A b]' failed (0.1 seconds).\n"))
	f.Add(uint8(5), []byte("\u25c7 Test t() started.\n\u2718 Test t() recorded an issue at a.swift:3:5: Expectation failed\n\u2718 Test run with 1 test failed after 0.1 seconds with 1 issue.\n"))
	formats := []string{"", FormatGoJSON, FormatCargo, FormatCTest, FormatJUnit, FormatXCTest}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		format := formats[int(which)%len(formats)]
		var (
			rep *Report
			err error
		)
		if format == "" {
			rep, err = ParseAuto(bytes.NewReader(data))
		} else {
			rep, err = Parse(format, bytes.NewReader(data))
		}
		if err != nil {
			if rep != nil {
				t.Fatalf("report and error both returned: %v", err)
			}
			if format != "" && !errors.Is(err, ErrUnknownFormat) {
				// Parsers read a bytes.Reader: only JUnit's XML decoder
				// may reject input.
				if format != FormatJUnit {
					t.Fatalf("%s: unexpected error %v", format, err)
				}
			}
			return
		}
		checkReport(t, rep)
	})
}

func checkReport(t *testing.T, rep *Report) {
	t.Helper()
	tot := rep.Totals
	if tot.Total != len(rep.Cases) || tot.Passed+tot.Failed+tot.Skipped+tot.Errored+tot.Crashed != tot.Total {
		t.Fatalf("totals %+v do not add up to %d cases", tot, len(rep.Cases))
	}
	if rep.Status == Passed && (tot.Passed == 0 || tot.Failed+tot.Errored+tot.Crashed > 0 || len(rep.BuildErrors)+len(rep.RunnerErrors) > 0) {
		t.Fatalf("status passed with totals %+v, %d build and %d runner errors", tot, len(rep.BuildErrors), len(rep.RunnerErrors))
	}
	if len(rep.BuildErrors) > maxErrors || len(rep.RunnerErrors) > maxErrors {
		t.Fatalf("error lists not bounded: %d, %d", len(rep.BuildErrors), len(rep.RunnerErrors))
	}
	if rep.ToolSummary != nil && len(rep.ToolSummary.Lines) > maxSumLines {
		t.Fatalf("tool summary lines not bounded: %d", len(rep.ToolSummary.Lines))
	}
	for _, c := range rep.Cases {
		switch c.Status {
		case Passed, Failed, Skipped, Errored, Crashed:
		default:
			t.Fatalf("case %q has status %q", c.Name, c.Status)
		}
		if len(c.Message) > maxMessage+len("…") {
			t.Fatalf("case %q message of %d bytes", c.Name, len(c.Message))
		}
	}
	before := rep.Status
	rep.ApplyExitCode(1)
	if rep.Status == Passed {
		t.Fatalf("exit status 1 left the run %s (was %s)", rep.Status, before)
	}
}
