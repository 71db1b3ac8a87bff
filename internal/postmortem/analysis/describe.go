package analysis

import (
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/postmortem"
)

// Describe names a session's dump in one line: "kernel dump V" or "core C of
// P", then what is known of it (format and producer, kernel release,
// architecture) and the host that runs its engines.
func Describe(s *postmortem.Session) string {
	t := s.Target
	parts := []string{"core " + t.Core + " of " + t.Program}
	if t.Kernel {
		parts[0] = "kernel dump " + t.Vmcore
	}
	if i := s.Dump; i != nil {
		kind := string(i.Kind)
		if i.Producer != "" {
			kind += " by " + i.Producer
		}
		parts = append(parts, kind)
		if i.OSRelease != "" {
			parts = append(parts, "kernel "+i.OSRelease)
		}
		if i.Arch != "" {
			parts = append(parts, i.Arch)
		}
	}
	if t.SSHHost != "" {
		parts = append(parts, "on "+t.SSHHost)
	}
	return strings.Join(parts, ", ")
}

// Status is a session in a few lines: its id, dump and references, then
// each engine's state, process, context and error.
func Status(s *postmortem.Session) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s; refs %d\n", s.ID, Describe(s), s.Refs())
	for _, e := range s.EngineInfos() {
		fmt.Fprintf(&b, "  %s: %s", e.Engine, e.State)
		if e.Pid != 0 {
			fmt.Fprintf(&b, " (pid %d)", e.Pid)
		}
		if k := e.Context.Key(); k != "" {
			fmt.Fprintf(&b, ", context %s", k)
		}
		if e.Error != "" {
			fmt.Fprintf(&b, ": %s", summary(e.Error))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// summary shortens a multi-line error to its first and last lines (an
// engine's start failure ends with its own message).
func summary(s string) string {
	s = strings.TrimSpace(s)
	first := firstLine(s)
	if first == s {
		return s
	}
	return first + " … " + s[strings.LastIndexByte(s, '\n')+1:]
}
