package logfilter

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// benchLog concatenates the corpus until it reaches size bytes.
func benchLog(b *testing.B, size int) []byte {
	b.Helper()
	var parts [][]byte
	for _, p := range corpus(b) {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		parts = append(parts, raw)
	}
	buf := make([]byte, 0, size+4<<20)
	for len(buf) < size {
		for _, p := range parts {
			buf = append(buf, p...)
		}
	}
	return buf
}

// BenchmarkStandard filters a 100 MB log made of the fixtures and, for
// comparison, times `grep -c -E 'error:|warning:|FAILED'` on the same bytes.
func BenchmarkStandard(b *testing.B) {
	log := benchLog(b, 100<<20)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	start := time.Now()
	var lines int64
	for b.Loop() {
		f := New(Standard, io.Discard)
		for p := log; len(p) > 0; {
			n := min(len(p), 64<<10)
			f.Write(p[:n])
			p = p[n:]
		}
		f.Close()
		lines += f.Summary().Lines
	}
	elapsed := time.Since(start)
	ours := float64(len(log)) * float64(b.N) / elapsed.Seconds() / 1e6
	b.ReportMetric(ours, "filter-MB/s")
	if lines > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(lines), "ns/line")
	}
	if grep := reportGrep(b, log); grep > 0 {
		b.ReportMetric(ours/grep, "ratio-vs-grep")
	}
}

// reportGrep times `grep -c -E` over log and reports (and returns) its
// throughput in MB/s; 0 when grep is missing or failed.
func reportGrep(b *testing.B, log []byte) float64 {
	grep, err := exec.LookPath("grep")
	if err != nil {
		b.Logf("grep not found; no comparison")
		return 0
	}
	path := filepath.Join(b.TempDir(), "bench.log")
	if err := os.WriteFile(path, log, 0o644); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	out, err := exec.Command(grep, "-c", "-E", "error:|warning:|FAILED", path).Output()
	if err != nil {
		b.Logf("grep: %v", err)
		return 0
	}
	d := time.Since(start)
	mbs := float64(len(log)) / d.Seconds() / 1e6
	b.ReportMetric(mbs, "grep-MB/s")
	b.Logf("grep -c counted %s lines in %v", strings.TrimSpace(string(out)), d)
	return mbs
}

// BenchmarkClassify measures the per-line classifier alone.
func BenchmarkClassify(b *testing.B) {
	log := benchLog(b, 8<<20)
	lines := bytes.Split(log, []byte("\n"))
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			classify(l)
		}
	}
}

// TestMemoryIsBounded streams 200 MB of generated log — every line a new
// diagnostic, so every table fills — and checks the heap stays flat.
func TestMemoryIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB")
	}
	const total = 200 << 20
	f := New(Standard, io.Discard)
	var chunk bytes.Buffer
	var ms runtime.MemStats
	var peak uint64
	written, i := 0, 0
	for written < total {
		chunk.Reset()
		for chunk.Len() < 1<<20 {
			i++
			fmt.Fprintf(&chunk, "src/file%d.c:%d:5: error: unknown identifier 'v%d'\n    x = v%d;\n      ^\n", i%977, i, i, i)
			fmt.Fprintf(&chunk, "warning: generated warning number %d\n", i)
			chunk.WriteString("    /usr/bin/clang -x c -c src/file.c -o file.o -Wall -Wextra -O2 -g -fno-omit-frame-pointer\n")
			fmt.Fprintf(&chunk, "Test Case '-[Suite test%d]' passed (0.001 seconds).\n", i)
		}
		if i%7 == 0 {
			chunk.WriteString(strings.Repeat("x", 3*MaxLineBytes)) // an endless line
			chunk.WriteByte('\n')
		}
		written += chunk.Len()
		if _, err := f.Write(chunk.Bytes()); err != nil {
			t.Fatal(err)
		}
		if written%(20<<20) < 1<<20 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	s := f.Summary()
	if s.Errors == 0 || len(s.Diagnostics) != MaxDiagnostics || !s.DiagnosticsTruncated {
		t.Errorf("summary: %d errors, %d diagnostics, truncated=%v", s.Errors, len(s.Diagnostics), s.DiagnosticsTruncated)
	}
	const limit = 24 << 20
	if peak > limit {
		t.Errorf("heap in use peaked at %d MB streaming %d MB; want under %d MB", peak>>20, written>>20, limit>>20)
	}
	t.Logf("streamed %d MB, %d lines; peak heap in use %.1f MB", written>>20, s.Lines, float64(peak)/(1<<20))
}
