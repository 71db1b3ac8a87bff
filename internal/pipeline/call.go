package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/scratch"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/textclip"
	"github.com/triage-dev/triage/internal/toolchain"
)

// maxCoverageFiles bounds the files a coverage summary lists.
const maxCoverageFiles = 30

// Call is one build or test call as the build and test tools make it: the
// project planned (here or on its host), the run captured into the store
// (whole, with an excerpt of the filtered log), a coverage report kept with
// the output, and the caller's answer stored with the verdict.
type Call struct {
	Tool  string // the store entry's tool
	Store *store.Store
	// Budget bounds the excerpt, in bytes.
	Budget int
	// Kind is toolchain.StepBuild or StepTest; Argv an explicit command
	// (nil plans from the project); Toolchain "" detects it.
	Kind, Toolchain string
	Argv            []string
	ProjectDir      string // absolute here; as given on a host
	Options         toolchain.Options
	Level           logfilter.Level
	Timeout         time.Duration
	// Stall ends a step that made no progress for that long (Request.Stall).
	Stall time.Duration
	// Limit names the limit Timeout is (Request.Limit).
	Limit string
	// Remote, when set, is the host the project is on.
	Remote *remote.Conn
	// Coverage is a coverage run's file filter: the path under the project
	// (or an absolute path in it) whose files the summary lists.
	Coverage string
	// Progress is told each progress line and the lines so far.
	Progress func(lines int64, msg string)
	// Memcheck says whether a crashed test whose crash looks like memory
	// corruption is rerun alone under valgrind memcheck (its Notify, when
	// nil, is the call's progress).
	Memcheck capture.Memcheck
	// Answer renders the finished call; what it returns is stored with the
	// output and its verdict.
	Answer func(*Called) any
	// Rooms, when set, hands out the directories the call needs, in a
	// directory this process holds (services.Set.WorkRooms); without it,
	// each is a scratch directory of its own.
	Rooms *scratch.Rooms

	removeCover func() // removes coverageDir's directory
	// repeatRun is the run's number in a repeat (repeat.go), 0 outside one.
	repeatRun int
	// repeatArgs go after a repeat's "go test" (-count, -cpu, -race);
	// repeatTail after its ctest (--repeat): runnerrepeat.go.
	repeatArgs, repeatTail []string
}

// Called is a finished call, for its answer.
type Called struct {
	Result    *Result
	Toolchain string // the toolchain used, or "command"
	// ProjectDir and Options are as planned: a host's directory, resolved.
	ProjectDir string
	Options    toolchain.Options
	// Output is what the capture kept.
	Output capture.Result
	// Coverage is a coverage run's summary, nil without one (see
	// Result.CoverageError).
	Coverage *coverage.Summary
}

// BuildOrTest plans and runs c. The error is a usage error when the plan
// cannot be made or a step cannot start, else the store's or a host's;
// everything that happens once steps run is in the answer. The result is
// what the store kept (its Err: a store write that failed).
func BuildOrTest(ctx context.Context, c Call) (capture.Result, error) {
	if err := c.onHost(ctx); err != nil {
		return capture.Result{}, err
	}
	defer c.removeCoverageDir()
	steps, tc, mkdir, err := c.plan()
	if err != nil {
		return capture.Result{}, err
	}
	// What the steps need first (a coverage directory, the last run's
	// counters gone) is readied while the output's store entry is made.
	ready := make(chan *prepared, 1)
	go func() {
		ready <- prepare(ctx, steps, c.ProjectDir, mkdir, c.Timeout)
	}()
	cp, err := capture.Open(ctx, c.Store, store.Meta{Tool: c.Tool, Argv: steps[len(steps)-1].Argv, Cwd: c.ProjectDir},
		capture.Options{Budget: c.Budget, Filtered: true})
	prep := <-ready
	if err != nil {
		return capture.Result{}, err
	}
	if steps[len(steps)-1].Coverage != nil {
		cp.ReserveFile(coverage.FileName)
	}
	req := c.request(ctx, steps, cp)
	req.prepared = prep
	// The last of the log is committed while the coverage data is read,
	// and the report is kept (a file beside the output) meanwhile too.
	closed := sync.OnceValue(cp.Close)
	req.logged = func() { go closed() }
	res, err := Run(ctx, req)
	if err != nil {
		cp.AbortWith(err.Error()) // the page shows why, not "No output."
		return capture.Result{}, capture.StartFailure(err)
	}
	// The coverage directory has served (the data read, a failed test
	// rerun): removed while the answer is made, and waited for on return.
	go c.removeCoverageDir()
	kept := make(chan *coverage.Summary, 1)
	go func() { kept <- c.keepCoverage(cp, res) }()
	called := &Called{Result: res, Toolchain: tc, ProjectDir: c.ProjectDir, Options: c.Options,
		Coverage: <-kept, Output: closed()}
	answer := c.Answer(called)
	return cp.FinishWith(ctx, store.Final{Status: string(res.Status), VerdictLine: res.Line, ExitCode: res.exitCode()}, answer), nil
}

