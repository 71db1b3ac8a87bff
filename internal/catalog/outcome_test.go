package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/triage-dev/triage/internal/fault"
)

// A handler's error becomes an outcome by its fault kind, however deeply it
// was wrapped on the way up; unclassified errors are the operation's.
func TestOutcomeOf(t *testing.T) {
	ioErr := &fs.PathError{Op: "open", Path: "/store/bodies/o1.log", Err: fs.ErrNotExist}
	tests := []struct {
		err  error
		want Outcome
	}{
		{fault.Usagef("timeout_s -1: use a number of seconds between 0 and 86400"), UsageError},
		{fmt.Errorf("dump_command: %w", fault.Usagef("bad")), UsageError},
		{fault.NotFoundf("output %q not found: %w", "o1", errors.New("sentinel")), UsageError},
		{fault.Unavailablef("gdb is not installed"), Error},
		{fault.Internal(ioErr), Error},
		{fmt.Errorf("reading output o1: %w", ioErr), Error},
		// A usage label put on top of an I/O failure already classified does
		// not make it the caller's.
		{fault.Usage(fault.Internal(ioErr)), Error},
	}
	for _, tt := range tests {
		if got := OutcomeOf(tt.err); got != tt.want {
			t.Errorf("OutcomeOf(%v) = %s, want %s", tt.err, got, tt.want)
		}
	}
}
