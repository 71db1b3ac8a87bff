package coredump

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseReport: any input gives a report or one of the package's errors,
// never a panic. Seeds are the fixtures and the legacy sample.
func FuzzParseReport(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(crashReportsDir, "*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(legacyTextBody))
	f.Add([]byte(`{"bug_type":"309"}` + "\n" + `{"threads":[{"frames":[{"imageIndex":-1}]}],"faultingThread":9}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseReport(bytes.NewReader(data))
		if err != nil {
			for _, known := range []error{ErrUnrecognizedFormat, ErrEmpty, ErrTruncated, ErrCorrupt, ErrNotCrashReport, ErrTooLarge} {
				if errors.Is(err, known) {
					return
				}
			}
			t.Fatalf("error outside the package's sentinels: %v", err)
		}
		_ = r.Summary()
	})
}

// FuzzParseBacktrace: debugger output parsers never panic.
func FuzzParseBacktrace(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, out string) {
		for _, parse := range []func(string) (*Trace, error){ParseGDBBacktrace, ParseLLDBBacktrace} {
			tr, err := parse(out)
			if err != nil && !errors.Is(err, ErrNoFrames) {
				t.Fatalf("unexpected error %v", err)
			}
			if err == nil {
				_ = tr.Summary()
			}
		}
	})
}
