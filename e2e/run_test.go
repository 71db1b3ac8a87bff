package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

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
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("triage %v: %v", args, err)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if stderr.Len() > 0 {
		t.Logf("stderr: %s", stderr.String())
	}
	return code, stdout.String(), rss
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
