package testreport

import (
	"io"
	"regexp"
	"strings"

	"github.com/triage-dev/triage/internal/gotestjson"
)

// RunnerRuns are the runs of a runner's own repeat (`go test -count=N`,
// `ctest --repeat until-fail:N`) read from its one output: each test's
// outcomes in order, its k-th in run k.
type RunnerRuns struct {
	Tests []TestAttempts
	// Ended is the run in which a test binary died before its runs were
	// done (a panic, an exit, the -timeout alarm): no later run of its
	// happened. 0 when none did.
	Ended int
}

// TestAttempts is one test's outcomes, one case a run.
type TestAttempts struct {
	Attempts []Case
}

// Run is run k's (1-based) failures as a repeat's tally takes them, in
// the order the tests first appeared; none when all passed.
func (rr RunnerRuns) Run(k int, format string) []Occurrence {
	var occ []Occurrence
	for _, t := range rr.Tests {
		if k > len(t.Attempts) {
			continue
		}
		c := t.Attempts[k-1]
		if c.Status == Failed || c.Status == Errored || c.Status == Crashed {
			occ = append(occ, Occurrence{Test: c.Title(format), Name: c.Name, Kind: c.StatusText(), Message: c.Message})
		}
	}
	return occ
}

// Count is the runs the output holds: up to the run a binary died in,
// else the most any test had.
func (rr RunnerRuns) Count() int {
	if rr.Ended > 0 {
		return rr.Ended
	}
	n := 0
	for _, t := range rr.Tests {
		n = max(n, len(t.Attempts))
	}
	return n
}

// goRuns follows a `go test -json -count=N` stream test by test.
type goRuns struct {
	rr      RunnerRuns
	index   map[testKey]int // -> rr.Tests
	out     map[testKey]*strings.Builder
	running map[string][]string // package -> tests started, not ended
	panics  map[string]bool     // package -> its binary printed "panic: "
}

// GoRuns reads a `go test -json -count=N` (or -cpu list) output of runs
// runs: each test's pass, fail and skip events counted in order, its
// output between its run and its end for a failure's message; a package
// that ends while its tests run died in that run (crashed after a panic,
// else errored), and one whose tests ran fewer runs than asked ended in
// its last.
func GoRuns(r io.Reader, runs int) (RunnerRuns, error) {
	g := &goRuns{index: map[testKey]int{}, out: map[testKey]*strings.Builder{},
		running: map[string][]string{}, panics: map[string]bool{}}
	err := lines(r, g.line)
	for pkg := range g.running {
		g.died(pkg) // the output ended mid-run
	}
	last := map[string]int{} // package -> the runs its tests began
	for k, i := range g.index {
		last[k.pkg] = max(last[k.pkg], len(g.rr.Tests[i].Attempts))
	}
	for _, n := range last {
		if n < runs && (g.rr.Ended == 0 || n < g.rr.Ended) {
			g.rr.Ended = n
		}
	}
	return g.rr, err
}

func (g *goRuns) line(line string) {
	var ev gotestjson.Event
	if !strings.HasPrefix(line, "{") || gotestjson.DecodeString(line, &ev) != nil || ev.Package == "" {
		return
	}
	key := testKey{ev.Package, ev.Test}
	switch ev.Action {
	case "run":
		g.out[key] = &strings.Builder{}
		g.running[ev.Package] = append(g.running[ev.Package], ev.Test)
	case "output":
		// a panic ends the binary, the -timeout alarm's too (its test
		// errored: it did not end, as a hang does not)
		if out := strings.TrimLeft(ev.Output, " "); strings.HasPrefix(out, "panic: ") && !strings.HasPrefix(out, "panic: test timed out") {
			g.panics[ev.Package] = true
		}
		if b := g.out[key]; b != nil && ev.Test != "" && b.Len() < 8<<10 {
			b.WriteString(ev.Output)
		}
	case "pass", "fail", "skip":
		if ev.Test == "" {
			g.died(ev.Package)
			return
		}
		st := map[string]Status{"pass": Passed, "fail": Failed, "skip": Skipped}[ev.Action]
		if st == Failed && g.panics[ev.Package] {
			st = Crashed
		}
		g.end(key, st)
	}
}

// end adds the test's outcome of this run.
func (g *goRuns) end(key testKey, st Status) {
	i, ok := g.index[key]
	if !ok {
		i = len(g.rr.Tests)
		g.index[key] = i
		g.rr.Tests = append(g.rr.Tests, TestAttempts{})
	}
	c := Case{Suite: key.pkg, Name: key.test, Status: st}
	if b := g.out[key]; b != nil && st != Passed {
		goCaseMessage(&c, b.String())
	}
	delete(g.out, key)
	g.rr.Tests[i].Attempts = append(g.rr.Tests[i].Attempts, c)
	run := g.running[key.pkg]
	for j := len(run) - 1; j >= 0; j-- {
		if run[j] == key.test {
			g.running[key.pkg] = append(run[:j:j], run[j+1:]...)
			break
		}
	}
}

// died ends a package: tests still running died with its binary, in the
// run of the outermost of them; a panic (seen after its test ended,
// too) ends the package's runs where it came.
func (g *goRuns) died(pkg string) {
	run := g.running[pkg]
	delete(g.running, pkg)
	st := Errored
	if g.panics[pkg] {
		st = Crashed
	}
	ended := 0
	for _, t := range run {
		g.end(testKey{pkg, t}, st)
		if ended == 0 {
			ended = len(g.rr.Tests[g.index[testKey{pkg, t}]].Attempts)
		}
	}
	if ended == 0 && g.panics[pkg] {
		ended = g.lastRun(pkg)
	}
	if ended > 0 && (g.rr.Ended == 0 || ended < g.rr.Ended) {
		g.rr.Ended = ended
	}
}

// lastRun is the number of runs a package's tests began.
func (g *goRuns) lastRun(pkg string) int {
	n := 0
	for k, i := range g.index {
		if k.pkg == pkg {
			n = max(n, len(g.rr.Tests[i].Attempts))
		}
	}
	return n
}

// ctestRunLine is the result line of a run of a repeated test but the
// last, which ctest prints without its "2/3 " count.
var ctestRunLine = regexp.MustCompile(`^\s*Test\s+#\d+: `)

// CTestRuns reads the output of `ctest --repeat until-fail:N`, whose
// result line comes once a run of a test: its cases (ctest's own reader,
// one a line) grouped by test in order.
func CTestRuns(r io.Reader) (RunnerRuns, error) {
	var rr RunnerRuns
	var numbered strings.Builder
	if err := lines(r, func(line string) {
		if ctestRunLine.MatchString(line) {
			line = "0/0 " + strings.TrimLeft(line, " \t") // as the last run's line is
		}
		numbered.WriteString(line + "\n")
	}); err != nil {
		return rr, err
	}
	rep, err := Parse(FormatCTest, strings.NewReader(numbered.String()))
	if err != nil {
		return rr, err
	}
	index := map[string]int{}
	for _, c := range rep.Cases {
		i, ok := index[c.Name]
		if !ok {
			i = len(rr.Tests)
			index[c.Name] = i
			rr.Tests = append(rr.Tests, TestAttempts{})
		}
		rr.Tests[i].Attempts = append(rr.Tests[i].Attempts, c)
	}
	return rr, nil
}
