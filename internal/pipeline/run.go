// Package pipeline runs a build or test plan (internal/toolchain) and says
// truthfully how it went.
//
// Each step of the plan runs crash-aware through internal/capture. Its
// combined output streams, in one pass, into the raw log (the output store),
// the log filter (internal/logfilter, whose kept lines go to the filtered
// log) and, for a test step, the test-output parser (internal/testreport,
// fed through a pipe so that a log of any size is parsed as it arrives).
// Steps run in order; the first non-test step that fails ends the run (a
// test step's failure is the result itself).
//
// A Result carries one verdict line, first thing a reader sees:
//
//	BUILD SUCCEEDED (0 warnings)        BUILD FAILED: 2 errors: src/lib.rs:485:29: error[E0308]: …
//	TESTS PASSED: 412 passed, 3 skipped TESTS FAILED: 3 of 412 failed
//	CRASHED: test binary SIGSEGV in f at a.c:5 while running crash_test
//	NO TESTS RAN: filter -run=TestX matched nothing
//	FAILED (exit 2) but no failing test was reported — see output
//
// Only the first two of the second column, and the first of the first, are
// successes: a test run in which nothing ran, or whose exit status says
// failure while no failure was parsed, is never reported as passing.
//
// When a test process crashed under the runner (ctest, cargo and go test
// survive their children), the core it left is looked for where cores land
// and backtraced; the test that was running is named from the report.
//
// The same pipeline reads a finished log (Analyze), for `triage filter`.
package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"time"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/remote"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/tick"
	"github.com/triage-dev/triage/internal/toolchain"
	"github.com/triage-dev/triage/internal/verdict"
)

// Kind of run.
const (
	KindBuild = "build"
	KindTest  = "test"
)

// Request describes a build or test run.
type Request struct {
	Kind  string           // KindBuild or KindTest
	Steps []toolchain.Step // run in order; for a test run the test step is last
	Level logfilter.Level
	// Timeout bounds the whole run (every step); 0 means none.
	Timeout time.Duration
	// Stall, when positive, ends a step whose process group made no
	// progress for that long (capture.Request.Stall): a test deadlocked
	// under a long Timeout ends HUNG instead of waiting it out.
	Stall time.Duration
	// Limit names the limit Timeout is, for a timed-out run's verdict
	// (capture.NameLimit); "" names none.
	Limit string
	// Raw receives the raw output of every step, each preceded by a
	// "$ command" line; nil discards it. RawID names where it is stored,
	// for hints.
	Raw   io.Writer
	RawID string
	// Filtered receives the filtered log as it streams; nil discards it.
	Filtered io.Writer
	// Progress, when set, is called as each step starts and about once a
	// second while one runs, from another goroutine.
	Progress func(Progress)
	// ProgressInterval overrides the one-second interval (tests).
	ProgressInterval time.Duration
	// CoreDirs are further directories where a crashed test's core may
	// land (the project directory); each step's directory is looked in too.
	CoreDirs []string
	// ProjectDir is the project's directory: a crash is reported at the
	// first frame in its code (see crashsite).
	ProjectDir string
	// KeepCores, when set, is the directory where the cores a run leaves in
	// the user's tree (CoreDirs, each step's directory) are moved. Cores on
	// a host stay there.
	KeepCores string
	// Remote, when set, runs the steps on that host: the steps' paths, the
	// report files, the cores and ProjectDir are the host's.
	Remote *remote.Conn
	// Memcheck says whether a test whose crash looks like memory
	// corruption is rerun alone under valgrind memcheck (memtest.go), and
	// Store keeps valgrind's XML (nil: not kept).
	Memcheck capture.Memcheck
	Store    *store.Store
	// prepared, when set, is what prepare readied for these steps
	// (BuildOrTest's), which Run then does not do again.
	prepared *prepared
	// logged, when set, is called once the steps have ended and all their
	// output is written to Raw and Filtered, before coverage is read: the
	// log can be committed meanwhile (BuildOrTest's).
	logged func()
}

// StepResult is how one step went.
type StepResult struct {
	Step    toolchain.Step   `json:"step"`
	Outcome *capture.Outcome `json:"-"`
	// Ran is false for steps not run because an earlier one failed.
	Ran bool `json:"ran"`
	// coresSeen counts the core files seen written while it ran
	// (stepcores.go).
	coresSeen int
	// progs are its tests' programs as its runner names them, read once
	// it failed (progsRead): StepResult.programs.
	progs     testPrograms
	progsRead bool
}

// ErrNoSteps is returned by Run for a request without steps.
var ErrNoSteps = errors.New("running a plan: no steps")

