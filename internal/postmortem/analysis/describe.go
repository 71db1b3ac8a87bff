package analysis

import (
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
