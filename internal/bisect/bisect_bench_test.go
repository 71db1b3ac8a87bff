package bisect_test

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/bisect"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/testutil"
)

// benchCommits is the history's length, benchBad its first bad commit.
const (
	benchCommits = 64
	benchBad     = 41
)

// benchProject is a small project whose history the benchmark bisects:
// the files of commit i (bad from benchBad on), and the commands that
// test one revision as triage's plan does, run by hand in a directory of
// their own (the configure only where it has not run, as in triage's
// build directory, which a CMake configure reuses).
type benchProject struct {
	files func(i int, bad bool) map[string]string
	tools []string
	// runs are the commands of one step, given the source and build
	// directories; each is one argv.
	runs func(src, build string) [][]string
}

var benchProjects = map[string]benchProject{
	"go": {tools: []string{"go"},
		files: func(i int, bad bool) map[string]string {
			op := "+"
			if bad {
				op = "-"
			}
			return map[string]string{
				"go.mod":       "module example.com/calc\n\ngo 1.21\n",
				"calc.go":      fmt.Sprintf("package calc\n\n// Version is the revision.\nconst Version = %d\n\n// Add adds.\nfunc Add(a, b int) int { return a %s b }\n", i, op),
				"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d, want 5\", got)\n\t}\n}\n",
			}
		},
		runs: func(string, string) [][]string { return [][]string{{"go", "test", "-json", "./..."}} }},
	"cmake": {tools: []string{"cmake", "ctest", "gcc"},
		files: func(i int, bad bool) map[string]string {
			want := 6
			if bad {
				want = 7
			}
			return map[string]string{
				"CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(twice C)\nenable_testing()\nadd_executable(t_twice t_twice.c)\nadd_test(NAME twice COMMAND t_twice)\n",
				"t_twice.c":      fmt.Sprintf("// revision %d\nstatic int twice(int n) { return n * 2; }\nint main(void) { return twice(3) != %d; }\n", i, want),
			}
		},
		runs: func(src, build string) [][]string {
			return [][]string{{"cmake", "-S", src, "-B", build, "-DCMAKE_BUILD_TYPE=Debug"}, {"cmake", "--build", build, "--config", "Debug"},
				{"ctest", "--output-on-failure", "-C", "Debug"}}
		}},
}

// BenchmarkBisect64: a bisect over 64 commits of a small Go module and of
// a small CMake project (the first bad commit 41) takes at most
// ⌈log2(64)⌉ + 2 steps, each one test run with its build; its time is set
// against those steps' own commands run by hand at the same revisions in
// a checkout of their own (the toolchain's time, checkouts aside), and
// overhead-% is what the bisect takes beyond them (the target is
// 5%): the worktree, each checkout, the store, the verdicts, the commit's
// diff. The two are alternated, each in a fresh directory, so neither
// reuses what the other built (a first bisect, untimed, warms the
// toolchain's caches of both); the overhead is the median over the pairs,
// each bisect against the runs beside it, which a loaded machine's drift
// moves less than the medians' difference.
func BenchmarkBisect64(b *testing.B) {
	for _, name := range []string{"go", "cmake"} {
		b.Run(name, func(b *testing.B) {
			p := benchProjects[name]
			for _, tool := range p.tools {
				if _, err := exec.LookPath(tool); err != nil {
					b.Skip(tool + " is not installed")
				}
			}
			g := newRepo(b)
			for i := range benchCommits {
				g.commit(fmt.Sprintf("commit %d", i), p.files(i, i >= benchBad))
			}
			st := openStore(b)
			req := bisect.Request{ProjectDir: g.dir, Good: g.hashes[0], What: bisect.WhatTest,
				Call: pipeline.Call{Tool: "bisect", Store: st, Budget: 8 << 10, Level: logfilter.Standard, Timeout: 5 * time.Minute}}
			var ours, theirs []time.Duration
			var revs []string // the last bisect's steps, which the next runs by hand
			bisectOnce := func() {
				start := time.Now()
				rep, err := bisect.Run(context.Background(), req)
				if err != nil || rep.First == nil || rep.First.Hash != g.hashes[benchBad] {
					b.Fatalf("bisect: %v\n%+v", err, rep)
				}
				ours = append(ours, time.Since(start))
				revs = nil
				for _, s := range rep.Steps {
					revs = append(revs, s.Revision)
				}
			}
			bisectOnce() // the steps the runs by hand take
			ours = nil
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 { // neither side always runs on what the other left
					bisectOnce()
					theirs = append(theirs, runByHand(b, g, p, revs))
				} else {
					theirs = append(theirs, runByHand(b, g, p, revs))
					bisectOnce()
				}
			}
			steps := len(revs)
			if limit := bits.Len(benchCommits-1) + 2; steps > limit {
				b.Errorf("%d steps, want at most ⌈log2(%d)⌉ + 2 = %d", steps, benchCommits, limit)
			}
			mo, mt := testutil.Median(ours), testutil.Median(theirs)
			b.ReportMetric(float64(steps), "steps")
			b.ReportMetric(float64(mo.Microseconds())/1000, "bisect-ms")
			b.ReportMetric(float64(mt.Microseconds())/1000, "runs-ms")
			b.ReportMetric(pairedOverhead(ours, theirs), "overhead-%")
		})
	}
}

// runByHand runs p's commands of each revision of revs, in order, in a
// checkout of g of its own, and gives the time they took (the checkouts
// untimed).
func runByHand(b *testing.B, g *gitRepo, p benchProject, revs []string) time.Duration {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "src")
	g.git("worktree", "add", "-q", "--detach", dir, revs[0])
	defer g.git("worktree", "remove", "--force", dir)
	build := filepath.Join(dir, "build")
	var took time.Duration
	for _, rev := range revs {
		checkout := exec.Command("git", "checkout", "-q", "--detach", rev)
		checkout.Dir = dir
		if out, err := checkout.CombinedOutput(); err != nil {
			b.Fatalf("git checkout %s: %v\n%s", rev, err, out)
		}
		for _, argv := range p.runs(dir, build) {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = dir
			if argv[0] == "ctest" {
				cmd.Dir = build
			}
			start := time.Now()
			err := cmd.Run() // a failing test's exit is the bad revision's
			took += time.Since(start)
			if _, failed := err.(*exec.ExitError); err != nil && !failed {
				b.Fatalf("%v: %v", argv, err)
			}
		}
	}
	if err := os.RemoveAll(build); err != nil {
		b.Fatal(err)
	}
	return took
}

// pairedOverhead is the median, over the pairs, of how much longer ours
// took than theirs, in percent.
func pairedOverhead(ours, theirs []time.Duration) float64 {
	var pct []float64
	for i := range min(len(ours), len(theirs)) {
		pct = append(pct, float64(ours[i]-theirs[i])*100/float64(theirs[i]))
	}
	if len(pct) == 0 {
		return 0
	}
	slices.Sort(pct)
	return pct[len(pct)/2]
}
