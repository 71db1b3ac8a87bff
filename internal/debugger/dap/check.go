package dap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrNoTarget: the program, core file or process to debug does not exist.
var ErrNoTarget = errors.New("debug target not found")

func checkProgram(path string) error {
	if path == "" {
		return fmt.Errorf("%w: no program given", ErrNoTarget)
	}
	return checkFile(path, "program")
}

func checkFile(path, what string) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s %s: %v", ErrNoTarget, what, path, errors.Unwrap(err))
	case err != nil: // it may exist: permission denied, a file as a directory
		return fmt.Errorf("%s %s: %v", what, path, errors.Unwrap(err))
	case fi.IsDir():
		return fmt.Errorf("%s %s is a directory, not a file", what, path)
	}
	return nil
}

// pidExists fails fast for a pid that is not there, instead of waiting for
// each adapter's own (slow, differently worded) failure.
func pidExists(pid int) error {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("%w: no process with pid %d", ErrNoTarget, pid)
	}
	return nil
}
