// Package argpath resolves the file paths a tool call receives the way the
// program the call runs would see them: an absolute path stays as it is; a
// relative one is taken against the call's working directory (cwd), itself
// taken against project_dir, else against project_dir, else against
// triage's own working directory. The result is always absolute, so hints
// and evidence that quote it work from anywhere.
//
// A program named without a '/' is not a path: it is looked up in PATH
// when run, and is left as it is.
package argpath

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Base is the directory a call's relative paths are resolved against: cwd
// (relative to projectDir when relative), else projectDir, else triage's
// working directory. It is absolute.
func Base(cwd, projectDir string) string {
	return abs(Join(abs(projectDir), cwd))
}

// Join resolves path against base (absolute or relative to triage's working
// directory): an absolute path stays, a relative one is joined to base.
// An empty path stays empty.
func Join(base, path string) string {
	switch {
	case path == "":
		return base
	case filepath.IsAbs(path):
		return filepath.Clean(path)
	case base == "":
		return abs(path)
	}
	return filepath.Join(base, path)
}

// Resolve makes a path argument absolute against the call's cwd and
// projectDir (see Base). An empty path stays empty.
func Resolve(path, cwd, projectDir string) string {
	if path == "" {
		return ""
	}
	return Join(Base(cwd, projectDir), path)
}

// Program resolves a program argument like Resolve when it is a path (it
// contains a '/'); a bare name is left for PATH lookup.
func Program(program, cwd, projectDir string) string {
	if !strings.ContainsRune(program, '/') {
		return program
	}
	return Resolve(program, cwd, projectDir)
}

// Find resolves a program to launch where no shell will: a path as
// Program resolves it, which must exist; a bare name in the launch
// directory (Base), else on PATH, as a shell finds it there.
func Find(program, cwd, projectDir string) (string, error) {
	dir := Base(cwd, projectDir)
	if strings.ContainsRune(program, '/') {
		program = Join(dir, program)
		if _, err := os.Stat(program); err != nil {
			return "", fmt.Errorf("program %s: %w", program, errors.Unwrap(err))
		}
		return program, nil
	}
	if dir != "" {
		if p := filepath.Join(dir, program); isFile(p) {
			return p, nil
		}
	}
	p, err := exec.LookPath(program)
	if err != nil {
		return "", fmt.Errorf("program %s not found in the launch directory or on PATH", program)
	}
	return p, nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// abs makes p absolute against triage's working directory ("" is that
// directory).
func abs(p string) string {
	if p == "" {
		wd, err := os.Getwd()
		if err != nil {
			return ""
		}
		return wd
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
