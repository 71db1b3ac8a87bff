// Command benchreport runs triage's benchmark suite and writes the
// performance report: `make bench` (every benchmark, five runs each, into
// docs/PERFORMANCE.md) and `make bench-quick` (a reduced set for CI, into a
// file outside docs/, failing when a figure is worse than twice its target).
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/benchreport"
	"github.com/triage-dev/triage/internal/spawn"
)

func main() {
	quick := flag.Bool("quick", false, "run the reduced suite (one run, less data) and fail on a figure worse than 2× its target")
	count := flag.Int("count", 0, "runs per benchmark (default 5, quick 1)")
	out := flag.String("out", "", "report file (default docs/PERFORMANCE.md, quick bin/bench-quick.md)")
	fixtures := flag.String("fixtures", "../shared/fixtures", "shared fixture logs")
	flag.Parse()
	if *count == 0 {
		*count = 5
		if *quick {
			*count = 1
		}
	}
	if *out == "" {
		*out = "docs/PERFORMANCE.md"
		if *quick {
			*out = "bin/bench-quick.md"
		}
	}
	code, err := run(context.Background(), *quick, *count, *out, *fixtures)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

// runSuite runs the suite's benchmarks (the quick ones when quick) into
// res, and returns the packages it ran, the benchmarks that were skipped
// with why, and whether any run failed (each failure is in rep.Failures).
func runSuite(ctx context.Context, quick bool, count int, rep *benchreport.Report, res benchreport.Results) (ran []benchreport.Package, skips map[string]string, failed bool) {
	skips = map[string]string{}
	for _, p := range benchreport.Suite {
		if quick && !p.Quick {
			continue
		}
		ran = append(ran, p)
		args := []string{"test", "-run", "^$", "-bench", p.Bench, "-count", strconv.Itoa(count), "-timeout", "60m"}
		bt := p.Benchtime
		if quick {
			bt = p.QuickBenchtime
		}
		if bt != "" {
			args = append(args, "-benchtime", bt)
		}
		args = append(args, p.Dir)
		env := map[string]string{}
		if quick && p.QuickBytes > 0 {
			env["TRIAGE_BENCH_BYTES"] = strconv.Itoa(p.QuickBytes)
		}
		fmt.Fprintf(os.Stderr, "== go %s\n", strings.Join(args, " "))
		var buf bytes.Buffer
		if err := command(ctx, env, io.MultiWriter(&buf, os.Stderr), "go", args...); err != nil {
			failed = true
			rep.Failures = append(rep.Failures, fmt.Sprintf("go %s: %v\n%s", strings.Join(args, " "), err, tail(buf.String(), 30)))
		}
		for _, s := range res.Add(p.Dir, &buf) {
			skips[s.Key] = s.Reason
		}
	}
	return ran, skips, failed
}

func run(ctx context.Context, quick bool, count int, out, fixtures string) (int, error) {
	rep := &benchreport.Report{Date: time.Now(), Machine: machine(ctx), Runs: count, Quick: quick}
	tmp, err := os.MkdirTemp("", "benchreport-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	triage := filepath.Join(tmp, "triage")
	if err := command(ctx, nil, os.Stderr, "go", "build", "-o", triage, "./cmd/triage"); err != nil {
		return 0, fmt.Errorf("building triage: %w", err)
	}

	res := benchreport.Results{}
	if err := budgets(ctx, triage, rep, res); err != nil {
		return 0, err
	}
	rep.Fixtures, rep.FixturesNote = fixtureSizes(ctx, triage, fixtures)

	ran, skips, failed := runSuite(ctx, quick, count, rep, res)
	// The quick suite judges only what it measured.
	var figs []benchreport.Figure
	for _, f := range benchreport.Figures {
		if f.Key == benchreport.TokensKey || slices.ContainsFunc(ran, func(p benchreport.Package) bool { return p.Runs(f.Key) }) {
			figs = append(figs, f)
		}
	}
	rep.Rows = benchreport.Evaluate(figs, res, skips)

	doc := rep.Render()
	if !quick {
		old, err := os.ReadFile(out)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return 0, err
		}
		doc = benchreport.Merge(string(old), doc)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(out, []byte(doc), 0o644); err != nil {
		return 0, err
	}
	fmt.Fprintf(os.Stderr, "\nwrote %s\n", out)
	return verdict(rep, quick, failed), nil
}

// verdict prints every figure that missed its target and returns the exit
// status: 1 when a benchmark failed, or, for the quick suite, when a figure
// is worse than twice its target or (in CI, where every tool is installed)
// was not measured.
func verdict(rep *benchreport.Report, quick, failed bool) int {
	code := 0
	if failed {
		code = 1
	}
	ci := os.Getenv("CI") != ""
	for _, row := range rep.Rows {
		switch row.Verdict {
		case benchreport.Missed:
			fmt.Fprintf(os.Stderr, "missed: %s: %g (target %s)\n", row.Title, row.Check.Median, row.TargetText())
		case benchreport.Regression:
			fmt.Fprintf(os.Stderr, "worse than 2× the target: %s: %g (target %s)\n", row.Title, row.Check.Median, row.TargetText())
			if quick {
				code = 1
			}
		case benchreport.NotMeasured:
			if row.Op == "" {
				continue
			}
			fmt.Fprintf(os.Stderr, "not measured: %s: %s\n", row.Title, row.Why)
			if quick && ci {
				code = 1
			}
		}
	}
	return code
}

// command runs argv with env overrides, its output into w.
func command(ctx context.Context, env map[string]string, w io.Writer, name string, args ...string) error {
	res, err := spawn.Run(ctx, spawn.Spec{Argv: append([]string{name}, args...), Env: env, Stdout: w, Stderr: w, Timeout: 90 * time.Minute})
	if err != nil {
		return err
	}
	if !res.Success() {
		return errors.New(res.String())
	}
	return nil
}

func tail(s string, lines int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-lines):], "\n")
}

// machine describes this machine from /proc and the Go toolchain.
func machine(ctx context.Context) benchreport.Machine {
	m := benchreport.Machine{Cores: runtime.NumCPU(), CPU: "unknown CPU", Kernel: runtime.GOOS, GoVersion: runtime.Version()}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(data))
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(data)); len(f) >= 3 {
			m.Load = strings.Join(f[:3], " ")
		}
	}
	var v bytes.Buffer
	if command(ctx, nil, &v, "go", "env", "GOVERSION") == nil {
		m.GoVersion = strings.TrimSpace(v.String())
	}
	return m
}
