package hang

import (
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/crashsite"
)

// isUserFrame reports whether a frame is in the user's own code, with a
// source location, by the one crashing-frame rule (crashsite): not a
// runtime, a standard library or a dependency.
func isUserFrame(f coredump.Frame) bool {
	if f.File == "" || f.Line <= 0 || f.Function == "" {
		return false
	}
	cf := crashsite.Frame{Function: f.Function, File: f.File, Line: f.Line, Module: f.Module}
	return crashsite.OriginOf(cf, "") == crashsite.Project
}
