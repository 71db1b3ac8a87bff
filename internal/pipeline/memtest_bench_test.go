package pipeline

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/memcheck"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
	"github.com/triage-dev/triage/internal/toolchain"
)

// workProject is a small C project under CTest whose one test, t_work,
// computes for a while (13 million additions over a 512 KiB array, a few
// tens of milliseconds) and then overruns a 24-byte heap block (label, at
// t_work.c:4); the next malloc dies of it ("malloc(): corrupted top
// size", SIGABRT), so the crash looks like memory corruption.
var workProject = map[string]string{
	"CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(work C)\nenable_testing()\nset(CMAKE_C_FLAGS \"-g -O0\")\n" +
		"add_executable(t_work t_work.c)\nadd_test(NAME t_work COMMAND t_work)\n",
	"t_work.c": `#include <stdio.h>
#include <stdlib.h>
char *label(size_t n) {
	char *p = malloc(24);
	for (size_t i = 0; i < n; i++)
		p[i] = 'A';
	return p;
}
int main(void) {
	size_t n = 1 << 16;
	long *a = calloc(n, sizeof *a), s = 0;
	for (int r = 0; r < 200; r++)
		for (size_t i = 0; i < n; i++)
			a[i] = a[i] * 3 + (long)i, s += a[i];
	char *l = label(40);
	long *t = malloc(4000);
	printf("%ld %c %p\n", s, l[0], (void *)t);
	return 0;
}
`,
}

// BenchmarkMemcheckRerun is the automatic rerun of a crashed test under
// memcheck (memtest.go) on workProject. Each iteration is the whole test
// call (configure, build: nothing to do, ctest, the rerun), then the same
// test program alone, as the rerun ran it (argv, directory, environment;
// no core). The metrics: the rerun's time (memcheck-ms, valgrind's start
// included), the program's own (test-ms), and their ratio, the median of
// each iteration's (ratio). CTest's own measure of a test is in steps of
// 10 ms, too coarse for the ratio.
func BenchmarkMemcheckRerun(b *testing.B) {
	nativeprojects.Need(b, "cmake", "ctest", "cc", "valgrind")
	dir := nativeprojects.Write(b, workProject)
	steps, err := toolchain.TestPlan(toolchain.CMake, dir, toolchain.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	rerun := func() (alone, checked time.Duration) {
		res, err := Run(ctx, Request{Kind: KindTest, Steps: steps, ProjectDir: dir, CoreDirs: []string{dir}})
		if err != nil {
			b.Fatal(err)
		}
		if res.Crash == nil {
			b.Fatalf("the test did not crash: %s", res.Line)
		}
		m := res.Crash.Memcheck
		if m == nil || m.Result == nil || m.Result.Outcome != memcheck.Found {
			b.Fatalf("no memcheck report of the crashed test: %+v", m)
		}
		sr, _ := res.testStep()
		opts, _, err := testRerunOptions(ctx, sr, res.Report, res.Crash)
		if err != nil {
			b.Fatal(err)
		}
		p, err := spawn.Run(ctx, spawn.Spec{Argv: opts.Argv, Dir: opts.Dir, Env: opts.Env})
		if err != nil || !p.Signaled {
			b.Fatalf("the test program alone: %+v %v", p, err)
		}
		return p.Duration, m.Took
	}
	rerun() // the build, outside the measure
	var alone, checks, ratios []float64
	for b.Loop() {
		test, checked := rerun()
		alone, checks = append(alone, ms(test)), append(checks, ms(checked))
		ratios = append(ratios, float64(checked)/float64(test))
	}
	b.ReportMetric(median(alone), "test-ms")
	b.ReportMetric(median(checks), "memcheck-ms")
	b.ReportMetric(median(ratios), "ratio")
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
