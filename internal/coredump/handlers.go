package coredump

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// findApport looks for apport's report (/var/crash/*.crash) and, on newer
// Ubuntu, the core it keeps for unpackaged programs
// (/var/lib/apport/coredump/core.<exe>.<uid>.<boot>.<pid>.<time>).
func (f *Finder) findApport(ctx context.Context, c Crash) ([]Artifact, error) {
	arts, err := f.poll(ctx, func() ([]Artifact, error) {
		var arts []Artifact
		cores, _ := filepath.Glob(filepath.Join(f.apportCore(), "core.*."+itoa(c.Pid)+".*"))
		for _, p := range cores {
			if st, err := os.Stat(p); err == nil && !st.ModTime().Before(c.Started.Add(-time.Second)) {
				arts = append(arts, Artifact{Kind: "core", Path: p, Size: st.Size(), ModTime: st.ModTime(), Note: "core kept by apport"})
			}
		}
		reports, _ := filepath.Glob(filepath.Join(f.crashDir(), "*.crash"))
		for _, p := range reports {
			if a, ok := apportMatch(p, c); ok {
				arts = append(arts, a)
			}
		}
		return arts, nil
	})
	if err != nil || len(arts) > 0 {
		return arts, err
	}
	return nil, &NoCoreError{Reason: fmt.Sprintf("core_pattern pipes cores to apport, which left nothing for pid %d in %s or %s (apport ignores unpackaged programs unless configured, and may be disabled)", c.Pid, f.crashDir(), f.apportCore())}
}

// apportMatch reads an apport report's header fields (stopping before the
// base64 CoreDump) and matches it to c by pid, or by executable and time.
func apportMatch(path string, c Crash) (Artifact, bool) {
	st, err := os.Stat(path)
	if err != nil || st.ModTime().Before(c.Started.Add(-time.Second)) {
		return Artifact{}, false
	}
	fh, err := os.Open(path)
	if err != nil {
		return Artifact{}, false
	}
	defer fh.Close()
	rep := readApportHeader(fh)
	if rep.pid != 0 && rep.pid != c.Pid {
		return Artifact{}, false
	}
	if rep.pid == 0 && rep.exe != c.Exe {
		return Artifact{}, false
	}
	note := fmt.Sprintf("apport report for %s, signal %s", rep.exe, cmpOr(rep.signal, "?"))
	if rep.hasCore {
		note += "; the core is inside (CoreDump field, base64 gzip): apport-unpack extracts it"
	}
	return Artifact{Kind: "apport", Path: path, Size: st.Size(), ModTime: st.ModTime(), Note: note}, true
}

type apportHeader struct {
	exe, signal string
	pid         int
	hasCore     bool
}

// readApportHeader reads the RFC 822-like apport format: "Key: value", with
// continuation lines starting with a space.
func readApportHeader(r *os.File) apportHeader {
	var h apportHeader
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	inStatus := false
	for sc.Scan() {
		ln := sc.Text()
		if strings.HasPrefix(ln, " ") {
			if inStatus {
				if v, ok := strings.CutPrefix(strings.TrimSpace(ln), "Pid:"); ok {
					h.pid, _ = strconv.Atoi(strings.TrimSpace(v))
				}
			}
			continue
		}
		key, val, _ := strings.Cut(ln, ":")
		val = strings.TrimSpace(val)
		inStatus = key == "ProcStatus"
		switch key {
		case "ExecutablePath":
			h.exe = val
		case "Signal":
			h.signal = val
		case "CoreDump":
			h.hasCore = true
			return h
		}
	}
	return h
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
