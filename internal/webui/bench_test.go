package webui

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testutil"
)

// BenchmarkRunsPage measures what the Runs page asks the server for over
// a store of 10,000 runs (a mix of tools, statuses and commands), each
// request timed as the page's client sees it: the first page
// (runs-ms, target 50 ms), a page filtered by status and text
// (filtered-ms), the oldest page (last-page-ms) and the tools of the
// filter (tools-ms); and the store's Version, which the live streams'
// poller reads every 400 ms (version-ms). Medians of the iterations.
func BenchmarkRunsPage(b *testing.B) {
	base, c, st := newUI(b)
	fill(b, st, 10000)
	requests := []struct{ metric, path string }{
		{"runs-ms", "/ui/api/runs?status=&tool=&q=&offset=0&limit=50"},
		{"filtered-ms", "/ui/api/runs?status=failure&tool=&q=needle&offset=0&limit=50"},
		{"last-page-ms", "/ui/api/runs?status=&tool=&q=&offset=9950&limit=50"},
		{"tools-ms", "/ui/api/tools"},
	}
	times := make([][]time.Duration, len(requests))
	var version []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := st.Version(context.Background()); err != nil {
			b.Fatal(err)
		}
		version = append(version, time.Since(start))
		for i, r := range requests {
			start := time.Now()
			if code := getJSON(b, c, base+r.path, nil); code != 200 {
				b.Fatalf("%s: %d", r.path, code)
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	for i, r := range requests {
		b.ReportMetric(float64(testutil.Median(times[i]).Microseconds())/1000, r.metric)
	}
	b.ReportMetric(float64(testutil.Median(version).Microseconds())/1000, "version-ms")
}

// fill stores n finished runs of a few tools, statuses and commands.
func fill(b *testing.B, st *store.Store, n int) {
	b.Helper()
	tools := []string{"run", "build", "test", "process_start", "dump_command"}
	statuses := []string{"success", "failure", "crash", "timeout", "interrupted"}
	for i := range n {
		m := store.Meta{Tool: tools[i%len(tools)], Argv: []string{"./prog", fmt.Sprint(i), map[bool]string{true: "needle", false: "hay"}[i%7 == 0]}, Cwd: "/src/app"}
		s := statuses[i%len(statuses)]
		if _, err := st.Put(context.Background(), m, fmt.Sprintf("line %d\n", i), store.Final{Status: s, VerdictLine: fmt.Sprintf("%s: run %d", s, i)}); err != nil {
			b.Fatal(err)
		}
	}
}
