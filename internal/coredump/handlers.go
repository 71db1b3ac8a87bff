package coredump

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// coredumpctlTimeout bounds one coredumpctl call.
const coredumpctlTimeout = 10 * time.Second

// findCoredumpctl asks systemd-coredump (through coredumpctl) about c.Pid,
// polling because systemd-coredump stores the core after the process is reaped.
func (f *Finder) findCoredumpctl(ctx context.Context, c Crash) ([]Artifact, error) {
	if !haveTool("coredumpctl") {
		return nil, &NoCoreError{Reason: "core_pattern pipes cores to systemd-coredump, but coredumpctl is not installed (package systemd-coredump)"}
	}
	var lastErr string
	arts, err := f.poll(ctx, func() ([]Artifact, error) {
		run, err := runTool(ctx, []string{"coredumpctl", "--no-pager", "--no-legend", "info", itoa(c.Pid)}, coredumpctlTimeout)
		if err != nil {
			return nil, err
		}
		if run.res.ExitCode != 0 || !strings.Contains(run.stdout, "PID:") {
			lastErr = strings.TrimSpace(run.stderr)
			return nil, nil
		}
		return []Artifact{coredumpctlArtifact(run.stdout, c.Pid)}, nil
	})
	if err != nil || len(arts) > 0 {
		return arts, err
	}
	return nil, &NoCoreError{Reason: fmt.Sprintf("systemd-coredump has no core for pid %d after %v (coredumpctl: %s); it may be disabled (Storage=none) or over its size limits (coredump.conf)", c.Pid, f.wait(), cmpOr(lastErr, "no match"))}
}

// coredumpctlArtifact reads `coredumpctl info` ("  Storage: /var/lib/... (present)").
func coredumpctlArtifact(info string, pid int) Artifact {
	fields := keyValues(info)
	art := Artifact{Kind: "coredumpctl"}
	storage := fields["Storage"]
	if path, state, ok := strings.Cut(storage, " ("); ok {
		art.Path = path
		storage = strings.TrimSuffix(state, ")")
	} else if strings.HasPrefix(storage, "/") {
		art.Path, storage = storage, "present"
	}
	if st, err := os.Stat(art.Path); err == nil {
		art.Size, art.ModTime = st.Size(), st.ModTime()
	}
	art.Note = fmt.Sprintf("held by systemd-coredump (%s, storage %s, signal %s); extract with: coredumpctl dump %d --output FILE",
		cmpOr(fields["Executable"], "?"), cmpOr(storage, "unknown"), cmpOr(fields["Signal"], "?"), pid)
	return art
}

// ExtractCoredumpctl writes the core systemd-coredump holds for pid to dest.
func ExtractCoredumpctl(ctx context.Context, pid int, dest string) error {
	run, err := runTool(ctx, []string{"coredumpctl", "--no-pager", "dump", itoa(pid), "--output", dest}, time.Minute)
	if err != nil {
		return fmt.Errorf("extracting core of pid %d: %w", pid, err)
	}
	if !run.res.Success() {
		return fmt.Errorf("extracting core of pid %d: coredumpctl %s: %s", pid, run.res, strings.TrimSpace(run.stderr))
	}
	return nil
}

// keyValues reads "  Key: value" lines (coredumpctl info).
func keyValues(text string) map[string]string {
	m := make(map[string]string)
	for ln := range strings.SplitSeq(text, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(ln), ":")
		if ok && k != "" && !strings.Contains(k, " ") || ok && (k == "Command Line" || k == "Size on Disk") {
			if _, dup := m[k]; !dup {
				m[k] = strings.TrimSpace(v)
			}
		}
	}
	return m
}
