package debugger

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
)

// localRunner runs the host probe here (a remote.Conn runs it on a host).
type localRunner struct{}

func (localRunner) LookPath(_ context.Context, names ...string) (string, error) {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not in PATH", strings.Join(names, " or "))
}

func (localRunner) Run(ctx context.Context, argv []string, timeout time.Duration) (string, error) {
	var out strings.Builder
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Combined: &out, Timeout: timeout})
	if err == nil && !res.Success() {
		err = fmt.Errorf("%s: %v", argv[0], res)
	}
	return out.String(), err
}

// The probe a remote session runs on its host, run here with this host's
// lldb, finds what spawn's ptrace probe finds; the answer is kept per
// host and the emulation's reason names the host.
func TestHostProbeAgreesWithThisHostsProbe(t *testing.T) {
	if _, err := exec.LookPath("lldb-16"); err != nil {
		t.Skip("lldb-16 not found (Debian package lldb-16)")
	}
	p := HostHardwareWatchpoints(context.Background(), "here", localRunner{})
	delivered, why := spawn.HardwareWatchpoints()
	if !p.Probed || p.Delivered != delivered {
		t.Fatalf("lldb's probe = %+v; spawn's: delivered %t (%s)", p, delivered, why)
	}
	soft, reason, note := SoftWatchForHost(context.Background(), "here", localRunner{}, false)
	if soft == delivered || note != "" || (soft && !strings.Contains(reason, "not delivered on here (probed there")) {
		t.Errorf("SoftWatchForHost = %t %q %q", soft, reason, note)
	}
}

// A host without lldb is not probed, and the watch's note says so rather
// than trusting it silently; the next watch tries again.
func TestHostNotProbedIsSaid(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	soft, reason, note := SoftWatchForHost(context.Background(), "bare", localRunner{}, false)
	if soft || reason != "" || !strings.Contains(note, "bare's hardware-watchpoint support was not probed (no lldb on the host") {
		t.Errorf("SoftWatchForHost = %t %q %q", soft, reason, note)
	}
	if soft, why, _ := SoftWatchForHost(context.Background(), "bare", localRunner{}, true); !soft || !strings.Contains(why, "asked for") {
		t.Errorf("forced: %t %q", soft, why)
	}
	hostProbes.Lock()
	_, kept := hostProbes.m["bare"]
	hostProbes.Unlock()
	if kept {
		t.Error("a probe that could not run was kept")
	}
}
