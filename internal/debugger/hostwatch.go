package debugger

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/textclip"
	"github.com/triage-dev/triage/internal/toolpath"
)

// Hardware watchpoints on a remote host: probed there, once per host for
// the life of the server, with the host's own lldb, the way
// spawn.HardwareWatchpoints probes this host: `true` launched stopped at
// its entry, a write watch on the word below its stack pointer (its first
// call pushes there), continued: a watchpoint stop is delivery, an exit is
// none. A probe that could not run is said, never taken for either.

// HostRunner runs a command on a host (remote.Conn does).
type HostRunner interface {
	LookPath(ctx context.Context, names ...string) (string, error)
	Run(ctx context.Context, argv []string, timeout time.Duration) (string, error)
}

// hostProbeTimeout bounds the probe's lldb run (its start alone can take
// seconds on a loaded host).
const hostProbeTimeout = 60 * time.Second

// HostProbe is what the probe on a host found.
type HostProbe struct {
	Probed    bool // false: it could not run; Why says why
	Delivered bool
	Why       string
}

var hostProbes = struct {
	sync.Mutex
	m map[string]HostProbe
}{m: map[string]HostProbe{}}

// HostHardwareWatchpoints probes host through r, once: a probe that ran is
// kept, one that could not run is tried again next time.
func HostHardwareWatchpoints(ctx context.Context, host string, r HostRunner) HostProbe {
	hostProbes.Lock()
	p, ok := hostProbes.m[host]
	hostProbes.Unlock()
	if ok {
		return p
	}
	p = probeHost(ctx, r)
	if p.Probed {
		hostProbes.Lock()
		hostProbes.m[host] = p
		hostProbes.Unlock()
	}
	return p
}

func probeHost(ctx context.Context, r HostRunner) HostProbe {
	lldb, err := r.LookPath(ctx, toolpath.LLDB.Candidates()...)
	if err != nil {
		return HostProbe{Why: "no lldb on the host to probe with: " + err.Error()}
	}
	tru, err := r.LookPath(ctx, "/usr/bin/true", "/bin/true") // "true" alone is the shell's builtin
	if err != nil {
		return HostProbe{Why: "no `true` on the host to probe with: " + err.Error()}
	}
	out, err := r.Run(ctx, LLDBHostProbeArgv(lldb, tru), hostProbeTimeout)
	if err != nil {
		return HostProbe{Why: "the probe failed: " + err.Error()}
	}
	return ParseHostProbe(out)
}

// LLDBHostProbeArgv is the probe's lldb run on the host (batch mode, no
// init files).
func LLDBHostProbeArgv(lldb, truePath string) []string {
	return []string{lldb, "-b", "-x",
		"-o", "target create " + truePath,
		"-o", "process launch --stop-at-entry",
		"-o", "watchpoint set expression -w write -s 8 -- $sp - 8",
		"-o", "process continue",
	}
}

// ParseHostProbe reads the probe's output.
func ParseHostProbe(out string) HostProbe {
	switch {
	case strings.Contains(out, "stop reason = watchpoint"):
		return HostProbe{Probed: true, Delivered: true}
	case strings.Contains(out, "Watchpoint created") && strings.Contains(out, "exited with status"):
		return HostProbe{Probed: true, Why: "a write watch on `true`'s stack did not fire"}
	}
	return HostProbe{Why: "the probe's lldb said: " + textclip.String(strings.TrimSpace(out), 300)}
}

// SoftWatchForHost is SoftWatchFor for a session on host: emulated when
// the probe there found hardware watchpoints not delivered, or when
// forced. note, when not empty, is for the watch's Via although the watch
// is not emulated: the host could not be probed.
func SoftWatchForHost(ctx context.Context, host string, r HostRunner, forced bool) (soft bool, why, note string) {
	p := HostHardwareWatchpoints(ctx, host, r)
	switch {
	case p.Probed && !p.Delivered:
		return true, fmt.Sprintf("hardware watchpoints are not delivered on %s (probed there: %s); watching by single-stepping, slow", host, p.Why), ""
	case forced:
		return true, "watching by single-stepping, slow (asked for)", ""
	case !p.Probed:
		return false, "", fmt.Sprintf("%s's hardware-watchpoint support was not probed (%s): a watch that never fires may be the host's", host, p.Why)
	}
	return false, "", ""
}
