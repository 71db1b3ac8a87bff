package store

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// benchBytes is the output size of the capture and search benchmarks:
// TRIAGE_BENCH_BYTES, default 1 GiB.
func benchBytes() int64 {
	if v, err := strconv.ParseInt(os.Getenv("TRIAGE_BENCH_BYTES"), 10, 64); err == nil && v > 0 {
		return v
	}
	return 1 << 30
}

// logBlock is 1 MiB of build-log-like lines with a rare error line.
func logBlock(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < 1<<20; i++ {
		if i%5000 == 17 {
			fmt.Fprintf(&b, "src/module_%d.c:%d:5: error: use of undeclared identifier 'boom_%d'\n", n, i, i)
			continue
		}
		fmt.Fprintf(&b, "[%6d/999999] Compiling src/module_%d/file_%d.c -o build/obj/file_%d.o -O2 -g\n", i, n, i, i)
	}
	return b.Bytes()
}

// BenchmarkCapture streams benchBytes of output into a file-backed store.
// Target: >= 300 MB/s with bounded memory (peak heap reported).
func BenchmarkCapture(b *testing.B) {
	ctx := context.Background()
	size := benchBytes()
	block := logBlock(0)
	s := open(b, filepath.Join(b.TempDir(), "bench.db"), Options{})
	var peak uint64
	b.SetBytes(size)
	for b.Loop() {
		w, err := s.Create(ctx, Meta{Tool: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		for written := int64(0); written < size; written += int64(len(block)) {
			if _, err := w.Write(block); err != nil {
				b.Fatal(err)
			}
			if written%(64<<20) == 0 {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
		}
		if err := w.Finish(ctx, Final{Status: "success"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// BenchmarkSearch searches a stored benchBytes output and the same bytes on disk
// with `grep -E -c`, and reports the ratio. Target: ratio <= 3.
func BenchmarkSearch(b *testing.B) {
	if _, err := exec.LookPath("grep"); err != nil {
		b.Skip("grep not found")
	}
	ctx := context.Background()
	dir := b.TempDir()
	s := open(b, filepath.Join(dir, "bench.db"), Options{})
	f, _ := os.Create(filepath.Join(dir, "raw.log"))
	w, _ := s.Create(ctx, Meta{Tool: "bench"})
	size := benchBytes()
	for i, written := 0, int64(0); written < size; i++ {
		block := logBlock(i % 8)
		w.Write(block)
		f.Write(block)
		written += int64(len(block))
	}
	w.Finish(ctx, Final{})
	f.Close()
	for _, bc := range []struct{ name, pattern string }{
		{"prefix", `error: use of undeclared identifier 'boom_[0-9]+'`},
		{"inner", `[0-9]+:5: error: use of`},
		{"alternation", `undeclared identifier|segmentation fault`},
		{"fold", `(?i)UNDECLARED identifier`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchSearch(b, s, w.ID(), filepath.Join(dir, "raw.log"), bc.pattern, size)
		})
	}
}

func benchSearch(b *testing.B, s *Store, id, raw, pattern string, size int64) {
	ctx := context.Background()
	grepPattern, grepFlags := pattern, "-cE"
	if p, ok := strings.CutPrefix(pattern, "(?i)"); ok {
		grepPattern, grepFlags = p, "-icE"
	}
	var ours, grep time.Duration
	var total int
	b.SetBytes(size)
	for b.Loop() {
		start := time.Now()
		res, err := s.Search(ctx, Query{ID: id, Pattern: pattern})
		if err != nil {
			b.Fatal(err)
		}
		ours += time.Since(start)
		total = res.Total
		start = time.Now()
		out, err := exec.Command("grep", grepFlags, grepPattern, raw).Output()
		if err != nil {
			b.Fatal(err)
		}
		grep += time.Since(start)
		if n, _ := strconv.Atoi(string(bytes.TrimSpace(out))); n != total {
			b.Fatalf("search counted %d matches, grep %d", total, n)
		}
	}
	b.ReportMetric(float64(ours.Microseconds())/1000/float64(b.N), "search-ms")
	b.ReportMetric(float64(ours)/float64(grep), "ratio-vs-grep")
	b.ReportMetric(float64(grep.Microseconds())/1000/float64(b.N), "grep-ms")
}
