// Package testutil holds helpers shared by tests across triage. Import it
// from _test files only; subpackage crashers builds misbehaving programs.
package testutil

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// ProcessAlive reports whether pid names a live process. A zombie (exited,
// waiting for its parent or init to reap it) counts as dead: it runs no code
// and holds no pipes.
func ProcessAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !errors.Is(err, os.ErrNotExist) // no procfs (macOS): trust kill
	}
	// The state follows the parenthesised command name, which may itself
	// contain ") ", so look after the last one.
	i := bytes.LastIndex(stat, []byte(") "))
	if i < 0 || i+2 >= len(stat) {
		return true
	}
	return stat[i+2] != 'Z'
}
