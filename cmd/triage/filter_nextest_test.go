package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestFilterNextest: `cargo nextest run | triage filter` is judged as a test
// run, detected or named by --toolchain nextest: a crash names its test, a
// log that ends before nextest's summary is never a success.
func TestFilterNextest(t *testing.T) {
	for _, tt := range []struct {
		log     string
		code    int
		verdict string
	}{
		{"pass.txt", exitOK, "TESTS PASSED: 2 passed"},
		{"crash.txt", exitFailure, "CRASHED: test binary SIGSEGV while running demo/tests::walks_list"},
		{"fail.txt", exitFailure, "TIMED OUT (the runner's own limit) in demo::it/waits_long: timed out after 120.004 s; 2 of 5 failed"},
		{"fail-old.txt", exitFailure, "TESTS FAILED: 1 of 2 failed"},
		{"cut.txt", exitFailure, "TESTS FAILED: nextest ended without a result (the output ended before nextest's summary: 2 of 3 tests finished); 2 passed"},
	} {
		for _, args := range [][]string{nil, {"--toolchain", "nextest"}} {
			var stdout bytes.Buffer
			args = append(args, "../../internal/testreport/testdata/nextest/"+tt.log)
			code, err := cmdFilter(args, nil, &stdout, &bytes.Buffer{})
			verdict, _, _ := strings.Cut(stdout.String(), "\n")
			if err != nil || code != tt.code || verdict != tt.verdict {
				t.Errorf("%v: exit %d (%v), verdict %q\nwant exit %d, %q", args, code, err, verdict, tt.code, tt.verdict)
			}
		}
	}
}
