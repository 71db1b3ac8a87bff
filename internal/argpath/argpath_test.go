package argpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, cwd, project, want string
	}{
		{"/abs/app", "/c", "/p", "/abs/app"},
		{"./app", "", "/p", "/p/app"},
		{"./app", "/c", "/p", "/c/app"},
		{"bin/app", "build", "/p", "/p/build/bin/app"},
		{"../app", "", "/p/sub", "/p/app"},
		{"./app", "", "", filepath.Join(wd, "app")},
		{"core", "", "rel", filepath.Join(wd, "rel", "core")},
		{"", "/c", "/p", ""},
	}
	for _, tt := range tests {
		if got := Resolve(tt.path, tt.cwd, tt.project); got != tt.want {
			t.Errorf("Resolve(%q, %q, %q) = %q, want %q", tt.path, tt.cwd, tt.project, got, tt.want)
		}
	}
	if got := Program("gdb", "/c", "/p"); got != "gdb" {
		t.Errorf("a bare program name is for PATH lookup, got %q", got)
	}
	if got := Program("./app", "", "/p"); got != "/p/app" {
		t.Errorf("Program(./app) = %q", got)
	}
	if got := Base("", ""); got != wd {
		t.Errorf("Base with nothing = %q, want %q", got, wd)
	}
}

// TestFind: a program to launch is a path that must exist, a bare name in
// the launch directory, or a bare name on PATH.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := Find("./tool", dir, ""); err != nil || p != filepath.Join(dir, "tool") {
		t.Errorf("a path: %q, %v", p, err)
	}
	if p, err := Find("tool", "", dir); err != nil || p != filepath.Join(dir, "tool") {
		t.Errorf("a name in the launch directory: %q, %v", p, err)
	}
	if p, err := Find("sh", dir, ""); err != nil || !filepath.IsAbs(p) {
		t.Errorf("a name on PATH: %q, %v", p, err)
	}
	if _, err := Find("./missing", dir, ""); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing path: %v", err)
	}
	if _, err := Find("no-such-program-anywhere", dir, ""); err == nil || !strings.Contains(err.Error(), "not found in the launch directory or on PATH") {
		t.Errorf("a missing name: %v", err)
	}
}
