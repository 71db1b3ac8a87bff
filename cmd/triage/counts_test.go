package main

import (
	"bytes"
	"strings"
	"testing"
)

// Counts of one are singular wherever the filter writes them (issue 45
// saw "1 lines").
func TestFilterCountsOne(t *testing.T) {
	var stdout, stderr bytes.Buffer
	log := "main.c:3:5: error: 'x' undeclared (first use in this function)\n"
	if _, err := cmdFilter([]string{"--toolchain", "gcc"}, strings.NewReader(log), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	want := "log (gcc): 1 line, 1 kept; 1 error, 0 warnings, 0 failures, 0 crash lines\n"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("want %q in\n%s", want, stdout.String())
	}
	if strings.Contains(stdout.String(), " 1 lines") || strings.Contains(stdout.String(), " 1 errors") {
		t.Errorf("a plural of one:\n%s", stdout.String())
	}
}
