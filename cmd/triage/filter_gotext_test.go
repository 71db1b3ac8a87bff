package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

const goTextLogs = "../../internal/testreport/testdata/gotext/"

// TestFilterGoText: `go test ./... | triage filter`, without -json, is
// judged as a test run, detected or named by --toolchain go: a crash names
// the test and the panic's frame, a timeout is not a crash, and -v shows
// syscall.Exit(0) cutting a run short. --toolchain go still reads -json.
func TestFilterGoText(t *testing.T) {
	tests := []struct {
		log     string
		code    int
		verdict string
	}{
		{"pass-v.txt", exitOK, "TESTS PASSED: 7 passed, 1 skipped"},
		{"pass.txt", exitOK, "TESTS PASSED: 2 passed"},
		{"fail.txt", exitFailure, "TESTS FAILED: 3 of 4 failed"},
		{"panic.txt", exitFailure, "CRASHED: test binary SIGSEGV in example.com/gt/nilderef.Get at n.go:6 while running example.com/gt/nilderef/TestNil"},
		{"panic-v.txt", exitFailure, "CRASHED: test binary SIGSEGV in example.com/gt/nilderef.Get at n.go:6 while running example.com/gt/nilderef/TestNil"},
		{"timeout.txt", exitFailure, "TIMED OUT (the runner's own limit) in example.com/gt/timeout/TestHang at t_test.go:11: test timed out after 2s; 1 of 1 failed"},
		{"timeout.json", exitFailure, "TIMED OUT (the runner's own limit) in example.com/gt/timeout/TestHang at t_test.go:11: test timed out after 2s; 1 of 2 failed"},
		{"exit0-v.txt", exitFailure, "TESTS FAILED: the run ended before TestMid finished (example.com/gt/exit0: exit 0); 2 passed"},
		{"exit1.txt", exitFailure, "TESTS FAILED: example.com/gt/exit1 ended without a result (a non-zero exit without the test binary's FAIL line)"},
		{"race.txt", exitFailure, "TESTS FAILED: 1 of 1 failed; data race in example.com/gt/race/TestCount at r.go:12"},
		{"build-fail.txt", exitFailure, "BUILD FAILED: 1 error: buildfail/b.go:4:9: undefined: y; 1 other tests passed"},
	}
	for _, tt := range tests {
		raw, err := os.ReadFile(goTextLogs + tt.log)
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{nil, {"--toolchain", "go"}} {
			var stdout, stderr bytes.Buffer
			code, err := cmdFilter(args, bytes.NewReader(raw), &stdout, &stderr)
			verdict, _, _ := strings.Cut(stdout.String(), "\n")
			if err != nil || code != tt.code || verdict != tt.verdict {
				t.Errorf("%s %v: exit %d (%v), verdict %q\nwant exit %d, %q", tt.log, args, code, err, verdict, tt.code, tt.verdict)
			}
		}
	}
	// --toolchain go-text names the format.
	var stdout bytes.Buffer
	code, err := cmdFilter([]string{"--toolchain", "go-text", goTextLogs + "exit0-v.txt"}, nil, &stdout, &bytes.Buffer{})
	if err != nil || code != exitFailure || !strings.HasPrefix(stdout.String(), "TESTS FAILED: the run ended before TestMid finished") {
		t.Errorf("--toolchain go-text: exit %d (%v)\n%s", code, err, stdout.String())
	}
}
