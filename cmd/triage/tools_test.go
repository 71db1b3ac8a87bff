package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestToolsReferenceIsCurrent fails when a tool's arguments or any field of
// what it returns (nested records included) change without docs/TOOLS.md
// changing with them: the public schema moves only on purpose.
func TestToolsReferenceIsCurrent(t *testing.T) {
	want, err := os.ReadFile("../../docs/TOOLS.md")
	if err != nil {
		t.Fatal(err)
	}
	var got, stderr bytes.Buffer
	if err := cmdTools(context.Background(), []string{"--markdown", "--all"}, &got, &stderr); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if got.String() == string(want) {
		return
	}
	g, w := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		gl, wl := line(g, i), line(w, i)
		if gl != wl {
			t.Fatalf("docs/TOOLS.md is not what the tools say (run make docs and commit it); first difference at line %d:\n docs: %q\ntools: %q", i+1, wl, gl)
		}
	}
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end of file)"
}
