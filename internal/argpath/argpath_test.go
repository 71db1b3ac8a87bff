package argpath

import (
	"os"
	"path/filepath"
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
