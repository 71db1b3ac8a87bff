package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The CLI's `more:` line is a command a person pastes: run as printed, it
// pages the output the first call stored.
func TestSuggestedCommandRunsAsPrinted(t *testing.T) {
	t.Setenv("TRIAGE_CONFIG", "")
	store := filepath.Join(t.TempDir(), "triage.db")
	cli := func(args ...string) (int, string) {
		var out bytes.Buffer
		code := run(context.Background(), append(args, "--store", store, "--log-level", "error"), strings.NewReader(""), &out, &out)
		return code, out.String()
	}
	code, out := cli("run", "--program", "seq", "--args", "1", "--args", "3000")
	more := regexp.MustCompile(`(?m)^more: triage (output_get .*?) or triage`).FindStringSubmatch(out)
	if code != 0 || more == nil {
		t.Fatalf("run seq: exit %d, no `more: triage output_get …` line:\n%s", code, out)
	}
	args := shellWords(more[1])
	code, page := cli(args...)
	if code != 0 || !strings.Contains(page, "\n1\n2\n3\n") {
		t.Fatalf("triage %s: exit %d:\n%.600s", more[1], code, page)
	}
}