// plan plans the call's steps. A toolchain that writes its coverage data
// into a directory of triage's (Go, cargo, clang; not gcc) is given one,
// which removeCoverageDir removes; mkdir is that directory when prepare
// is to make it, "" when it is made already or there is none.
func (c *Call) plan() (steps []toolchain.Step, tc, mkdir string, err error) {
	steps, tc, err = toolchain.Plan(c.Kind, c.Argv, c.Toolchain, c.ProjectDir, c.Options)
	if errors.Is(err, toolchain.ErrNoCoverageDir) {
		if mkdir, err = c.coverageDir(); err != nil {
			return nil, "", "", err
		}
		steps, tc, err = toolchain.Plan(c.Kind, c.Argv, c.Toolchain, c.ProjectDir, c.Options)
	}
	if err != nil {
		// an unknown toolchain, a directory that holds no project, an
		// option the toolchain cannot honour: the caller's to fix
		return nil, "", "", fault.Usage(err)
	}
	return c.repeatSteps(steps), tc, mkdir, nil
}

// request is the run of steps into cp.
func (c Call) request(ctx context.Context, steps []toolchain.Step, cp *capture.Capture) Request {
	keep := c.Store.CoreDir(cp.ID())
	var lines atomic.Int64 // the last progress's
	if c.Remote != nil {
		keep = "" // cores on the host stay there
	}
	return Request{
		Kind: c.Kind, Steps: steps, Level: c.Level, Timeout: c.Timeout, Stall: c.Stall, Limit: c.Limit,
		Raw: cp, RawID: cp.ID(), Filtered: cp.Filtered(), CoreDirs: []string{c.ProjectDir}, ProjectDir: c.ProjectDir, KeepCores: keep,
		Progress: func(p Progress) {
			msg := p.Message()
			lines.Store(p.Lines)
			if c.Progress != nil {
				c.Progress(p.Lines, msg)
			}
			cp.RecordProgress(msg)
		},
		Remote: c.Remote, Memcheck: c.memcheck(cp, &lines), Store: c.Store,
	}
}

// memcheck is the call's Memcheck, whose start the call's progress tells
// (at the lines so far: progress never goes back).
func (c Call) memcheck(cp *capture.Capture, lines *atomic.Int64) capture.Memcheck {
	m := c.Memcheck
	if m.Notify == nil {
		m.Notify = func(msg string) {
			if c.Progress != nil {
				c.Progress(lines.Load(), msg)
			}
			cp.RecordProgress(msg)
		}
	}
	return m
}

// onHost has planning read the project's files on its host (one snapshot
// of its directory). A directory the host lacks is the caller's mistake.
func (c *Call) onHost(ctx context.Context) error {
	if c.Remote == nil {
		return nil
	}
	snap, err := c.Remote.Snapshot(ctx, c.ProjectDir, toolchain.PlanFiles())
	var de *remote.DirError
	switch {
	case errors.As(err, &de):
		return fault.Usage(err)
	case err != nil:
		return err
	}
	c.ProjectDir, c.Options.Files = snap.Dir, snap
	return nil
}

// coverageDir gives a coverage run a directory of triage's own for the data
// it names (Go's profile, LLVM's raw profiles): a room of Rooms (the one
// made ahead, or a new name returned for prepare to make), or without
// Rooms a scratch directory made now. removeCoverageDir removes either; a
// room's removal has the next call's made ahead.
func (c *Call) coverageDir() (mkdir string, err error) {
	if c.Rooms != nil {
		dir, made := c.Rooms.Take()
		c.Options.CoverageDir = dir
		rooms := c.Rooms
		c.removeCover = sync.OnceFunc(func() {
			os.RemoveAll(dir)
			rooms.MakeAhead()
		})
		if made {
			return "", nil
		}
		return dir, nil
	}
	d, err := scratch.Dir("", "cover")
	if err != nil {
		return "", err
	}
	c.Options.CoverageDir, c.removeCover = d.Path, sync.OnceFunc(func() { d.Remove() })
	return "", nil
}

// removeCoverageDir removes the directory coverageDir gave, if any; a
// second call waits for the first.
func (c *Call) removeCoverageDir() {
	if c.removeCover != nil {
		c.removeCover()
	}
}

// keepCoverage keeps a coverage run's report with its output and
// summarises it; nil for a run without a report.
func (c Call) keepCoverage(cp *capture.Capture, res *Result) *coverage.Summary {
	if res.Coverage == nil {
		return nil
	}
	s := coverage.Summarize(res.Coverage, c.coverageFilter(), maxCoverageFiles)
	if err := cp.PutFile(coverage.FileName, res.Coverage.Write); err != nil {
		s.Report.Notes = append(s.Report.Notes, "the report could not be kept with the output: "+err.Error())
	}
	return &s
}

// coverageFilter is the path prefix the summary lists files under,
// relative to the project ("." for every file).
func (c Call) coverageFilter() string {
	f := c.Coverage
	if filepath.IsAbs(f) {
		if rel, err := filepath.Rel(c.ProjectDir, f); err == nil && !strings.HasPrefix(rel, "..") {
			f = filepath.ToSlash(rel)
		}
	}
	return f
}

// exitCode is the exit code of the step that decided the run.
func (r *Result) exitCode() int {
	if r.Failed != nil {
		return r.Failed.Outcome.Result.ExitCode
	}
	return 0
}

// Message is the progress line a call reports.
func (p Progress) Message() string {
	msg := fmt.Sprintf("step %d/%d %s: %s", p.Step, p.Steps, p.StepName, p.Command)
	if p.StepName == toolchain.StepTest && p.Passed+p.Failed > 0 {
		msg = fmt.Sprintf("step %d/%d test: %d passed, %d failed so far", p.Step, p.Steps, p.Passed, p.Failed)
	}
	return fmt.Sprintf("%s (%s, %s)", msg, textclip.Count(p.Lines, "line"), p.Elapsed.Round(time.Second))
}
