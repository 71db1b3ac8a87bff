package logfilter

import (
	"os"
	"testing"
)

// TestRustcErrorLocation: rustc prints an error's location on the line after
// it ("  --> src/lib.rs:485:29"); the diagnostic carries it, as a gcc or Go
// error's carries the location on its own line. Recorded logs of real
// cargo builds and test runs (a warning's location is read the same way).
func TestRustcErrorLocation(t *testing.T) {
	tests := []struct {
		log       string
		file      string
		line, col int
		message   string
		warnings  bool // the log has warnings with locations of their own
	}{
		{"testdata/cargo-build.log", "src/lib.rs", 3, 13, "error[E0425]: cannot find value `missing_value` in this scope", false},
		{"../testreport/testdata/cargo-test-compile-error-lib.log", "src/lib.rs", 485, 29, "error[E0308]: mismatched types", true},
		{"../testreport/testdata/cargo-test-compile-error-test.log", "tests/test_version_req.rs", 47, 29, "error[E0308]: mismatched types", true},
	}
	for _, tt := range tests {
		raw, err := os.ReadFile(tt.log)
		if err != nil {
			t.Fatal(err)
		}
		f := New(Minimal, discard{})
		f.Write(raw)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		var first *Diagnostic
		sawWarning := false
		for i, d := range f.Summary().Diagnostics {
			switch {
			case d.Kind == KindError && first == nil:
				first = &f.Summary().Diagnostics[i]
			case d.Kind == KindWarning && d.File != "" && d.Line > 0:
				sawWarning = true
			}
		}
		if first == nil {
			t.Fatalf("%s: no error diagnostic", tt.log)
		}
		if first.File != tt.file || first.Line != tt.line || first.Col != tt.col || first.Message != tt.message {
			t.Errorf("%s: first error %s:%d:%d: %q, want %s:%d:%d: %q", tt.log, first.File, first.Line, first.Col, first.Message, tt.file, tt.line, tt.col, tt.message)
		}
		if sawWarning != tt.warnings {
			t.Errorf("%s: warnings with a location: %v, want %v", tt.log, sawWarning, tt.warnings)
		}
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
