package e2e

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil"
)

// BenchmarkSearchServer measures output_search through `triage serve
// --http` over one stored output of TRIAGE_BENCH_BYTES (default 1 GiB)
// holding 100,000 matching lines, against `grep -E -c` over the output's
// log (its bytes in the body file, copied out: the call's answer follows
// them there) in the same run, alternating: the time, the server's peak RSS
// during the search (VmHWM, reset before it through /proc/PID/clear_refs)
// and the size of the answer (text and structured content). Then four of
// the largest searches the server allows run at once: the peak RSS, and the
// RSS once the server is idle again against the baseline before them.
func BenchmarkSearchServer(b *testing.B) {
	storeDir := b.TempDir()
	s := startServer(b, b.TempDir(), filepath.Join(storeDir, "store.db"), nil)
	id, body := storeBigOutput(b, s, storeDir, int(benchBytes()), 100000)
	log := logFileOf(b, s, id, body)
	args := map[string]any{"output_id": id, "pattern": "needle", "max_matches": 1000}
	var search, grep []time.Duration
	var peak, answer int64
	b.ResetTimer()
	for range b.N {
		g := time.Now()
		out, err := exec.Command("grep", "-E", "-c", "needle", log).Output()
		grep = append(grep, time.Since(g))
		if err != nil || strings.TrimSpace(string(out)) != "100000" {
			b.Fatalf("grep -c: %q %v", out, err)
		}
		resetPeakRSS(b, s.pid)
		watch := watchPeakRSS(s.pid)
		start := time.Now()
		text, isErr, sc := s.call("output_search", args)
		search = append(search, time.Since(start))
		peak = max(peak, watch())
		structured, _ := json.Marshal(sc)
		answer = max(answer, int64(len(text)+len(structured)))
		if isErr || sc["total"] != float64(100000) {
			b.Fatalf("search: total %v:\n%.300s", sc["total"], text)
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	sm, gm := testutil.Median(search), testutil.Median(grep)
	b.ReportMetric(ms(sm), "search-ms")
	b.ReportMetric(ms(gm), "grep-ms")
	b.ReportMetric(float64(sm)/float64(gm), "ratio-vs-grep")
	b.ReportMetric(float64(peak)/1e6, "peak-RSS-MB")
	b.ReportMetric(float64(answer)/1e3, "answer-KB")
	worstConcurrent(b, s, id)
	b.ReportMetric(0, "ns/op")
}

// worstConcurrent runs four of the largest searches at once and reports the
// server's peak RSS and its RSS once idle again, against the baseline.
func worstConcurrent(b *testing.B, s *server, id string) {
	base := settledRSS(s.pid, 0, 10*time.Second)
	resetPeakRSS(b, s.pid)
	watch := watchPeakRSS(s.pid)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if text, isErr, _ := s.call("output_search", worstSearch(id)); isErr {
				b.Errorf("worst search:\n%.300s", text)
			}
		})
	}
	wg.Wait()
	peak := watch()
	after := settledRSS(s.pid, base+base/10, 30*time.Second)
	b.ReportMetric(float64(peak)/1e6, "worst4-peak-RSS-MB")
	b.ReportMetric(float64(base)/1e6, "worst4-base-RSS-MB")
	b.ReportMetric(100*float64(after-base)/float64(base), "worst4-after-%")
}

// resetPeakRSS resets pid's VmHWM to its current resident set (Linux
// clear_refs, "5"), so a later reading is the peak since now.
func resetPeakRSS(b *testing.B, pid int) {
	if err := os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0); err != nil {
		b.Fatalf("resetting the peak RSS: %v", err)
	}
}

// logFileOf copies output id's log, the first bytes of its body file as
// output_list counts them, into a file of its own.
func logFileOf(b *testing.B, s *server, id, body string) string {
	_, sc := s.mustCall("output_list", map[string]any{"limit": 5})
	var n int64 = -1
	entries, _ := sc["outputs"].([]any)
	for _, e := range entries {
		if m, _ := e.(map[string]any); m["id"] == id {
			f, _ := m["bytes"].(float64)
			n = int64(f)
		}
	}
	if n < 0 {
		b.Fatalf("output %s is not listed: %v", id, sc)
	}
	src, err := os.Open(body)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	log := filepath.Join(b.TempDir(), id+".log")
	dst, err := os.Create(log)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.CopyN(dst, src, n); err != nil {
		b.Fatalf("copying the log out of %s: %v", body, err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
	return log
}
