package logfilter

import (
	"os"
	"strings"
	"testing"
)

// TestDataRaceLines: the lines of a data race report, Go's and
// ThreadSanitizer's, are kept at every level: the report's header, the
// testing package's verdict on the test, the race runtime's tally, and
// the racy access's frame (recorded go test -json -race and ctest runs,
// ../testreport/testdata/README).
func TestDataRaceLines(t *testing.T) {
	for _, tt := range []struct {
		line string
		want Kind
	}{
		{"WARNING: DATA RACE", KindCrash},
		{"    testing.go:1712: race detected during execution of test", KindFailure},
		{"Found 2 data race(s)", KindFailure},
		{"WARNING: ThreadSanitizer: data race (pid=31578)", KindCrash},
		{"SUMMARY: ThreadSanitizer: data race /tmp/cap/tsan/race.c:8 in bump", KindCrash},
	} {
		if got := Classify([]byte(tt.line)); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.line, got, tt.want)
		}
	}
	for _, tt := range []struct {
		log  string
		keep []string
	}{
		{"../testreport/testdata/go-test-json-race.log", []string{"WARNING: DATA RACE", "    testing.go:1712: race detected during execution of test",
			"--- FAIL: TestWithContext", "/tmp/cap/xsync/errgroup/errgroup.go:78 +0x44", "--- FAIL: TestGoLimit"}},
		{"../testreport/testdata/ctest-tsan.log", []string{"WARNING: ThreadSanitizer: data race (pid=31578)", "    #0 bump /tmp/cap/tsan/race.c:8 (race+0x11dc)",
			"SUMMARY: ThreadSanitizer: data race /tmp/cap/tsan/race.c:8 in bump"}},
	} {
		raw, err := os.ReadFile(tt.log)
		if err != nil {
			t.Fatal(err)
		}
		for _, level := range []Level{Minimal, Standard, Verbose} {
			var out strings.Builder
			f := New(level, &out)
			f.Write(raw)
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			for _, k := range tt.keep {
				if level == Minimal && strings.HasPrefix(k, "    #") || strings.HasPrefix(k, "/") && level == Minimal {
					continue // a frame is context, kept from Standard up
				}
				if !strings.Contains(out.String(), k) {
					t.Errorf("%s at %s: %q dropped:\n%s", tt.log, level, k, out.String())
				}
			}
		}
	}
}
