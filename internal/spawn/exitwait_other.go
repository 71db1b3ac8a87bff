//go:build !linux

package spawn

import (
	"context"
	"errors"
)

// ErrNoPidfd says the system has no process descriptors: the caller polls.
var ErrNoPidfd = errors.New("pidfd_open is not available")

// AwaitExit cannot wait for a process that is not a child here without
// polling; it always answers ErrNoPidfd.
func AwaitExit(ctx context.Context, pid int) (bool, error) { return false, ErrNoPidfd }
