package pipeline

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/toolchain"
)

// coverageSpec is what the plan's test step says of its coverage data; nil
// for a run without coverage.
func coverageSpec(req Request) *toolchain.Coverage {
	return req.Steps[len(req.Steps)-1].Coverage
}

// prepared is what prepare readied for a run's steps.
type prepared struct {
	tools *coverage.LLVMTools
	err   error
}

// prepare readies a run of steps in projectDir before they start: the
// directory its coverage data goes to (mkdir, when not "": a directory the
// plan named), then prepareCoverage, within timeout (<= 0: ctx's own).
// BuildOrTest has it done while the run's output gets its store entry:
// each costs a few tenths of a millisecond of file system.
func prepare(ctx context.Context, steps []toolchain.Step, projectDir, mkdir string, timeout time.Duration) *prepared {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	if mkdir != "" {
		if err := os.Mkdir(mkdir, 0o700); err != nil {
			return &prepared{err: fmt.Errorf("making the coverage data's directory: %w", err)}
		}
	}
	tools, err := prepareCoverage(ctx, steps, projectDir)
	return &prepared{tools: tools, err: err}
}

// prepareCoverage readies a coverage run before its steps: the counters an
// earlier run left are removed (gcc adds to them, so they would count in
// this run's report), and for a Rust or clang run the LLVM tools of the
// compiler are found (and clang's profile runtime checked), so that a
// machine without them is told before the build, not after it.
func prepareCoverage(ctx context.Context, steps []toolchain.Step, projectDir string) (*coverage.LLVMTools, error) {
	step := steps[len(steps)-1]
	c := step.Coverage
	switch {
	case c == nil:
		return nil, nil
	case c.Tool == coverage.ToolGcov:
		return nil, coverage.RemoveData(c.DataDirs)
	case c.Tool != coverage.ToolLLVM:
		return nil, nil
	}
	var tools *coverage.LLVMTools
	var err error
	if c.Compiler != "" {
		// The project's directory: a CMake test step's is not made yet.
		tools, err = coverage.FindClangTools(ctx, projectDir, step.Env, c.Compiler, c.ProfileDir)
	} else {
		tools, err = coverage.FindLLVMTools(ctx, step.Dir, step.Env)
	}
	if err != nil {
		return nil, fault.Unavailable(err)
	}
	return tools, coverage.RemoveProfiles(c.ProfileDir)
}

// crashedNoData says why a crashed test program has no coverage.
const crashedNoData = "a test program that crashes writes no coverage data for its own run"

// collectCoverage reads the coverage data the test step left into
// res.Coverage, or says in res.CoverageError why there is none. A failed
// test's run has coverage too: the runners write their data whatever the
// tests' outcome; a test program that crashed writes none for itself.
func (res *Result) collectCoverage(ctx context.Context, req Request, tools *coverage.LLVMTools, ran bool, early *coverageRead) {
	c := coverageSpec(req)
	if c == nil {
		return
	}
	if !ran {
		res.CoverageError = "no coverage: the tests did not run"
		return
	}
	var rep *coverage.Report
	var err error
	if early != nil {
		rep, err = early.result()
	} else {
		rep, err = readCoverage(ctx, c, req, tools)
	}
	if err != nil {
		res.CoverageError = err.Error()
		return
	}
	crashed := res.Crash != nil || res.Status == Crashed
	switch {
	case len(rep.Files) == 0 && crashed:
		// Not 100% of no lines: nothing was measured.
		res.CoverageError = "no coverage: the data names no file, and a test program crashed (" + crashedNoData + ")"
		return
	case len(rep.Files) == 0:
		res.CoverageError = fmt.Sprintf("no coverage: the data names no file. Tried %s", c.Tried)
		return
	case crashed:
		rep.Notes = append(rep.Notes, "a test program crashed, so its own run is not counted ("+crashedNoData+")")
	}
	res.Coverage = rep
}

// coverageRead is a coverage report read while the test step's report is
// finished.
type coverageRead struct {
	start func() // starts the read, once
	done  chan struct{}
	rep   *coverage.Report
	err   error
}

// result is the profile read, started now if it was not.
func (r *coverageRead) result() (*coverage.Report, error) {
	r.start()
	<-r.done
	return r.rep, r.err
}

