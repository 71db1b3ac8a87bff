package pipeline

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/triage-dev/triage/internal/coverage"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// Bounds of the rerun of a failed test with coverage.
const (
	pathLimit     = 2 * time.Minute // within the run's own deadline
	maxPathOutput = 400             // bytes of its output kept to explain a failure
)

// failedPath reruns the first failed or crashed test of a coverage run
// alone, with coverage, and keeps what it ran of the project's own code in
// the run's report (FailedPath), or why it could not (PathError). The
// rerun's output is not the run's: it stays out of the logs.
func (res *Result) failedPath(ctx context.Context, req Request, tools *coverage.LLVMTools) {
	c := coverageSpec(req)
	if c == nil || res.Coverage == nil {
		return
	}
	var first *testreport.Case
	others := 0
	if res.Report != nil {
		first, others = firstFailed(res.Report)
	}
	if first == nil {
		if res.Status == Failed || res.Status == Crashed || res.Status == SilentFailure {
			res.Coverage.PathError = "the output names no failed test, so none was rerun alone"
		}
		return
	}
	rep, name, err := rerunWithCoverage(ctx, req, c, first, tools)
	if err != nil {
		res.Coverage.PathError = fmt.Sprintf("rerunning %s alone with coverage: %v", first.Name, err)
		return
	}
	p := rep.PathOf(name)
	switch {
	case len(p.Files) == 0 && first.Status == testreport.Crashed:
		// A crashed test ran something: not "none of the project's lines"
		// but unknown. (cargo's other test programs wrote theirs.)
		res.Coverage.PathError = fmt.Sprintf("%s crashed, and rerun alone it wrote no coverage data (%s); the crash site says where it stopped", first.Name, crashedNoData)
		return
	case len(rep.Files) == 0:
		res.Coverage.PathError = fmt.Sprintf("%s rerun alone wrote no coverage data", first.Name)
		return
	}
	p.OtherFailed = others
	p.At = failedAt(res.Report, first, c.Tool, req.ProjectDir)
	res.Coverage.FailedPath = p
}

