package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/logfilter"
)

const xcodebuildFixtures = "../../../shared/fixtures/xcodebuild"

// TestFilterXcodebuildFixtures: for every real xcodebuild log, the standard
// text keeps every error and failure line and is at most 5% of the raw
// bytes, or 8 KB; the exit status follows the verdict.
func TestFilterXcodebuildFixtures(t *testing.T) {
	logs, _ := filepath.Glob(filepath.Join(xcodebuildFixtures, "*"))
	if len(logs) == 0 {
		t.Skipf("no fixtures in %s (the shared fixtures folder is absent)", xcodebuildFixtures)
	}
	for _, path := range logs {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code, err := cmdFilter([]string{path}, nil, &stdout, &stderr)
			if err != nil {
				t.Fatalf("filter: %v (%s)", err, stderr.String())
			}
			out := stdout.String()
			verdict, _, _ := strings.Cut(out, "\n")
			ok := strings.HasPrefix(verdict, "TESTS PASSED") || strings.HasPrefix(verdict, "BUILD SUCCEEDED")
			if (code == exitOK) != ok || (code != exitOK && code != exitFailure) {
				t.Errorf("exit %d for verdict %q", code, verdict)
			}
			if limit := max(len(raw)/20, 8<<10); len(out) > limit {
				t.Errorf("output %d bytes, over %d (raw %d)", len(out), limit, len(raw))
			}
			for _, line := range bytes.Split(raw, []byte("\n")) {
				line = bytes.TrimRight(line, "\r")
				if !logfilter.Classify(line).MustKeep() || len(line) > logfilter.MaxLineBytes || bytes.IndexByte(line, 0x1b) >= 0 {
					continue
				}
				if !strings.Contains(out, string(line)) {
					t.Errorf("error/failure line dropped: %q", line)
				}
			}
		})
	}
}

func TestFilterGoJSONFromStdin(t *testing.T) {
	log := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"output","Package":"p","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"run","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"    b_test.go:7: got 1, want 2\n"}`,
		`{"Action":"output","Package":"p","Test":"TestB","Output":"--- FAIL: TestB (0.00s)\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestB"}`,
		`{"Action":"output","Package":"p","Output":"FAIL\tp\t0.01s\n"}`,
		`{"Action":"fail","Package":"p"}`,
	}, "\n") + "\n"
	tests := []struct {
		args    []string
		code    int
		verdict string
	}{
		{nil, exitFailure, "TESTS FAILED: 1 of 2 failed"},
		{[]string{"--toolchain", "go"}, exitFailure, "TESTS FAILED: 1 of 2 failed"},
		{[]string{"--level", "minimal"}, exitFailure, "TESTS FAILED: 1 of 2 failed"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code, err := cmdFilter(tt.args, strings.NewReader(log), &stdout, &stderr)
		if err != nil || code != tt.code || !strings.HasPrefix(stdout.String(), tt.verdict+"\n") {
			t.Errorf("%v: code %d err %v\n%s", tt.args, code, err, stdout.String())
		}
		if !strings.Contains(stdout.String(), "b_test.go:7") {
			t.Errorf("%v: the failure message is missing:\n%s", tt.args, stdout.String())
		}
	}
	var stdout bytes.Buffer
	code, err := cmdFilter([]string{"--output", "json"}, strings.NewReader(log), &stdout, &bytes.Buffer{})
	var got filterOutput
	if err != nil || code != exitFailure || json.Unmarshal(stdout.Bytes(), &struct {
		Verdict *string `json:"verdict"`
	}{&got.Verdict}) != nil || got.Verdict != "TESTS FAILED: 1 of 2 failed" {
		t.Errorf("json: code %d err %v\n%s", code, err, stdout.String())
	}
}

func TestFilterExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		in   string
		code int
	}{
		{"build ok", nil, "gcc -c a.c\n", exitOK},
		{"compile error", nil, "a.c:3:5: error: expected ';'\n", exitFailure},
		{"linker error", []string{"--toolchain", "make"}, "a.o: undefined reference to `f'\ncollect2: error: ld returned 1 exit status\n", exitFailure},
		{"empty log", nil, "", exitFailure},
		{"unknown toolchain", []string{"--toolchain", "bazel"}, "", exitUsage},
		{"bad level", []string{"--level", "loud"}, "", exitUsage},
		{"two files", []string{"a", "b"}, "", exitUsage},
		{"missing file", []string{"/no/such/log"}, "", exitUsage},
	}
	for _, tt := range tests {
		code := run(t.Context(), append([]string{"filter"}, tt.args...), strings.NewReader(tt.in), &bytes.Buffer{}, &bytes.Buffer{})
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d", tt.name, code, tt.code)
		}
	}
}

