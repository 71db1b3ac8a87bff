package dap

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "not found" is said only of what does not exist.
func TestCheckFileNamesTheRealCause(t *testing.T) {
	dir := t.TempDir()
	if err := checkFile(filepath.Join(dir, "nope"), "program"); !errors.Is(err, ErrNoTarget) {
		t.Errorf("missing file: %v, want ErrNoTarget", err)
	}
	err := checkFile(dir, "program")
	if err == nil || errors.Is(err, ErrNoTarget) || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err = checkFile(filepath.Join(file, "x"), "core")
	if err == nil || errors.Is(err, ErrNoTarget) || strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file used as a directory: %v", err)
	}
}
