package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilterBuildLogs: a log with no test activity is judged as a build,
// whatever wrote it: xcodebuild build (which ends in "** BUILD SUCCEEDED **"
// and once read as "NO TESTS RAN"), go build, go build -json, cargo build,
// make. The testdata logs are recorded from real runs.
func TestFilterBuildLogs(t *testing.T) {
	tests := []struct {
		path    string
		code    int
		verdict string
	}{
		{filepath.Join(xcodebuildFixtures, "xcbeautify_clean_build_xcode_15_1.txt"), exitOK, "BUILD SUCCEEDED (2 warnings)"},
		{"testdata/cargo-build.log", exitOK, "BUILD SUCCEEDED (0 warnings)"},
		{"testdata/make-build.log", exitOK, "BUILD SUCCEEDED (0 warnings)"},
		{"testdata/go-build-v.log", exitOK, "BUILD SUCCEEDED (0 warnings)"},
		{"testdata/go-build-fail.log", exitFailure, "BUILD FAILED: 1 error: hash/hash.go:6:17: undefined: undefinedThing"},
		{"testdata/go-build-json-fail.log", exitFailure, "BUILD FAILED: 1 error: hash/hash.go:6:17: undefined: undefinedThing"},
	}
	for _, tt := range tests {
		if _, err := os.Stat(tt.path); err != nil && strings.HasPrefix(tt.path, xcodebuildFixtures) {
			t.Logf("skipping %s: the shared fixtures folder is absent", tt.path)
			continue
		}
		var stdout, stderr bytes.Buffer
		code, err := cmdFilter([]string{tt.path}, nil, &stdout, &stderr)
		verdict, _, _ := strings.Cut(stdout.String(), "\n")
		if err != nil || code != tt.code || verdict != tt.verdict {
			t.Errorf("%s: exit %d %q (err %v), want %d %q", tt.path, code, verdict, err, tt.code, tt.verdict)
		}
	}
}

// TestFilterEmptyLog: an empty log says so and fails, unless the caller
// allowed it.
func TestFilterEmptyLog(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		code    int
		verdict string
	}{
		{nil, exitFailure, "EMPTY LOG: nothing was read, so nothing can be said to have succeeded"},
		{[]string{"--allow-empty"}, exitOK, "EMPTY LOG: nothing was read (an empty log was allowed)"},
	} {
		var stdout bytes.Buffer
		code := run(t.Context(), append([]string{"filter"}, tt.args...), strings.NewReader(""), &stdout, &bytes.Buffer{})
		if verdict, _, _ := strings.Cut(stdout.String(), "\n"); code != tt.code || verdict != tt.verdict {
			t.Errorf("%v: exit %d %q, want %d %q", tt.args, code, verdict, tt.code, tt.verdict)
		}
	}
	// --allow-empty does not excuse a log that has lines.
	code := run(t.Context(), []string{"filter", "--allow-empty"}, strings.NewReader("a.c:3:5: error: expected ';'\n"), &bytes.Buffer{}, &bytes.Buffer{})
	if code != exitFailure {
		t.Errorf("--allow-empty on a failed build: exit %d", code)
	}
}

// TestFilterHelp: asking for help is no mistake: usage on stdout, exit 0.
// A mistake still prints usage on stderr and exits 2.
func TestFilterHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "-help"} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"filter", arg}, strings.NewReader(""), &stdout, &stderr)
		if code != exitOK || !strings.HasPrefix(stdout.String(), "usage: triage filter") || !strings.Contains(stdout.String(), "-allow-empty") || stderr.Len() > 0 {
			t.Errorf("%s: exit %d\nstdout: %s\nstderr: %s", arg, code, stdout.String(), stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	code := run(t.Context(), []string{"filter", "--no-such-flag"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitUsage || stdout.Len() > 0 || !strings.Contains(stderr.String(), "usage: triage filter") {
		t.Errorf("bad flag: exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
}
