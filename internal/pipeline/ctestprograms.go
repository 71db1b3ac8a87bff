package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// CTest names its tests' programs too: `ctest --show-only=json-v1` lists
// each test of the build directory (its CTestTestfile.cmake, which the
// configure step wrote before the tests run) with its command and its
// WORKING_DIRECTORY. A test program that forks a worker per test in a
// session of its own (Criterion; Check in its default fork mode) leaves
// the worker's core, whose process is neither in the step's group nor a
// child of its leader, and whose pid no line prints: its executable, the
// test's program, is what makes it the run's (coredump.GroupQuery.Exes)
// and the crashed test's (coredump.Proc's Exe).
//
// It is asked only once a test step has failed, on this machine: a core
// matters then.

// Bounds of the listing.
const (
	ctestListLimit = 20 * time.Second
	maxCTestList   = 16 << 20
)

// ctestSelection are the ctest options that choose the configuration,
// the build directory and the tests: the listing keeps them, with their
// value but -U's.
var ctestSelection = map[string]bool{
	"-C": true, "--build-config": true, "--test-dir": true,
	"-R": true, "--tests-regex": true, "-E": true, "--exclude-regex": true,
	"-L": true, "--label-regex": true, "-LE": true, "--label-exclude": true,
	"-I": true, "--tests-information": true, "-U": false, "--union": false,
}

// isCTestStep reports whether step runs ctest itself.
func isCTestStep(step toolchain.Step) bool {
	return step.Name == toolchain.StepTest && step.Format == testreport.FormatCTest && len(step.Argv) > 0 &&
		strings.HasPrefix(filepath.Base(step.Argv[0]), "ctest")
}

// ctestListArgv is the step's ctest listing its selected tests as JSON.
func ctestListArgv(step toolchain.Step) []string {
	argv := []string{step.Argv[0], "--show-only=json-v1"}
	for i := 1; i < len(step.Argv); i++ {
		value, ok := ctestSelection[step.Argv[i]]
		switch {
		case !ok:
		case !value:
			argv = append(argv, step.Argv[i])
		case i+1 < len(step.Argv):
			argv = append(argv, step.Argv[i], step.Argv[i+1])
			i++
		}
	}
	return argv
}

// ctestPrograms are the programs of the tests the step's ctest runs; nil
// when ctest cannot say (too old for --show-only=json-v1, no tests).
func ctestPrograms(ctx context.Context, step toolchain.Step) testPrograms {
	if !isCTestStep(step) || ctx.Err() != nil {
		return nil
	}
	var out bytes.Buffer
	r, err := spawn.Run(ctx, spawn.Spec{Argv: ctestListArgv(step), Dir: step.Dir, Env: step.Env,
		Stdout: &boundedBuffer{b: &out, max: maxCTestList}, Timeout: ctestListLimit})
	if err != nil || !r.Success() {
		return nil
	}
	return parseCTestList(out.Bytes(), ctestBuildDir(step))
}

// ctestBuildDir is the build directory the step's ctest tests: its
// --test-dir, else where it runs.
func ctestBuildDir(step toolchain.Step) string {
	for i := 1; i+1 < len(step.Argv); i++ {
		if d := step.Argv[i+1]; step.Argv[i] == "--test-dir" {
			if filepath.IsAbs(d) {
				return filepath.Clean(d)
			}
			return filepath.Join(step.Dir, d)
		}
	}
	return filepath.Clean(step.Dir)
}

// ctestProgram is a test's program: the first word of its command that is
// an ELF executable in the build directory (a launcher such as `cmake -E
// env`, valgrind or timeout runs it), else the command's first word when
// that is an ELF executable; by absolute path, with its index in cmd; ""
// when none is.
func ctestProgram(cmd []string, buildDir string) (string, int) {
	for i, w := range cmd {
		if rel, err := filepath.Rel(buildDir, w); err == nil && filepath.IsAbs(w) && filepath.IsLocal(rel) && isExecutable(w) {
			return filepath.Clean(w), i
		}
	}
	if len(cmd) > 0 && filepath.IsAbs(cmd[0]) && isExecutable(cmd[0]) {
		return filepath.Clean(cmd[0]), 0
	}
	return "", 0
}

// ctestTest is one test of ctest's JSON listing.
type ctestTest struct {
	Name       string   `json:"name"`
	Command    []string `json:"command"`
	Properties []struct {
		Name  string          `json:"name"`
		Value json.RawMessage `json:"value"`
	} `json:"properties"`
}

// parseCTestList reads ctest's JSON listing of the tests of buildDir into
// each test's program (ctestProgram), its arguments, working directory and
// environment.
func parseCTestList(data []byte, buildDir string) testPrograms {
	var list struct {
		Tests []ctestTest `json:"tests"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil
	}
	progs := testPrograms{}
	for _, t := range list.Tests {
		if p := t.program(buildDir); t.Name != "" && (p.Exe != "" || p.Dir != "") {
			progs[t.Name] = p
		}
	}
	if len(progs) == 0 {
		return nil
	}
	return progs
}

// program is what the listing says of the test: its program and the
// arguments after it, its WORKING_DIRECTORY and ENVIRONMENT properties.
func (t ctestTest) program(buildDir string) testProgram {
	var p testProgram
	exe, i := ctestProgram(t.Command, buildDir)
	if exe != "" {
		p.Exe, p.Argv = exe, append([]string{exe}, t.Command[i+1:]...)
	}
	for _, prop := range t.Properties {
		var dir string
		var env []string
		switch {
		case prop.Name == "WORKING_DIRECTORY" && json.Unmarshal(prop.Value, &dir) == nil && filepath.IsAbs(dir):
			p.Dir = filepath.Clean(dir)
		case prop.Name == "ENVIRONMENT" && json.Unmarshal(prop.Value, &env) == nil:
			for _, kv := range env {
				if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
					if p.Env == nil {
						p.Env = map[string]string{}
					}
					p.Env[k] = v
				}
			}
		}
	}
	return p
}

// errListTooLong stops a listing past its bound.
var errListTooLong = errors.New("listing too long")

// boundedBuffer keeps at most max bytes, and fails the write past them.
type boundedBuffer struct {
	b   *bytes.Buffer
	max int
}

func (w *boundedBuffer) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		return 0, errListTooLong
	}
	return w.b.Write(p)
}

// testProgramsOf is what the step's runner says of its tests' programs:
// meson's introspection file (testprograms.go), CTest's listing; nil for
// the other runners.
func testProgramsOf(ctx context.Context, step toolchain.Step) testPrograms {
	if isCTestStep(step) {
		return ctestPrograms(ctx, step)
	}
	return stepTestPrograms(step)
}

// programs are the step's tests' programs: those read when it failed
// (runStep), else read now.
func (sr StepResult) programs(ctx context.Context) testPrograms {
	if sr.progsRead {
		return sr.progs
	}
	return testProgramsOf(ctx, sr.Step)
}
