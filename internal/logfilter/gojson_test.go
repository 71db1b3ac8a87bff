package logfilter

import (
	"os"
	"strings"
	"testing"
)

// TestGoBuildOutputKept: the compiler lines Go 1.24+ puts in build-output
// events are kept at every level and counted as errors.
func TestGoBuildOutputKept(t *testing.T) {
	raw, err := os.ReadFile("testdata/go-test-json-build-fail.log")
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
		if !strings.Contains(out.String(), "hash/hash.go:6:17: undefined: undefinedThing\n") {
			t.Errorf("%s: the compiler line is missing:\n%s", level, out.String())
		}
		if s := f.Summary(); s.Errors != 1 {
			t.Errorf("%s: %d errors counted, want 1 (%+v)", level, s.Errors, s.Diagnostics)
		}
	}
}