// Run runs the plan. The error is non-nil only when a step could not be
// started (a *spawn.StartError, for the caller to explain), the request is
// malformed, or a coverage run lacks what reads its data (an unavailable
// error saying what to install); everything that happens once steps run is
// in the Result.
func Run(ctx context.Context, req Request) (*Result, error) {
	if len(req.Steps) == 0 {
		return nil, ErrNoSteps
	}
	outer := ctx // the memcheck rerun has its own limit, not the run's
	ctx, cancel := withLimit(ctx, req.Timeout)
	defer cancel()
	filtered := cmp.Or[io.Writer](req.Filtered, io.Discard)
	res := &Result{Kind: req.Kind, RawID: req.RawID, limit: req.Limit}
	prep := req.prepared
	if prep == nil {
		prep = prepare(ctx, req.Steps, req.ProjectDir, "", 0) // ctx bounds it
	}
	if prep.err != nil {
		return nil, prep.err
	}
	tools := prep.tools
	p := &pipeline{raw: req.Raw, filter: logfilter.New(req.Level, filtered), count: newCounter()}
	start := time.Now()
	early := readCoverageEarly(req) // started as the last step's process exits
	for i, step := range req.Steps {
		var onExit func()
		if i == len(req.Steps)-1 && early != nil {
			onExit = early.start
		}
		sr, err := runStep(ctx, req, p, i, start, onExit)
		if err != nil {
			p.filter.Close()
			return nil, err
		}
		res.Steps = append(res.Steps, sr)
		if step.Name == toolchain.StepTest {
			res.testStepDone(ctx, p, sr, req)
		}
		res.collectStepCores(ctx, req, sr) // stepcores.go
		if !sr.Outcome.Result.Success() && step.Name != toolchain.StepTest {
			for _, rest := range req.Steps[i+1:] {
				res.Steps = append(res.Steps, StepResult{Step: rest})
			}
			break
		}
	}
	if err := p.filter.Close(); err != nil {
		res.Notes = append(res.Notes, err.Error())
	}
	if p.rawErr != nil {
		res.Notes = append(res.Notes, p.rawErr.Error())
	}
	res.Log = p.filter.Summary()
	if req.logged != nil {
		req.logged()
	}
	res.Duration = time.Since(start)
	res.conclude()
	res.collectCoverage(ctx, req, tools, res.Steps[len(res.Steps)-1].Ran, early)
	res.failedPath(ctx, req, tools) // what the first failed test ran: failedpath.go
	res.memcheckCrash(outer, req)   // the crashed test alone under memcheck: memtest.go
	return res, nil
}

// withLimit is ctx bounded by limit, when there is one.
func withLimit(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	if limit > 0 {
		return context.WithTimeout(ctx, limit)
	}
	return ctx, func() {}
}

// runStep runs one step, its output streaming through p.
func runStep(ctx context.Context, req Request, p *pipeline, i int, start time.Time, onExit func()) (StepResult, error) {
	step := req.Steps[i]
	header := fmt.Sprintf("$ %s\n", step.CommandLine())
	if i > 0 {
		header = "\n" + header
	}
	if req.Raw != nil && p.rawErr == nil {
		if _, err := io.WriteString(req.Raw, header); err != nil {
			p.rawErr = fmt.Errorf("storing the raw log: %w", err)
		}
	}
	if step.ReportFile != "" {
		// A report left by an earlier run must not pass for this one's.
		removeReport(ctx, req.Remote, step.ReportFile)
	}
	writeStepFiles(ctx, req.Remote, step)
	p.tests = nil
	if step.Name == toolchain.StepTest {
		p.tests = newTestParser(step.Format)
	}
	// One pipe for stdout and stderr, as `2>&1` gives: a runner prints its
	// progress on stderr (cargo's "Running …") and the tests' results on
	// stdout (libtest), and two pipes would let those arrive out of order.
	spec := spawn.Spec{Argv: step.Argv, Dir: step.Dir, Env: step.Env, CoreDumps: true, MergeStderr: true, OnExit: onExit}
	if dl, ok := ctx.Deadline(); ok {
		spec.Timeout = max(time.Until(dl), time.Millisecond)
	}
	watch := watchStepCores(req, step) // cores a later one replaces: stepcores.go
	r, err := capture.Start(ctx, capture.Request{Spec: spec, Output: p, OutputID: req.RawID, Program: step.Argv[0], ProjectDir: req.ProjectDir, KeepCores: req.KeepCores, NoHangStacks: step.NoHangStacks, Stall: req.Stall, Limit: req.Limit, Remote: req.Remote})
	if err != nil {
		watch.Stop(0)
		if p.tests != nil {
			p.tests.finish()
		}
		return StepResult{}, err
	}
	progress := reportProgress(ctx, req, p, r, i, start)
	o := r.Wait(ctx)
	progress.Stop()
	sr := StepResult{Step: step, Outcome: o, Ran: true}
	if req.Remote == nil && step.Name == toolchain.StepTest && !o.Result.Success() {
		// A core of a test's program is the run's whatever its process
		// group (a worker a test program forked): ctestprograms.go.
		sr.progs, sr.progsRead = testProgramsOf(ctx, step), true
		watch.Programs(sr.progs.exes())
	}
	watch.Stop(o.Result.Pid)
	sr.coresSeen = watch.Seen()
	return sr, nil
}