// messageSite is the file:line a failure message begins with, as Go's
// t.Error writes it ("    calc_test.go:14: want 13").
var messageSite = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*([\w./-]+\.\w+):(\d+):`) })

// failedAt is where the test failed: the file:line of its first case
// that has one (a Go test's parent case has none, its failed subtest's
// has), from the case or its message; a Go file's is made the module's
// path to it.
func failedAt(r *testreport.Report, first *testreport.Case, tool, projectDir string) string {
	top, _, _ := strings.Cut(first.Name, "/")
	for _, c := range r.Cases {
		if c.Suite != first.Suite || (c.Name != top && !strings.HasPrefix(c.Name, top+"/")) || (c.Status != testreport.Failed && c.Status != testreport.Crashed) {
			continue
		}
		file, line := c.File, strconv.Itoa(c.Line)
		if m := messageSite().FindStringSubmatch(c.Message); file == "" && m != nil {
			file, line = m[1], m[2]
		}
		if file == "" || line == "0" {
			continue
		}
		if module, err := coverage.GoModule(projectDir); err == nil && tool == coverage.ToolGo && !strings.Contains(file, "/") {
			if pkg, ok := strings.CutPrefix(c.Suite, module+"/"); ok {
				file = pkg + "/" + file
			}
		}
		// As the path's files are named: a project's file from its top.
		if rel, err := filepath.Rel(projectDir, file); err == nil && filepath.IsAbs(file) && !strings.HasPrefix(rel, "..") {
			file = filepath.ToSlash(rel)
		}
		return file + ":" + line
	}
	return ""
}

// firstFailed is the first failed or crashed case, and how many other
// tests failed or crashed. A Go test whose subtest failed fails too: the
// cases of one top-level test count once.
func firstFailed(r *testreport.Report) (*testreport.Case, int) {
	var first *testreport.Case
	seen := map[string]bool{}
	for i := range r.Cases {
		c := &r.Cases[i]
		if c.Status != testreport.Failed && c.Status != testreport.Crashed {
			continue
		}
		top, _, _ := strings.Cut(c.Name, "/")
		key := c.Suite + "\x00" + top
		if seen[key] {
			continue
		}
		seen[key] = true
		if first == nil {
			first = c
		}
	}
	return first, max(len(seen)-1, 0)
}

// rerunWithCoverage runs the test alone and reads its coverage: the
// report and the test's name as rerun.
func rerunWithCoverage(ctx context.Context, req Request, c *toolchain.Coverage, tc *testreport.Case, tools *coverage.LLVMTools) (*coverage.Report, string, error) {
	step := req.Steps[len(req.Steps)-1]
	switch {
	case c.Tool == coverage.ToolGo && len(c.Rerun) > 0:
		top, _, _ := strings.Cut(tc.Name, "/")
		profile := filepath.Join(filepath.Dir(c.Profile), "failed-cover.out")
		argv := append(c.Rerun[:len(c.Rerun):len(c.Rerun)], "-count=1", "-run=^"+regexp.QuoteMeta(top)+"$", "-coverprofile="+profile, tc.Suite)
		out, err := runAlone(ctx, argv, step)
		if err != nil {
			return nil, "", err
		}
		rep, err := readGoProfile(&toolchain.Coverage{Profile: profile, Tried: strings.Join(argv, " ")}, req.ProjectDir)
		if err != nil {
			return nil, "", fmt.Errorf("%w; its output ended: %s", err, out)
		}
		return rep, top, nil
	case c.Tool == coverage.ToolGcov && len(c.Rerun) > 0:
		return rerunCTest(ctx, req, c, tc)
	case c.Tool == coverage.ToolGcov:
		return nil, "", fmt.Errorf("make runs its tests as one target, so one test cannot be run alone")
	case c.Tool == coverage.ToolLLVM && len(c.Rerun) > 0:
		return rerunLLVM(ctx, req, c, tc, tools)
	case c.Tool == coverage.ToolLLVM && c.Compiler != "":
		return nil, "", fmt.Errorf("make runs its tests as one target, so one test cannot be run alone")
	case c.Tool == coverage.ToolSwiftPM && len(c.Rerun) > 0:
		return rerunSwift(ctx, req, c, tc)
	}
	return nil, "", fmt.Errorf("not done for %s runs yet", c.Tool)
}

// rerunCTest runs one CTest test alone in the coverage build, its .gcda
// removed before (gcc adds to the counts it finds) and read after. A
// case of a test framework's (a Unity test's) is rerun as the CTest test
// that ran it.
func rerunCTest(ctx context.Context, req Request, c *toolchain.Coverage, tc *testreport.Case) (*coverage.Report, string, error) {
	name := tc.Name
	if tc.Suite != "ctest" && tc.Suite != "" {
		name = tc.Suite
	}
	if err := coverage.RemoveData(c.DataDirs); err != nil {
		return nil, "", err
	}
	argv := append(c.Rerun[:len(c.Rerun):len(c.Rerun)], "-R", "^"+regexp.QuoteMeta(name)+"$")
	out, err := runAlone(ctx, argv, req.Steps[len(req.Steps)-1])
	if err != nil {
		return nil, "", err
	}
	rep, err := readCoverage(ctx, c, req, nil)
	if err != nil && tc.Status == testreport.Crashed {
		return nil, "", fmt.Errorf("%s crashed, and a program that dies on a signal writes no coverage data", name)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w; its output ended: %s", err, out)
	}
	return rep, name, nil
}

// runAlone runs argv in the step's directory and environment and returns
// the end of its output, kept only to explain what went wrong.
func runAlone(ctx context.Context, argv []string, step toolchain.Step) (string, error) {
	timeout := pathLimit
	if dl, ok := ctx.Deadline(); ok {
		timeout = min(timeout, time.Until(dl))
	}
	if timeout <= 0 {
		return "", fmt.Errorf("the run's time limit was reached")
	}
	tail := &tailBuffer{max: maxPathOutput}
	stopped := runHere(ctx, argv, step, timeout, tail)
	out := strings.ToValidUTF8(strings.TrimSpace(string(tail.bytes())), "")
	if stopped != "" {
		return "", fmt.Errorf("%s; its output ended: %s", stopped, out)
	}
	return out, nil
}

// rerunLLVM runs one test alone with the run's coverage flags: a libtest
// test (cargo test NAME -- --exact, in every test binary: the others run
// none), or a CTest test of a clang build (ctest -R, named as rerunCTest
// names it); its profiles go into a directory of their own so that the
// run's stay as they were.
func rerunLLVM(ctx context.Context, req Request, c *toolchain.Coverage, tc *testreport.Case, tools *coverage.LLVMTools) (*coverage.Report, string, error) {
	alone := *c
	alone.ProfileDir = filepath.Join(c.ProfileDir, "failed")
	if err := os.MkdirAll(alone.ProfileDir, 0o755); err != nil {
		return nil, "", err
	}
	if err := coverage.RemoveProfiles(alone.ProfileDir); err != nil {
		return nil, "", err
	}
	r := req
	r.Steps = slices.Clone(req.Steps)
	step := &r.Steps[len(r.Steps)-1]
	step.Env = maps.Clone(step.Env)
	step.Env["LLVM_PROFILE_FILE"] = filepath.Join(alone.ProfileDir, "%p-%m.profraw")
	name, argv := tc.Name, append(c.Rerun[:len(c.Rerun):len(c.Rerun)], tc.Name, "--", "--exact")
	if c.Compiler != "" {
		if tc.Suite != "ctest" && tc.Suite != "" {
			name = tc.Suite
		}
		argv = append(c.Rerun[:len(c.Rerun):len(c.Rerun)], "-R", "^"+regexp.QuoteMeta(name)+"$")
	}
	out, err := runAlone(ctx, argv, *step)
	if err != nil {
		return nil, "", err
	}
	rep, err := readLLVMProfiles(ctx, &alone, r, tools)
	if err != nil && tc.Status == testreport.Crashed {
		return nil, "", fmt.Errorf("%s crashed, and a program that dies on a signal writes no coverage data", name)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%w; its output ended: %s", err, out)
	}
	return rep, name, nil
}

// rerunSwift runs one test alone with SwiftPM's coverage (--filter of its
// XCTest class and method, or its Swift Testing suite and function, as
// SwiftPM names them), which replaces the run's JSON, then reads it.
func rerunSwift(ctx context.Context, req Request, c *toolchain.Coverage, tc *testreport.Case) (*coverage.Report, string, error) {
	name := tc.Name
	if tc.Suite != "" {
		name = tc.Suite + "/" + tc.Name
	}
	argv := append(c.Rerun[:len(c.Rerun):len(c.Rerun)], "--filter="+regexp.QuoteMeta(name))
	out, err := runAlone(ctx, argv, req.Steps[len(req.Steps)-1])
	if err != nil {
		return nil, "", err
	}
	rep, err := readCoverage(ctx, c, req, nil)
	if err != nil {
		return nil, "", fmt.Errorf("%w; its output ended: %s", err, out)
	}
	return rep, name, nil
}
