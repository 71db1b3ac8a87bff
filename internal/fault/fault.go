// Package fault classifies errors by whose problem they are, keeping their
// causes: a usage error (the caller's arguments are wrong), not found (the
// caller named something that does not exist), unavailable (the machine lacks
// what the operation needs) or internal (the operation failed on its own).
//
// A classified error wraps its cause, so errors.Is and errors.As see through
// it to store.ErrNotFound, a *spawn.StartError or an *os.PathError. An error
// nobody classified is the operation's failure, never the caller's: the
// catalog turns usage and not-found errors into the usage_error outcome (CLI
// exit 2) and every other error into the error outcome (exit 1), so an I/O
// failure is never reported as the caller's mistake.
package fault

import (
	"errors"
	"fmt"
)

// Kind says whose problem an error is.
type Kind uint8

const (
	// KindNone: not classified; reported like KindInternal.
	KindNone Kind = iota
	// KindUsage: the arguments cannot be used as given; the message says what
	// to change.
	KindUsage
	// KindNotFound: the caller named something that does not exist (an
	// output, a session, a process, a file).
	KindNotFound
	// KindUnavailable: something the operation needs is missing or busy on
	// this machine (a debugger, a platform, a full disk).
	KindUnavailable
	// KindInternal: the operation itself failed.
	KindInternal
)

func (k Kind) String() string {
	switch k {
	case KindUsage:
		return "usage"
	case KindNotFound:
		return "not found"
	case KindUnavailable:
		return "unavailable"
	case KindInternal:
		return "internal"
	}
	return "unclassified"
}

// Error is an error of a kind. Its text is its cause's.
type Error struct {
	Kind Kind
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the kind of the outermost classified error in err's chain,
// or KindNone.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindNone
}

// Is reports whether err is of kind k.
func Is(err error, k Kind) bool { return KindOf(err) == k }

// Wrap classifies err as kind k. An error already classified keeps its kind:
// a handler that calls every error of a domain call a usage error cannot
// turn the domain's I/O failure into the caller's mistake. Wrap(nil) is nil.
func Wrap(k Kind, err error) error {
	if err == nil || KindOf(err) != KindNone {
		return err
	}
	return &Error{Kind: k, Err: err}
}

// newf formats an error of kind k; a %w cause already classified gives its
// kind, as in Wrap.
func newf(k Kind, format string, a []any) error {
	err := fmt.Errorf(format, a...)
	if inner := KindOf(err); inner != KindNone {
		k = inner
	}
	return &Error{Kind: k, Err: err}
}

// Usage classifies err as a usage error (see Wrap).
func Usage(err error) error { return Wrap(KindUsage, err) }

// Usagef is a usage error formatted as by fmt.Errorf; %w wraps a cause,
// whose kind, if it has one, is kept (see Wrap).
func Usagef(format string, a ...any) error {
	return newf(KindUsage, format, a)
}

// NotFound classifies err as not found (see Wrap).
func NotFound(err error) error { return Wrap(KindNotFound, err) }

// NotFoundf is a not-found error formatted as by fmt.Errorf.
func NotFoundf(format string, a ...any) error {
	return newf(KindNotFound, format, a)
}

// Unavailable classifies err as unavailable (see Wrap).
func Unavailable(err error) error { return Wrap(KindUnavailable, err) }

// Unavailablef is an unavailable error formatted as by fmt.Errorf.
func Unavailablef(format string, a ...any) error {
	return newf(KindUnavailable, format, a)
}

// Internal classifies err as internal (see Wrap).
func Internal(err error) error { return Wrap(KindInternal, err) }

// Internalf is an internal error formatted as by fmt.Errorf.
func Internalf(format string, a ...any) error {
	return newf(KindInternal, format, a)
}
