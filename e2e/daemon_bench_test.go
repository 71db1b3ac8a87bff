package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
)

// benchShell is the environment of a user's shell for the daemon
// benchmarks: the daemon on, in a runtime directory of the benchmark's own.
func benchShell(b *testing.B) []string {
	rt, err := os.MkdirTemp("/tmp", "rt")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(rt) })
	return append(os.Environ(), "XDG_RUNTIME_DIR="+rt, "TRIAGE_DAEMON=", "TRIAGE_STORE="+filepath.Join(b.TempDir(), "out.db"))
}

// timeTriage runs `triage args…` in env and returns its wall time.
func timeTriage(b *testing.B, env []string, args ...string) time.Duration {
	cmd := exec.Command(triageBin, args...)
	cmd.Env = env
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("triage %v: %v\n%s", args, err, out)
	}
	return time.Since(start)
}

// A `triage call` of a stateless tool through a running daemon against the
// same call made in-process (TRIAGE_DAEMON=off): each a whole CLI process.
func BenchmarkDaemonCall(b *testing.B) {
	env := benchShell(b)
	off := append(append([]string{}, env...), "TRIAGE_DAEMON=off")
	tool := []string{"call", "session_show_defaults"}
	timeTriage(b, env, "call", "process_list") // starts the daemon
	defer timeTriage(b, env, "daemon", "stop")
	var viaDaemon, inProcess []time.Duration
	for b.Loop() {
		viaDaemon = append(viaDaemon, timeTriage(b, env, tool...))
		inProcess = append(inProcess, timeTriage(b, off, tool...))
	}
	md, mi := testutil.Median(viaDaemon), testutil.Median(inProcess)
	b.ReportMetric(float64(md.Microseconds())/1000, "daemon-ms")
	b.ReportMetric(float64(mi.Microseconds())/1000, "inprocess-ms")
	b.ReportMetric(float64((md-mi).Microseconds())/1000, "overhead-ms")
}

// The first call of a stateful tool, which starts the daemon and waits
// for it, against a cold start of the CLI: the same call in-process.
func BenchmarkDaemonStart(b *testing.B) {
	env := benchShell(b)
	off := append(append([]string{}, env...), "TRIAGE_DAEMON=off")
	var first, cold []time.Duration
	for b.Loop() {
		first = append(first, timeTriage(b, env, "call", "process_list"))
		b.StopTimer()
		timeTriage(b, env, "daemon", "stop")
		b.StartTimer()
		cold = append(cold, timeTriage(b, off, "call", "process_list"))
	}
	mf, mc := testutil.Median(first), testutil.Median(cold)
	b.ReportMetric(float64(mf.Microseconds())/1000, "first-ms")
	b.ReportMetric(float64(mc.Microseconds())/1000, "cold-ms")
	b.ReportMetric(float64(mf)/float64(mc), "ratio")
}
