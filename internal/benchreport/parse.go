// Package benchreport turns `go test -bench` output into docs/PERFORMANCE.md:
// it parses the benchmark lines (custom metrics included), takes the median
// and range of each metric over the runs, judges each figure against its
// target and renders the report, keeping the hand-written part of the
// existing document. cmd/benchreport runs the suite and calls it.
package benchreport

import (
	"bufio"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Results holds every sample of every metric: Results[key][metric] is one
// value per run, where key is "PKG BenchmarkName/sub" (PKG as passed to Add).
type Results map[string]map[string][]float64

// Skip says why a benchmark did not run (its `--- SKIP` message).
type Skip struct {
	Key, Reason string
}

// Key names a benchmark of a package.
func Key(pkg, bench string) string { return pkg + " " + bench }

// Add parses `go test -bench` output of package pkg and adds its samples. It
// returns the benchmarks that were skipped, with their reason.
func (r Results) Add(pkg string, out io.Reader) []Skip {
	var skips []Skip
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	pendingSkip := -1
	for sc.Scan() {
		line := sc.Text()
		if pendingSkip >= 0 {
			if msg, ok := strings.CutPrefix(line, "    "); ok && skips[pendingSkip].Reason == "" {
				skips[pendingSkip].Reason = strings.TrimSpace(afterFileLine(msg))
			}
			pendingSkip = -1
		}
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "--- SKIP: "); ok {
			name, _, _ = strings.Cut(name, " ")
			skips = append(skips, Skip{Key: Key(pkg, name)})
			pendingSkip = len(skips) - 1
			continue
		}
		name, metrics, ok := parseLine(line)
		if !ok {
			continue
		}
		key := Key(pkg, name)
		if r[key] == nil {
			r[key] = map[string][]float64{}
		}
		for unit, v := range metrics {
			r[key][unit] = append(r[key][unit], v)
		}
	}
	return skips
}

// afterFileLine drops the "file_test.go:12: " prefix of a log line.
func afterFileLine(s string) string {
	if file, rest, ok := strings.Cut(s, ": "); ok && strings.Contains(file, ".go:") {
		return rest
	}
	return s
}

// parseLine parses "BenchmarkX/sub-2  10  123 ns/op  4.5 unit ..." into the
// name without the GOMAXPROCS suffix and its metrics by unit.
func parseLine(line string) (string, map[string]float64, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
		return "", nil, false
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return "", nil, false
	}
	name := f[0]
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	metrics := map[string]float64{}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return "", nil, false
		}
		metrics[f[i+1]] = v
	}
	return name, metrics, true
}

// Stat is the median and range of a metric's samples.
type Stat struct {
	Median, Min, Max float64
	N                int
}

// Summarize returns the Stat of samples; ok is false when there are none.
func Summarize(samples []float64) (Stat, bool) {
	if len(samples) == 0 {
		return Stat{}, false
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Stat{Median: med, Min: s[0], Max: s[len(s)-1], N: len(s)}, true
}
