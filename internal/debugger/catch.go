package debugger

import (
	"fmt"
	"strings"
)

// Exception is a parsed exception kind: what an exception breakpoint
// stops on.
type Exception struct {
	Kind   string // "c++", "go-panic", "rust-panic", "abort", "signal"
	Signal string // for Kind "signal": "SIGSEGV"
}

// exceptionFuncs are the runtime functions a throw, panic or abort passes
// through before anything unwinds: where a backend without an exception
// filter for the kind sets a function breakpoint.
var exceptionFuncs = map[string]string{
	"c++":        "__cxa_throw",
	"go-panic":   "runtime.gopanic",
	"rust-panic": "rust_panic",
	"abort":      "abort",
}

// ExceptionKinds lists the kinds ParseException takes, for errors.
const ExceptionKinds = "c++, go-panic, rust-panic, abort, signal:SIGNAME"

// ParseException reads an exception kind: c++, go-panic, rust-panic, abort
// or signal:SIGNAME.
func ParseException(s string) (Exception, error) {
	k := strings.ToLower(strings.TrimSpace(s))
	if _, ok := exceptionFuncs[k]; ok {
		return Exception{Kind: k}, nil
	}
	if sig, ok := strings.CutPrefix(k, "signal:"); ok {
		sig = strings.ToUpper(sig)
		if !strings.HasPrefix(sig, "SIG") {
			sig = "SIG" + sig
		}
		if len(sig) > 3 && strings.Trim(sig[3:], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+") == "" {
			return Exception{Kind: "signal", Signal: sig}, nil
		}
	}
	return Exception{}, fmt.Errorf("breakpoint: unknown exception kind %q (want one of %s)", s, ExceptionKinds)
}

// Function is the runtime function a kind's throw passes through ("" for
// a signal).
func (e Exception) Function() string { return exceptionFuncs[e.Kind] }

func (e Exception) String() string {
	if e.Kind == "signal" {
		return "signal:" + e.Signal
	}
	return e.Kind
}

// Access is what a watchpoint watches for.
type Access string

const (
	AccessWrite     Access = "write"
	AccessRead      Access = "read"
	AccessReadWrite Access = "readwrite"
)

// ParseAccess reads a watch's access; "" is write.
func ParseAccess(s string) (Access, error) {
	switch a := Access(strings.ToLower(strings.TrimSpace(s))); a {
	case "":
		return AccessWrite, nil
	case AccessWrite, AccessRead, AccessReadWrite:
		return a, nil
	}
	return "", fmt.Errorf("breakpoint: access must be write, read or readwrite, got %q", s)
}

// MarkCatch makes a stop at an exception breakpoint (one of ids, our
// breakpoint ids) an exception stop naming its kind; a signal kind is
// left to the signal stop it is.
func MarkCatch(stop *Stop, bps []Breakpoint) {
	if stop == nil {
		return
	}
	for _, bp := range bps {
		if bp.Spec.Exception == "" || !containsInt(stop.BreakpointIDs, bp.ID) {
			continue
		}
		if e, err := ParseException(bp.Spec.Exception); err == nil && e.Kind != "signal" {
			stop.Reason, stop.Exception = StopException, e.Kind
			return
		}
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
