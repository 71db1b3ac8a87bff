package toolchain

import (
	"path/filepath"
	"strings"
)

// Coverage says what a coverage run's test step leaves and where, for the
// caller to read once the step has run (internal/coverage).
type Coverage struct {
	Tool string `json:"tool"` // "go" (a cover profile) or "gcov" (gcc's .gcda files)
	// Profile is the Go cover profile the step writes.
	Profile string `json:"profile,omitempty"`
	// DataDirs hold gcc's .gcda files: removed before the run (gcc adds to
	// the counts it finds), read after it.
	DataDirs []string `json:"data_dirs,omitempty"`
	// Generated are build directories: sources in them were generated.
	Generated []string `json:"generated,omitempty"`
	// Tried says what the plan did to get coverage, and Advice what to
	// change when no data came of it.
	Tried  string `json:"tried"`
	Advice string `json:"advice,omitempty"`
}

// coverFlag is gcc's (and clang's) flag for gcov-style coverage: it compiles
// with -fprofile-arcs -ftest-coverage and links gcov's runtime.
const coverFlag = "--coverage"

// checkCoverage refuses coverage where this increment cannot collect it,
// saying what can.
func checkCoverage(p *planInput) error {
	if !p.o.Coverage {
		return nil
	}
	switch {
	case p.tc == Cargo || p.tc == Swift:
		return p.errorf("coverage", "not collected for %s yet: go, and C/C++ built by gcc under cmake or make, have it", p.tc)
	case !local(p.o.files()):
		return p.errorf("coverage", "not collected on another host yet (ssh_host): run the tests here")
	case p.tc == CMake && p.o.BuildDir != "":
		return p.errorf("coverage", "configures a build directory of its own (compiled with %s); drop build_dir", coverFlag)
	case p.tc == Go && p.o.CoverageDir == "":
		return p.errorf("coverage", "no directory was given for the cover profile")
	}
	if p.tc == Go {
		for _, a := range p.o.Args {
			if strings.HasPrefix(strings.TrimLeft(a, "-"), "cover") {
				return p.errorf("args", "%q: coverage sets go test's -cover flags itself; drop it", a)
			}
		}
	}
	return nil
}

// goCoverage adds the flags of a Go coverage run to a test step: every
// package of the run instrumented (-coverpkg), counted atomically (tests
// may run goroutines), into one profile.
func goCoverage(p *planInput, s *Step, packages []string) {
	profile := filepath.Join(p.o.CoverageDir, "go-cover.out")
	flags := []string{"-covermode=atomic", "-coverpkg=" + strings.Join(packages, ","), "-coverprofile=" + profile}
	// After "go test -json" and before the packages and the caller's args.
	s.Argv = append(s.Argv[:3:3], append(flags, s.Argv[3:]...)...)
	s.Coverage = &Coverage{Tool: "go", Profile: profile, Tried: "go test " + strings.Join(flags[:2], " ") + " -coverprofile"}
}

// cmakeCoverageArgs are the configure arguments of a CMake coverage build:
// the compiler and linker flags with --coverage, on top of what the caller
// gives in configure_args or the environment (which CMake reads only when
// the variable is not given).
func cmakeCoverageArgs(o Options) []string {
	vars := []struct{ name, env string }{
		{"CMAKE_C_FLAGS", "CFLAGS"}, {"CMAKE_CXX_FLAGS", "CXXFLAGS"},
		{"CMAKE_EXE_LINKER_FLAGS", "LDFLAGS"}, {"CMAKE_SHARED_LINKER_FLAGS", "LDFLAGS"}, {"CMAKE_MODULE_LINKER_FLAGS", "LDFLAGS"},
	}
	args := append([]string(nil), o.ConfigureArgs...)
	for _, v := range vars {
		if i, val, ok := configureArg(args, v.name); ok {
			args[i] = "-D" + v.name + "=" + withFlag(val, coverFlag)
			continue
		}
		args = append(args, "-D"+v.name+"="+withFlag(o.Env[v.env], coverFlag))
	}
	return args
}

// configureArgs are the arguments of cmake's configure step: the caller's,
// and for a coverage run the flags that compile with --coverage (so that
// they give a build directory of their own, see planCMakeConfig).
func configureArgs(o Options) []string {
	if o.Coverage {
		return cmakeCoverageArgs(o)
	}
	return o.ConfigureArgs
}

// configureArg finds -DNAME=value (or -DNAME:TYPE=value) in args.
func configureArg(args []string, name string) (int, string, bool) {
	for i, a := range args {
		rest, ok := strings.CutPrefix(a, "-D"+name)
		if !ok || (rest != "" && rest[0] != '=' && rest[0] != ':') {
			continue
		}
		if _, val, ok := strings.Cut(rest, "="); ok {
			return i, val, true
		}
	}
	return 0, "", false
}

// withFlag adds flag to flags unless it is there.
func withFlag(flags, flag string) string {
	for _, f := range strings.Fields(flags) {
		if f == flag {
			return flags
		}
	}
	return strings.TrimSpace(flags + " " + flag)
}

// cmakeCoverage is what a CMake coverage run's test step leaves.
func cmakeCoverage(buildDir string) *Coverage {
	return &Coverage{
		Tool: "gcov", DataDirs: []string{buildDir}, Generated: []string{buildDir},
		Tried:  "CMAKE_C_FLAGS, CMAKE_CXX_FLAGS and the linker flags with " + coverFlag + " in a build directory of their own (" + buildDir + ")",
		Advice: "check that the compiler is gcc and that the project's CMakeLists.txt does not replace CMAKE_C_FLAGS/CMAKE_CXX_FLAGS (append to them instead), and that the tests ran programs it built",
	}
}

// makeCoverage is what a make coverage run's test step leaves.
func makeCoverage(dir string, o Options) *Coverage {
	c := &Coverage{
		Tool: "gcov", DataDirs: []string{dir},
		Tried:  "CFLAGS and CXXFLAGS with " + coverFlag + " and LDFLAGS=" + coverFlag + ", on make's command line or in its environment",
		Advice: "make rebuilds nothing when only flags change: run make clean (or pass args [\"-B\"]) so every object is compiled with " + coverFlag + "; and check that the compiler is gcc and that the Makefile's compile and link rules use $(CFLAGS)/$(CXXFLAGS) and $(LDFLAGS)",
	}
	if !MakeTakesFlags(dir, o) {
		c.Advice = "the Makefile assigns CFLAGS, CXXFLAGS or LDFLAGS under a conditional or with override, so the flags triage passed may have been ignored: add " + coverFlag + " to them in the Makefile; " + c.Advice
	}
	return c
}
