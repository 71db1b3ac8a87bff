package pipeline

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// Runners that repeat tests themselves, in one process.
const (
	runnerGo    = "go"    // go test -json -count=N: every run's events
	runnerCTest = "ctest" // ctest --repeat until-fail:N: every run's line
)

// testArgv is the argv of the call's test step as planned, nil when it
// cannot be planned here (BuildOrTest then says why).
func (c Call) testArgv() []string {
	if c.Remote != nil {
		return nil
	}
	steps, _, err := toolchain.Plan(c.Kind, c.Argv, c.Toolchain, c.ProjectDir, c.Options)
	if err != nil {
		return nil
	}
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].Name == toolchain.StepTest {
			return steps[i].Argv
		}
	}
	return nil
}

// isGoTest says whether argv is a go test.
func isGoTest(argv []string) bool { return len(argv) >= 2 && argv[0] == "go" && argv[1] == "test" }

// hasFlag says whether argv has the flag (-count, -count=3, --repeat).
func hasFlag(argv []string, flag string) bool {
	return slices.ContainsFunc(argv, func(a string) bool { return a == flag || strings.HasPrefix(a, flag+"=") })
}

// runnerOf is the runner that repeats argv's tests itself: go test with
// its events (-json) and no -count of the caller's, when each run need
// not stop the repeat and none runs beside another; ctest for
// until_fail. "" for triage's loop (a host's runs too: local only).
func runnerOf(argv []string, goTest bool, rp Repeat, local bool) string {
	switch {
	case !local || rp.Parallel > 1 || len(argv) == 0:
		return ""
	case goTest && !rp.UntilFail && slices.Contains(argv, "-json") && !hasFlag(argv, "-count"):
		return runnerGo
	case filepath.Base(argv[0]) == "ctest" && rp.UntilFail && !hasFlag(argv, "--repeat"):
		return runnerCTest
	}
	return ""
}

// goArgs are the stress options as go test's flags.
func (rp Repeat) goArgs() []string {
	var args []string
	if len(rp.CPU) > 0 {
		args = append(args, "-cpu="+strings.Join(rp.CPU, ","))
	}
	if rp.Race {
		args = append(args, "-race")
	}
	return args
}

// asked is the runs the repeat asks for: go test runs its tests once a
// -cpu value in each of its -count runs.
func (rp Repeat) asked(runner string) int {
	if runner == runnerGo && len(rp.CPU) > 0 {
		return rp.Times * len(rp.CPU)
	}
	return rp.Times
}

// repeatArgv is argv with the repeat's flags: after go test its -count
// (1 unless the runner repeats), -cpu and -race; after ctest its
// --repeat.
func (c *Call) repeatArgv(argv []string) []string {
	switch {
	case isGoTest(argv):
		args := slices.Clone(c.repeatArgs)
		if !hasFlag(argv, "-count") && !hasFlag(args, "-count") {
			args = append(args, "-count=1")
		}
		return slices.Insert(slices.Clone(argv), 2, args...)
	case len(argv) > 0 && filepath.Base(argv[0]) == "ctest" && len(c.repeatTail) > 0:
		return append(slices.Clone(argv), c.repeatTail...)
	}
	return argv
}

// repeatInRunner runs the repeat as one process of the runner's into out
// and tally. next is the run triage's loop goes on from, 0 when the
// repeat is done: after a go test binary died (a panic ends every run
// after it), the runs left run one process each.
func (c Call) repeatInRunner(ctx context.Context, rp Repeat, runner string, deadline time.Time, out *Repeated, tally *testreport.Tally) (next int, err error) {
	run := c
	run.repeatRun = 1
	asked := rp.asked(runner)
	what := fmt.Sprintf("go test -count=%d", rp.Times)
	if runner == runnerCTest {
		what = fmt.Sprintf("ctest --repeat until-fail:%d", rp.Times)
		run.repeatTail = []string{"--repeat", "until-fail:" + strconv.Itoa(rp.Times)}
	} else {
		run.repeatArgs = append([]string{"-count=" + strconv.Itoa(rp.Times)}, c.repeatArgs...)
	}
	if c.Progress != nil {
		run.Progress = func(lines int64, msg string) {
			c.Progress(lines, fmt.Sprintf("%d runs in one %s: %s", asked, what, msg))
		}
	}
	rr, err := run.repeatOnce(ctx)
	if err != nil {
		return 0, err
	}
	out.Runs, out.firsts = append(out.Runs, rr), append(out.firsts, 1)
	if !judged(rr.Called.Result, deadline) {
		out.Stopped = &out.Runs[len(out.Runs)-1]
		return 0, nil
	}
	runs, err := c.runnerRuns(ctx, runner, rr.Output.ID, asked)
	if err != nil {
		return 0, err
	}
	n := tallyRunner(runs, runner, rr, tally)
	tally.Say(fmt.Sprintf("runs 1 to %d ran in one %s (output %s)", n, what, rr.Output.ID))
	if runner != runnerGo || runs.Ended == 0 || n >= asked || ctx.Err() != nil {
		return 0, nil
	}
	tally.Say(fmt.Sprintf("its test binary died in run %d: runs %d to %d ran one go test each", n, n+1, asked))
	return n + 1, nil
}

// tallyRunner tallies a runner's runs, the first failure's last under
// until_fail (ctest goes on with the other tests; triage's loop would
// not have); the runs tallied.
func tallyRunner(runs testreport.RunnerRuns, runner string, rr RepeatRun, tally *testreport.Tally) int {
	res := rr.Called.Result
	format := testreport.FormatGoJSON
	if runner == runnerCTest {
		format = testreport.FormatCTest
	}
	n := runs.Count()
	for k := 1; k <= n; k++ {
		occ := runs.Run(k, format)
		for i := range occ {
			occ[i].Site = occurrenceSite(res, occ[i])
		}
		tally.Add(rr.Output.ID, occ)
		if runner == runnerCTest && len(occ) > 0 {
			return k
		}
	}
	return n
}

// occurrenceSite is the crash or stuck function of a runner's run's
// failure: the one crash or hang the process's verdict found, for the
// test it names.
func occurrenceSite(res *Result, o testreport.Occurrence) string {
	st, _, _ := strings.Cut(o.Kind, ":")
	if res.Crash != nil && res.Crash.Test != "" && res.Crash.Test != o.Name {
		return ""
	}
	return failureSite(res, testreport.Case{Name: o.Name, Status: testreport.Status(st)})
}

// runnerRuns reads the runs from the stored output id.
func (c Call) runnerRuns(ctx context.Context, runner, id string, asked int) (testreport.RunnerRuns, error) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(c.Store.WriteRaw(ctx, id, pw)) }()
	defer pr.Close()
	if runner == runnerCTest {
		return testreport.CTestRuns(pr)
	}
	return testreport.GoRuns(pr, asked)
}