// reportProgress reports the step's start, then its progress every interval
// until stopped. It also flushes the runner's output, which otherwise
// reaches the pipeline in large blocks.
func reportProgress(ctx context.Context, req Request, p *pipeline, r *capture.Running, i int, start time.Time) *tick.Ticker {
	step := req.Steps[i]
	snapshot := func() Progress {
		return Progress{
			Step: i + 1, Steps: len(req.Steps), StepName: step.Name, Command: step.CommandLine(),
			Lines: p.count.lines.Load(), Passed: p.count.passed.Load(), Failed: p.count.failed.Load(),
			Elapsed: time.Since(start),
		}
	}
	if req.Progress != nil {
		req.Progress(snapshot())
	}
	return tick.Start(ctx, req.ProgressInterval, func() {
		r.Flush()
		if req.Progress != nil {
			req.Progress(snapshot())
		}
	})
}

// testStepDone collects the test report of the test step just run, and the
// core of a test process that crashed under the runner.
func (res *Result) testStepDone(ctx context.Context, p *pipeline, sr StepResult, req Request) {
	rep, format, err := p.tests.finish()
	res.guessed = p.tests.guessed
	p.tests = nil
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("parsing test output: %v", err))
	}
	if sr.Step.ReportFile != "" {
		jr, err := readReportFile(ctx, req.Remote, sr.Step.ReportFile, sr.Step.ReportFormat)
		if err == nil && req.Remote == nil {
			res.holdToClosings(sr.Step.ReportFile, jr) // closings.go
			res.holdToFrameworks(ctx, sr, jr)          // frameworks.go
		}
		switch {
		case err != nil:
		case rep == nil || rep.Totals.Total == 0:
			rep, format = jr, sr.Step.ReportFormat
		default:
			// The report file holds what the log does not (CTest's JUnit
			// file: every test program's own output): a test whose own
			// framework never printed its summary was cut short.
			if rep.AdoptCutShort(jr) > 0 {
				// The log says so too, for whoever reads it later.
				testreport.WriteReportSection(p, path.Base(sr.Step.ReportFile), jr.CutShort)
			}
			// And what each program's own framework said of its tests.
			rep.AdoptFramework(jr)
		}
	}
	if rep != nil {
		// automake keeps each test's output in its own log, not the run's.
		res.readTestLogs(ctx, req.Remote, sr.Step.Dir, rep, p)
	}
	res.Report, res.Format = rep, format
	if rep != nil && sr.Outcome.Result.Exited {
		rep.ApplyExitCode(sr.Outcome.Result.ExitCode)
	}
	res.rerunCutShort(ctx, req.Remote, p, sr, rep) // name the test that ended a binary: rerun.go
	if req.Remote == nil {
		res.nameExitSite(ctx, sr, rep, req.ProjectDir) // a program's case, by its exit under gdb: exitsite.go
	}
	// A crash the report records, the runner's own death, or (in output no
	// parser knows: make) a crash line in the output: find the test's core.
	// With a report, a crash line in the output (a Rust panic that libtest
	// caught) is the report's to judge.
	crashed := sr.Outcome.Result.Signaled
	if rep != nil {
		crashed = crashed || rep.Status == testreport.Crashed
	} else {
		crashed = crashed || sr.Outcome.Verdict.Status == verdict.StatusCrash
	}
	switch {
	case crashed && req.Remote != nil:
		res.Crash = findHostTestCrash(ctx, req.Remote, sr, rep, append([]string{sr.Step.Dir}, req.CoreDirs...), req.ProjectDir)
	case crashed:
		res.Crash = findTestCrash(ctx, sr, rep, append([]string{sr.Step.Dir}, req.CoreDirs...), req.ProjectDir, req.KeepCores)
	}
}

func parseReportFile(path, format string) (*testreport.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return testreport.Parse(format, f)
}