// TestFilterFailOnSkip: with --fail-on-skip, a skip that no --allow-skip
// matches fails the run and is named with its reason; every skip is listed
// in the summary either way.
func TestFilterFailOnSkip(t *testing.T) {
	log := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestA"}`,
		`{"Action":"pass","Package":"p","Test":"TestA"}`,
		`{"Action":"run","Package":"p","Test":"TestNeedsTool"}`,
		`{"Action":"output","Package":"p","Test":"TestNeedsTool","Output":"    a_test.go:9: gdb not installed\n"}`,
		`{"Action":"output","Package":"p","Test":"TestNeedsTool","Output":"--- SKIP: TestNeedsTool (0.00s)\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestNeedsTool"}`,
		`{"Action":"run","Package":"p","Test":"TestRealXcode"}`,
		`{"Action":"output","Package":"p","Test":"TestRealXcode","Output":"    x_test.go:3: needs a Mac\n"}`,
		`{"Action":"skip","Package":"p","Test":"TestRealXcode"}`,
		`{"Action":"output","Package":"p","Output":"PASS\n"}`,
		`{"Action":"output","Package":"p","Output":"ok  \tp\t0.01s\n"}`,
		`{"Action":"pass","Package":"p"}`,
	}, "\n") + "\n"
	tests := []struct {
		args    []string
		code    int
		verdict string
	}{
		{nil, exitOK, "TESTS PASSED: 1 passed, 2 skipped"},
		{[]string{"--fail-on-skip"}, exitFailure, "TESTS FAILED: 2 skipped tests not allowed to skip: p/TestNeedsTool (a_test.go:9: gdb not installed), p/TestRealXcode (x_test.go:3: needs a Mac) (1 passed, 2 skipped)"},
		{[]string{"--fail-on-skip", "--allow-skip", "/TestReal"}, exitFailure, "TESTS FAILED: 1 skipped test not allowed to skip: p/TestNeedsTool (a_test.go:9: gdb not installed) (1 passed, 2 skipped)"},
		{[]string{"--fail-on-skip", "--allow-skip", "/TestReal", "--allow-skip", "NeedsTool$"}, exitOK, "TESTS PASSED: 1 passed, 2 skipped"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code, err := cmdFilter(tt.args, strings.NewReader(log), &stdout, &stderr)
		if err != nil || code != tt.code || !strings.HasPrefix(stdout.String(), tt.verdict+"\n") {
			t.Errorf("%v: code %d err %v\n%s", tt.args, code, err, stdout.String())
		}
		if !strings.Contains(stdout.String(), "skipped: p TestNeedsTool (a_test.go:9: gdb not installed)") {
			t.Errorf("%v: the summary does not name the skipped test:\n%s", tt.args, stdout.String())
		}
	}
	if _, err := cmdFilter([]string{"--allow-skip", "x"}, strings.NewReader(log), &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("--allow-skip without --fail-on-skip was accepted")
	}
	if _, err := cmdFilter([]string{"--fail-on-skip", "--allow-skip", "("}, strings.NewReader(log), &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("an invalid --allow-skip expression was accepted")
	}
}
