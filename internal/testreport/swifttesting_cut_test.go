package testreport

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// firstLines returns the first n lines of a shared fixture: a recorded run
// whose output was lost past that point (the transformation the fake swift
// replays too).
func firstLines(t *testing.T, name string, n int) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixtures, "xcodebuild", name))
	if os.IsNotExist(err) {
		t.Skipf("%s absent: the shared fixtures are not checked out next to the repository", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	return string(bytes.Join(lines[:n], nil))
}

// TestSwiftTestingCutShort: a Swift Testing run whose output ends before
// "Test run with N tests …" is never a pass; the tests started and not
// finished are named, in the order they started.
func TestSwiftTestingCutShort(t *testing.T) {
	tests := []struct {
		name       string
		lines      int
		cutTest    string // the first test cut short; "" for the run itself
		how        string
		unfinished int
	}{
		// Cut among the verdicts: 8 tests had passed, 15 had started and
		// not finished.
		{"xcmcp_swift-testing-output.txt", 80, "LocaleUrlTag handles deep paths correctly in default locale", "the output ended", 15},
		// Cut after three issues were recorded: four tests started, none
		// finished (the three with issues fail as well).
		{"xcbeautify_spi_swift_testing_short_log.txt", 13, "analyze_updateRepository_invalidPackageCachePath()", "the output ended", 4},
		// Every test finished, the summary line is lost.
		{"xcbeautify_demo_swift_testing_log.txt", 12, "", "Swift Testing's summary", 0},
		{"xcbeautify_spi_swift_testing_short_log.txt", 17, "", "Swift Testing's summary", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Parse(FormatXCTest, strings.NewReader(firstLines(t, tt.name, tt.lines)))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Status == Passed {
				t.Fatalf("a cut-short run passed: %+v", rep.Totals)
			}
			if len(rep.CutShort) == 0 || rep.CutShort[0].Test != tt.cutTest || !strings.Contains(rep.CutShort[0].How, tt.how) {
				t.Fatalf("cut short = %+v, want first %q (%s)", rep.CutShort, tt.cutTest, tt.how)
			}
			open := 0
			for _, c := range rep.Cases {
				if strings.Contains(c.Message, "the output ended while the test was running") {
					open++
					if c.Status == Passed {
						t.Errorf("%s passed, but never finished", c.Name)
					}
				}
			}
			if open != tt.unfinished {
				t.Errorf("%d tests left unfinished, want %d", open, tt.unfinished)
			}
		})
	}
}
