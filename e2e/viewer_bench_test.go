package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/testutil/pagetest"

	"github.com/triage-dev/triage/internal/testutil"
)

// BenchmarkOutputViewer measures the web page's output viewer through
// `triage serve --http` over one stored output of TRIAGE_BENCH_BYTES
// (default 1 GiB): the time of the first page of lines the viewer asks
// for (the run, then its first 200 lines: first-page-ms, target 100 ms),
// and the server's peak RSS while a person pages through the whole of it
// (peak-RSS-MB, target 64 MB): pages read on from the start, then jumps
// to 200 places spread over the output, the last line included, each
// page's time (jump-ms, the median).
func BenchmarkOutputViewer(b *testing.B) {
	storeDir := b.TempDir()
	s := startServer(b, b.TempDir(), filepath.Join(storeDir, "store.db"), nil)
	id, _ := storeBigOutput(b, s, storeDir, int(benchBytes()), 1000)
	c := pageClient(b, s)
	base := strings.TrimSuffix(s.url, "/") + "/ui/api/runs/" + id
	var first, jumps []time.Duration
	var peak int64
	var total int
	for b.Loop() {
		start := time.Now()
		viewerGet(b, c, base, nil)
		var p struct {
			Lines      []string
			TotalLines int `json:"total_lines"`
		}
		viewerGet(b, c, base+"/lines?offset=0&limit=200", &p)
		first = append(first, time.Since(start))
		if total = p.TotalLines; len(p.Lines) != 200 {
			b.Fatalf("first page: %d lines of %d", len(p.Lines), total)
		}
		b.StopTimer()
		resetPeakRSS(b, s.pid)
		watch := watchPeakRSS(s.pid)
		for off := 200; off < 200*50; off += 200 { // reading on
			viewerGet(b, c, fmt.Sprintf("%s/lines?offset=%d&limit=200", base, off), nil)
		}
		for i := range 200 { // jumping about, to the end
			off := max(0, total*(i+1)/200-200)
			t := time.Now()
			viewerGet(b, c, fmt.Sprintf("%s/lines?offset=%d&limit=200", base, off), nil)
			jumps = append(jumps, time.Since(t))
		}
		peak = max(peak, watch())
		b.StartTimer()
	}
	b.ReportMetric(float64(testutil.Median(first).Microseconds())/1000, "first-page-ms")
	b.ReportMetric(float64(testutil.Median(jumps).Microseconds())/1000, "jump-ms")
	b.ReportMetric(float64(peak)/1e6, "peak-RSS-MB")
	b.ReportMetric(float64(total), "lines")
	b.ReportMetric(0, "ns/op")
}

// pageClient logs into the server's web page with its token (a one-time
// code asked for with it) and returns a client holding the cookie.
func pageClient(b *testing.B, s *server) *http.Client {
	req, _ := http.NewRequest("POST", strings.TrimSuffix(s.url, "/")+"/ui/login-code", nil)
	req.Header.Set("Authorization", "Bearer fault-token-0123456789")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var v struct{ URL string }
	err = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if err != nil || v.URL == "" {
		b.Fatalf("login code: %d %v", resp.StatusCode, err)
	}
	return pagetest.Browser(b, v.URL)
}

// viewerGet GETs url, which must answer 200, decoding it into v if given.
func viewerGet(b *testing.B, c *http.Client, url string, v any) {
	resp, err := c.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("%s: %d", url, resp.StatusCode)
	}
	if v == nil {
		v = &json.RawMessage{}
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		b.Fatalf("%s: %v", url, err)
	}
}
