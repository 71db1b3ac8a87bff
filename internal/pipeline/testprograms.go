package pipeline

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/toolchain"
)

// The programs a test step's tests run, as the runner names them before
// they run. A runner that starts each test in a session of its own (meson,
// under os.setsid) leaves its tests outside the step's process group; a
// core of one of these programs is the run's all the same
// (coredump.GroupQuery.Exes), and of two crashed tests' cores each is its
// own test's by its program (coredump.Proc's rule), whatever the tests
// are called.
//
// meson says, and CTest (ctestprograms.go). meson's introspection file
// BUILDDIR/meson-info/intro-tests.json, which meson setup writes and a
// regeneration rewrites (so it is the build's before meson test runs), has
// each test's name, suites, command (cmd: the program, then its arguments)
// and working directory (workdir, null for meson's own, the build
// directory). testlog.json's records hold the same command, but after each
// test's output, which the report's reader does not keep.

// testProgram is what the runner says of one test.
type testProgram struct {
	// Exe is the test's program, an absolute path; "" when it is not an ELF
	// executable (a script, whose crash is its interpreter's).
	Exe string
	// Dir is where the test runs when not where the runner does (meson's
	// workdir); "" otherwise.
	Dir string
	// Argv is the test's command from Exe on (Exe, then its arguments; a
	// launcher before it left out), and Env what the runner adds to its
	// environment: the test alone rerun under memcheck (memtest.go). nil
	// when the runner does not say.
	Argv []string
	Env  map[string]string
}

// testPrograms are a step's tests' programs, by test name.
type testPrograms map[string]testProgram

// maxIntroTests bounds the introspection file read.
const maxIntroTests = 16 << 20

// stepTestPrograms reads what meson says of its tests' programs; nil for
// every other runner (CTest's: testProgramsOf) or when the file cannot be
// read.
func stepTestPrograms(step toolchain.Step) testPrograms {
	if step.Name != toolchain.StepTest || step.Format != testreport.FormatMeson && step.ReportFormat != toolchain.MesonTestlogFormat {
		return nil
	}
	dir := mesonBuildDir(step)
	f, err := os.Open(filepath.Join(dir, "meson-info", "intro-tests.json"))
	if err != nil {
		return nil
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || st.Size() > maxIntroTests {
		return nil
	}
	var tests []struct {
		Name    string            `json:"name"`
		Cmd     []string          `json:"cmd"`
		Workdir *string           `json:"workdir"`
		Suite   []string          `json:"suite"`
		Env     map[string]string `json:"env"`
	}
	if err := json.NewDecoder(f).Decode(&tests); err != nil {
		return nil
	}
	progs := testPrograms{}
	plain := map[string]int{}
	for _, t := range tests {
		p := testProgram{}
		if len(t.Cmd) > 0 && filepath.IsAbs(t.Cmd[0]) && isExecutable(t.Cmd[0]) {
			p.Exe = filepath.Clean(t.Cmd[0])
			p.Argv, p.Env = append([]string{p.Exe}, t.Cmd[1:]...), t.Env
		}
		if t.Workdir != nil && filepath.IsAbs(*t.Workdir) {
			p.Dir = filepath.Clean(*t.Workdir)
		}
		plain[t.Name]++
		progs[t.Name] = p
		if len(t.Suite) > 0 {
			progs[mesonPrettyName(t.Name, t.Suite)] = p
		}
	}
	for name, n := range plain {
		if n > 1 {
			delete(progs, name) // two tests of one name: only the suite tells
		}
	}
	return progs
}

// mesonBuildDir is the build directory a meson test step runs in: its
// testlog.json's, else the one its -C names, else its own directory.
func mesonBuildDir(step toolchain.Step) string {
	if step.ReportFile != "" {
		return filepath.Dir(filepath.Dir(step.ReportFile))
	}
	for i := 1; i+1 < len(step.Argv); i++ {
		if step.Argv[i] == "-C" {
			if d := step.Argv[i+1]; filepath.IsAbs(d) {
				return d
			} else {
				return filepath.Join(step.Dir, d)
			}
		}
	}
	return step.Dir
}

// mesonPrettyName is the name meson test gives a test when the run has
// tests of more than one suite (mtest's get_pretty_suite): its first
// suite's project, the suites joined, then the test's name,
// "proj:unit+slow / name".
func mesonPrettyName(name string, suites []string) string {
	prj, _, _ := strings.Cut(suites[0], ":")
	var ss []string
	for _, s := range suites {
		_, st, _ := strings.Cut(s, ":")
		ss = append(ss, st)
	}
	s := strings.Join(ss, "+")
	if s != "" {
		prj += ":"
	}
	return prj + s + " / " + name
}

// of is the program of the test the report names name.
func (p testPrograms) of(name string) testProgram { return p[name] }

// exes are the programs of all the tests, sorted.
func (p testPrograms) exes() []string {
	var out []string
	for _, t := range p {
		if t.Exe != "" {
			out = append(out, t.Exe)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// dirsOf are the working directories of the crashed tests of rep, where
// their cores land when meson's workdir moved them.
func (p testPrograms) dirsOf(rep *testreport.Report) []string {
	if rep == nil || len(p) == 0 {
		return nil
	}
	var dirs []string
	for _, tc := range rep.Cases {
		if d := p.of(tc.Name).Dir; tc.Status == testreport.Crashed && d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// isExecutable reports whether path is an ELF executable.
func isExecutable(path string) bool {
	kind, err := coredump.Identify(path)
	return err == nil && kind == coredump.KindExecutable
}

// withReport adds the programs an automake suite's report names: a test's
// name is its program's path from the build directory dir (TESTS), so a
// core of it is the run's (the worker Check forks in a group of its own
// for each test, whose parent is the test program). Only the failed
// tests' are looked at.
func (p testPrograms) withReport(rep *testreport.Report, dir string) testPrograms {
	if rep == nil || rep.Format != testreport.FormatAutomake {
		return p
	}
	out := maps.Clone(p)
	for _, tc := range rep.Cases {
		if _, ok := out[tc.Name]; ok || tc.Status == testreport.Passed || tc.Status == testreport.Skipped {
			continue
		}
		if exe := filepath.Join(dir, tc.Name); filepath.IsLocal(tc.Name) && isExecutable(exe) {
			if out == nil {
				out = testPrograms{}
			}
			out[tc.Name] = testProgram{Exe: exe, Argv: []string{exe}} // run by its path, no argument
		}
	}
	return out
}
