package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// cli runs the triage binary with a private store and returns its exit status,
// stdout and peak RSS in bytes.
func cli(t *testing.T, storePath string, args ...string) (int, string, int64) {
	t.Helper()
	cmd := exec.Command(triageBin, args...)
	cmd.Env = append(os.Environ(), "TRIAGE_STORE="+storePath)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopWatch := watchPeakRSS(cmd.Process.Pid)
	err := cmd.Wait()
	rss := stopWatch()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("triage %v: %v", args, err)
	}
	if stderr.Len() > 0 {
		t.Logf("stderr: %s", stderr.String())
	}
	return code, stdout.String(), rss
}

// watchPeakRSS samples VmHWM, the peak resident set of pid's current
// program, until the returned function is called, and returns the highest
// value seen. The rusage of a waited child cannot serve: on Linux its maxrss
// includes the parent's resident set, which the child shares between fork and
// exec (a test binary under -race is over 100 MiB).
func watchPeakRSS(pid int) func() int64 {
	var peak atomic.Int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			if v := vmHWM(pid); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 { close(done); <-stopped; return peak.Load() }
}

func vmHWM(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestGigabyteOutput runs a program that prints 1 GiB through `triage call
// run`: triage's own memory stays bounded and every line is pageable after.
func TestGigabyteOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 GiB")
	}
	big := crashers.Build(t, "bigoutput")
	db := filepath.Join(t.TempDir(), "t.db")
	const size = 1<<30 - (1<<30)%100 // whole 100-byte lines
	code, out, rss := cli(t, db, "call", "run", "--program", big, "--args", "1073741800", "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d:\n%.2000s", code, out)
	}
	var res struct {
		Output struct {
			OutputID   string `json:"output_id"`
			TotalLines int    `json:"total_lines"`
			Truncated  bool   `json:"truncated"`
		} `json:"output"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Output.TotalLines != size/100 || !res.Output.Truncated {
		t.Fatalf("total_lines %d truncated %v, want %d", res.Output.TotalLines, res.Output.Truncated, size/100)
	}
	t.Logf("triage peak RSS %d MiB", rss>>20)
	if rss > 64<<20 {
		t.Errorf("triage peaked at %d MiB of RSS capturing 1 GiB (target 64 MiB)", rss>>20)
	}
	if len(res.Text) > 9000 {
		t.Errorf("response text %d bytes", len(res.Text))
	}
	code, page, _ := cli(t, db, "call", "output_get", "--output_id", res.Output.OutputID, "--offset", "10737417", "--limit", "1", "--output", "json")
	if code != 0 || !strings.Contains(page, `"offset": 10737417`) || !strings.Contains(page, "abcdefghijklmnopqrstuvwxyz") {
		t.Errorf("last line of 1 GiB: exit %d\n%.500s", code, page)
	}
}
