package pipeline

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/toolchain"
	"github.com/triage-dev/triage/internal/verdict"
)

// The cores a step's processes leave in the user's tree, whichever step:
// a generator that a CMake custom command ran and that crashed writes
// build/core, a build script crashes under cargo, a tool crashes and the
// recipe goes on. A step whose output tells of a crash, or during which a
// core file was written where the step runs, is followed by the search a
// crashed test gets (coredump.FindGroup: the step's process group, its
// leader's children in groups of their own, the test programs its runner
// names, since it started, under the project and build directories); the
// cores found are moved into the store like a test's, and each is said. A
// failed step other than the tests has its crashed process's core as the
// run's crash evidence (Result.Crash: backtrace, site, the calls that open
// it).
//
// Under a core_pattern whose name repeats ("core"), a later crash in the
// same directory replaces an earlier one's core: the step's directories and
// their subdirectories are watched while it runs (coredump.CoreWatch), so
// that the replaced one is kept beside it under its pid.

// coreDirs are where a step's cores may land: each step's directory, the
// request's (the project), and the build directories the steps name.
func coreDirs(req Request, step toolchain.Step) []string {
	dirs := append([]string{step.Dir}, req.CoreDirs...)
	for _, s := range req.Steps {
		dirs = append(dirs, s.Dir)
		dirs = append(dirs, namedBuildDirs(s)...)
	}
	out := dirs[:0]
	for _, d := range dirs {
		if d != "" && !slices.Contains(out, filepath.Clean(d)) {
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}

// namedBuildDirs are the build directories a step's command names: CMake's
// -B and --build, CTest's --test-dir, relative to the step's directory.
func namedBuildDirs(s toolchain.Step) []string {
	var dirs []string
	for i := 1; i+1 < len(s.Argv); i++ {
		switch s.Argv[i] {
		case "-B", "--build", "--test-dir":
			d := s.Argv[i+1]
			if !filepath.IsAbs(d) {
				d = filepath.Join(s.Dir, d)
			}
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// watchStepCores watches where the step's cores land, for the cores that
// a later one would replace; nil when nothing needs watching (a core_pattern
// with the pid in it, a piped one, a step on a host).
func watchStepCores(req Request, step toolchain.Step) *coredump.CoreWatch {
	if req.Remote != nil {
		return nil
	}
	return coredump.WatchCores(coreDirs(req, step), watchDepth).Programs(stepTestPrograms(step).exes())
}

// watchDepth is how deep a step's directories are watched: each and its
// subdirectories (CTest runs a directory's tests in build/tests).
const watchDepth = 2

// collectStepCores looks for the cores a step left, when its output tells
// of a crash or a core was seen written, unless they were looked for
// already (the runner's own core, a crashed test's), and says what it
// found.
func (res *Result) collectStepCores(ctx context.Context, req Request, sr StepResult) {
	o := sr.Outcome
	switch {
	case req.Remote != nil || o == nil || len(o.Artifacts) > 0:
		return
	case sr.Step.Name == toolchain.StepTest && res.Crash != nil:
		return
	case sr.coresSeen == 0 && !crashTold(o.Verdict):
		return
	}
	dirs := coreDirs(req, sr.Step)
	arts, err := coredump.FindGroup(ctx, coredump.GroupQuery{Since: o.Result.Started, Pgid: o.Result.Pid, Dirs: dirs, Exes: sr.programs(ctx).exes()})
	if err != nil || len(arts) == 0 {
		return
	}
	arts, found := keepCores(arts, req.KeepCores, dirs)
	slices.SortStableFunc(arts, func(a, b coredump.Artifact) int { return a.ModTime.Compare(b.ModTime) })
	// The crash of a failed build step is its evidence; a test step's
	// crash is the test report's to tell (findTestCrash).
	evidence := res.Crash == nil && !o.Result.Success() && sr.Step.Name != toolchain.StepTest
	want := firstProcOf(o.Verdict.Indicators, false)
	for _, a := range arts {
		ci, err := coredump.OpenCore(a.Path)
		if err != nil {
			continue
		}
		if evidence && ci.IsOf(want) {
			res.Crash = stepCrash(ctx, ci, a, req.ProjectDir)
			evidence = false
			continue
		}
		res.Notes = append(res.Notes, leftCoreNote(sr.Step.Name, ci, found[a.Path], a.Path))
	}
}

// crashTold reports whether a step's output tells of a crash: a shell's or
// make's report of a signal, a runner's crash line, a crash message.
func crashTold(v verdict.Verdict) bool {
	if v.Status == verdict.StatusCrash {
		return true
	}
	for _, in := range v.Indicators {
		if in.Crash {
			return true
		}
	}
	return false
}

// stepCrash is the crash a failed step's core tells of: its program,
// signal, backtrace and site.
func stepCrash(ctx context.Context, ci *coredump.CoreInfo, a coredump.Artifact, projectDir string) *TestCrash {
	c := &TestCrash{Signal: ci.SignalName, Core: a.Path, Program: ci.ExePath, CoreNote: a.Note}
	c.fromCore(ctx, ci, a.Path, projectDir)
	// A missing debug info is not the step's to rebuild with the
	// tests' hints; the frame says what is known.
	c.NoDebugInfo = nil
	c.sourceSite(projectDir)
	return c
}

// leftCoreNote says a step left a core: "the build step left a core of
// pid 4242 (gen) in /p/build (SIGSEGV); kept as /store/cores/7/core.4242".
func leftCoreNote(step string, ci *coredump.CoreInfo, dir, path string) string {
	s := fmt.Sprintf("the %s step left a core of %s in %s (%s)", step, ci.Proc(), dir, ci.SignalName)
	if filepath.Dir(path) != dir {
		s += "; kept as " + path
	}
	return s
}
