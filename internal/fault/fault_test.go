package fault

import (
	"errors"
	"io/fs"
	"os"
	"testing"
)

var errSentinel = errors.New("output not found")

// errors.Is and errors.As see through a classification to its cause, and
// the text is the cause's.
func TestWrapKeepsTheCause(t *testing.T) {
	_, cause := os.Open("/nonexistent/triage-fault-test")
	for _, err := range []error{
		Usage(cause), NotFound(cause), Unavailable(cause), Internal(cause),
		Usagef("program %s: %w", "x", cause), NotFoundf("x: %w", cause),
		Unavailablef("x: %w", cause), Internalf("x: %w", cause),
	} {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v: errors.Is(fs.ErrNotExist) = false", err)
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Path != "/nonexistent/triage-fault-test" {
			t.Errorf("%v: errors.As(*fs.PathError) = %v", err, pe)
		}
		var fe *Error
		if !errors.As(err, &fe) {
			t.Errorf("%v: errors.As(*fault.Error) = false", err)
		}
	}
	if got, want := Usage(cause).Error(), cause.Error(); got != want {
		t.Errorf("text = %q, want the cause's %q", got, want)
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		err  error
		want Kind
	}{
		{errSentinel, KindNone},
		{nil, KindNone},
		{Usagef("timeout_s %v: bad", -1), KindUsage},
		{NotFound(errSentinel), KindNotFound},
		{Unavailablef("gdb is not installed"), KindUnavailable},
		{Internal(errSentinel), KindInternal},
		// Classified errors stay so when joined with others.
		{errors.Join(errSentinel, NotFound(errSentinel)), KindNotFound},
	}
	for _, tt := range tests {
		if got := KindOf(tt.err); got != tt.want {
			t.Errorf("KindOf(%v) = %v, want %v", tt.err, got, tt.want)
		}
		if tt.want != KindNone && !Is(tt.err, tt.want) {
			t.Errorf("Is(%v, %v) = false", tt.err, tt.want)
		}
	}
	wrapped := errors.Join(errors.New("context"), Usagef("bad"))
	if !Is(wrapped, KindUsage) {
		t.Error("a usage error wrapped once more is no longer one")
	}
}

// A classification made nearer the cause wins: a handler that calls every
// error of a domain call a usage error cannot make an I/O failure the
// caller's mistake.
func TestFirstClassificationWins(t *testing.T) {
	io := Internalf("reading output o1: %w", fs.ErrPermission)
	if k := KindOf(Usage(io)); k != KindInternal {
		t.Errorf("Usage(internal) kind = %v, want internal", k)
	}
	if k := KindOf(Usagef("output_get: %w", io)); k != KindInternal {
		t.Errorf("Usagef(%%w internal) kind = %v, want internal", k)
	}
	if k := KindOf(Usage(NotFound(errSentinel))); k != KindNotFound {
		t.Errorf("Usage(not found) kind = %v, want not found", k)
	}
	if Usage(nil) != nil {
		t.Error("Usage(nil) != nil")
	}
}
