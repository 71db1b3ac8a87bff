package capture

import (
	"fmt"
	"strings"
	"time"
)

// LimitFrom is where a time limit came from: what a reader raises to give
// the next call more time.
type LimitFrom int

const (
	// LimitBuiltIn is the tool's own default.
	LimitBuiltIn LimitFrom = iota
	// LimitArg is the call's own argument.
	LimitArg
	// LimitSession is the session default of the argument.
	LimitSession
	// LimitConfig is a key of .triage/config.yaml (or its TRIAGE_* variable).
	LimitConfig
)

// Limit is one time limit, named for the verdict of a call that ran out of
// it. Every tool with a time limit names it with these words, so that
// "timed out" always says what to raise.
type Limit struct {
	// Arg is the argument that sets it ("timeout_s", "wait_s").
	Arg  string
	From LimitFrom
	// Config is the config key behind a LimitConfig limit ("timeouts.command").
	Config string
	// Max, when set, is the most Arg may ask for.
	Max time.Duration
}

// LimitOf is the limit of argument arg: given says the call (or its
// session defaults, fromSession) set it; else config names the config key
// that set it, or "" for the tool's built-in limit.
func LimitOf(arg string, given, fromSession bool, config string) Limit {
	switch {
	case given && fromSession:
		return Limit{Arg: arg, From: LimitSession}
	case given:
		return Limit{Arg: arg, From: LimitArg}
	case config != "":
		return Limit{Arg: arg, From: LimitConfig, Config: config}
	}
	return Limit{Arg: arg, From: LimitBuiltIn}
}

// String names the limit and how to raise it, to go in parentheses after
// the time that ran out:
//
//	timeout_s
//	the session default timeout_s
//	the config's timeouts.command; timeout_s overrides it
//	the built-in limit; timeout_s raises it
func (l Limit) String() string {
	if l.Arg == "" {
		return ""
	}
	var s string
	switch l.From {
	case LimitArg:
		s = l.Arg
	case LimitSession:
		s = "the session default " + l.Arg
	case LimitConfig:
		s = fmt.Sprintf("the config's %s; %s overrides it", l.Config, l.Arg)
	default:
		s = "the built-in limit; " + l.Arg + " raises it"
	}
	if l.Max > 0 {
		s += fmt.Sprintf(", at most %g", l.Max.Seconds())
	}
	return s
}

// Said is what ran out, for a verdict's text: "after 60s (the config's
// timeouts.command; timeout_s overrides it)"; a limit with no Arg says
// only "after 60s".
func (l Limit) Said(d time.Duration) string {
	if s := l.String(); s != "" {
		return fmt.Sprintf("after %s (%s)", d, s)
	}
	return "after " + d.String()
}

// NameLimit says which time limit ran out, after the head of a timed-out
// verdict line ("TIMED OUT after 10m0s"), so that a reader knows what to
// raise; limit "" leaves line as it is:
//
//	TIMED OUT after 10m0s (the built-in limit; timeout_s raises it) — process group killed
//	TIMED OUT after 2m0s (the session default timeout_s) in the test step
func NameLimit(line, limit string) string {
	const head = "TIMED OUT after "
	rest, ok := strings.CutPrefix(line, head)
	if limit == "" || !ok {
		return line
	}
	d, tail, spaced := strings.Cut(rest, " ")
	line = head + d + " (" + limit + ")"
	if spaced {
		line += " " + tail
	}
	return line
}