// readCoverageEarly is the read of a Go profile, to start as soon as the
// test step's process has exited (its start), beside the rest of the
// step's work (its last output, the test report's end, a crash's core);
// nil for other coverage data. go test writes its profile itself before it
// exits; gcc's and LLVM's data are written by every instrumented process,
// a test binary rerun to name what ended it too, so they are read after.
func readCoverageEarly(req Request) *coverageRead {
	c := coverageSpec(req)
	if c == nil || c.Tool != coverage.ToolGo {
		return nil
	}
	r := &coverageRead{done: make(chan struct{})}
	r.start = sync.OnceFunc(func() {
		go func() {
			defer close(r.done)
			r.rep, r.err = readGoProfile(c, req.ProjectDir)
		}()
	})
	return r
}

func readCoverage(ctx context.Context, c *toolchain.Coverage, req Request, tools *coverage.LLVMTools) (*coverage.Report, error) {
	switch c.Tool {
	case coverage.ToolGo:
		return readGoProfile(c, req.ProjectDir)
	case coverage.ToolLLVM:
		return readLLVMProfiles(ctx, c, req, tools)
	case coverage.ToolSwiftPM:
		step := req.Steps[len(req.Steps)-1]
		rep, err := coverage.SwiftPMCodecov(ctx, c.PathArgv, step.Dir, step.Env, req.ProjectDir, c.Generated)
		if err != nil {
			return nil, fmt.Errorf("no coverage: %w. Tried %s; %s", err, c.Tried, c.Advice)
		}
		return rep, nil
	}
	dir := req.ProjectDir
	data, bare, err := coverage.DataFiles(c.DataDirs)
	if err != nil {
		return nil, fmt.Errorf("no coverage: %w", err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("no coverage: no gcc coverage data (.gcda) was written under %v. Tried %s; %s", c.DataDirs, c.Tried, c.Advice)
	}
	rep, err := coverage.RunGcov(ctx, data, dir, c.Generated)
	if err != nil {
		return nil, fmt.Errorf("no coverage: %w", err)
	}
	if bare > 0 {
		rep.Notes = append(rep.Notes, fmt.Sprintf("%d object files have no coverage notes (.gcno): compiled without --coverage, their code is not counted; %s", bare, c.Advice))
	}
	return rep, nil
}

// readLLVMProfiles reads a Rust or clang run's raw profiles with llvm-cov,
// for the executables cargo says it built for the tests, or those with
// coverage mapping that clang built.
func readLLVMProfiles(ctx context.Context, c *toolchain.Coverage, req Request, tools *coverage.LLVMTools) (*coverage.Report, error) {
	profiles, err := coverage.Profiles(c.ProfileDir)
	if err != nil {
		return nil, fmt.Errorf("no coverage: %w", err)
	}
	if len(profiles) == 0 {
		return nil, fmt.Errorf("no coverage: no LLVM profile (.profraw) was written in %s. Tried %s; %s", c.ProfileDir, c.Tried, c.Advice)
	}
	objects, err := llvmObjects(ctx, c, req.Steps[len(req.Steps)-1])
	if err != nil {
		return nil, fmt.Errorf("no coverage: %w", err)
	}
	rep, err := coverage.RunLLVMCov(ctx, tools, profiles, objects, c.ProfileDir, req.ProjectDir, c.Generated)
	if err != nil {
		return nil, fmt.Errorf("no coverage: %w", err)
	}
	return rep, nil
}

func readGoProfile(c *toolchain.Coverage, dir string) (*coverage.Report, error) {
	f, err := os.Open(c.Profile)
	if err != nil {
		return nil, fmt.Errorf("no coverage: go test wrote no cover profile (%s, tried %s): a package that fails to build, or whose test binary crashes, writes none", c.Profile, c.Tried)
	}
	defer f.Close()
	module, err := coverage.GoModule(dir)
	if err != nil {
		module = "" // files are named by import path then
	}
	rep, err := coverage.ParseGoProfile(f, module, dir, nil)
	if err != nil {
		return nil, fmt.Errorf("no coverage: %w", err)
	}
	return rep, nil
}

// llvmObjects are the programs a Rust or clang run's profiles are read for.
func llvmObjects(ctx context.Context, c *toolchain.Coverage, step toolchain.Step) ([]string, error) {
	if len(c.Objects) > 0 {
		return coverage.CargoObjects(ctx, c.Objects, step.Dir, step.Env)
	}
	objects, err := coverage.InstrumentedObjects(c.ObjectDirs)
	if err == nil && len(objects) == 0 {
		err = fmt.Errorf("no program with coverage mapping was found under %v, though profiles were written. Tried %s; %s", c.ObjectDirs, c.Tried, c.Advice)
	}
	return objects, err
}
