package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/stall"
	"github.com/triage-dev/triage/internal/testutil/hangers"
)

// TestDaemonStopTakesStacksOfStuck: `triage daemon stop` of a daemon whose
// background process is deadlocked takes the process's stacks before it
// ends it, within a few seconds, and keeps them with the process's stored
// output: a later output_list says the daemon stopped it and where it was
// stuck, and output_get shows the stacks.
func TestDaemonStopTakesStacksOfStuck(t *testing.T) {
	if !stall.Supported {
		t.Skip("no stall sampling here")
	}
	p := hangers.ABBA(t)
	sh := newShell(t, t.TempDir())
	out := sh.call(0, "process_start", "--program", p.Bin)
	id := startedID(t, out)
	m := regexp.MustCompile(`\(pid (\d+)\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("process_start: %s", out)
	}
	pid, _ := strconv.Atoi(m[1])
	if out := sh.call(0, "process_output", "--id", id, "--wait_s", "60"); !strings.Contains(out, "ready") {
		t.Fatalf("process_output: %s", out)
	}
	// "ready" comes once both threads sleep in their lock; main may not be
	// in pthread_join yet.
	for deadline := time.Now().Add(time.Minute); !stall.Blocked(stall.Group(pid), 30*time.Second); {
		if time.Now().After(deadline) {
			t.Fatalf("the program never blocked: %+v", stall.Group(pid))
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not timing one
	}
	began := time.Now()
	sh.call(0, "daemon", "stop")
	if took := time.Since(began); took > 20*time.Second {
		t.Errorf("daemon stop took %s", took)
	}
	if !gone(pid) {
		t.Errorf("the program (pid %d) outlived the daemon", pid)
	}
	list := sh.call(0, "output_list")
	var oid string
	for _, ln := range strings.Split(list, "\n") {
		if strings.Contains(ln, "process_start") {
			oid = regexp.MustCompile(`\S+`).FindString(ln)
			if !strings.Contains(ln, "process group stopped as the daemon stopped; it was stuck: deadlocked") || !strings.Contains(ln, "deadlock cycle: one → two → one") {
				t.Errorf("the stored verdict does not say where it was stuck: %s", ln)
			}
		}
	}
	if oid == "" {
		t.Fatalf("output_list has no process_start output:\n%s", list)
	}
	page := sh.call(0, "output_get", "--output_id", oid, "--limit", "1000")
	if !strings.Contains(page, "before the kill") || !strings.Contains(page, "pthread_mutex_lock") {
		t.Errorf("output_get %s has no stacks:\n%s", oid, page)
	}
}
