package toolchain

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Coverage says what a coverage run's test step leaves and where, for the
// caller to read once the step has run (internal/coverage).
type Coverage struct {
	Tool string `json:"tool"` // "go" (a cover profile), "gcov" (gcc's .gcda files), "llvm-cov" (rustc's or clang's profiles) or "swiftpm" (SwiftPM's JSON)
	// Profile is the Go cover profile the step writes.
	Profile string `json:"profile,omitempty"`
	// ProfileDir is where a Rust run's programs write their raw profiles
	// (LLVM_PROFILE_FILE), read with llvm-profdata and llvm-cov.
	ProfileDir string `json:"profile_dir,omitempty"`
	// Objects, for a Rust run, lists the executables its tests ran (cargo
	// test --no-run --message-format=json with the run's flags): run in
	// the test step's directory and environment, it rebuilds nothing.
	Objects []string `json:"objects,omitempty"`
	// Compiler is the clang of a C/C++ run (with the words of CC after
	// it), whose LLVM's tools read its profiles; ObjectDirs hold the
	// programs it built, those with coverage mapping read with them.
	Compiler   string   `json:"compiler,omitempty"`
	ObjectDirs []string `json:"object_dirs,omitempty"`
	// DataDirs hold gcc's .gcda files: removed before the run (gcc adds to
	// the counts it finds), read after it.
	DataDirs []string `json:"data_dirs,omitempty"`
	// PathArgv asks SwiftPM where it kept the run's coverage JSON (swift
	// test, the run's configuration and build location, and
	// --show-codecov-path).
	PathArgv []string `json:"path_argv,omitempty"`
	// Rerun runs one test with coverage, for the path a failed test took:
	// go test and the run's flags, to which go the test's -run, a profile
	// and its package; ctest of the run's configuration, to which goes -R;
	// cargo test and the run's flags, to which go the name and -- --exact;
	// swift test, its coverage flag and the run's flags and args but its
	// test selection, to which goes --filter.
	// None for make, whose tests are one target.
	Rerun []string `json:"rerun,omitempty"`
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

// ErrNoCoverageDir says a coverage run's toolchain writes its data into a
// directory of the caller's (Options.CoverageDir) and none was given: Go's
// profile, LLVM's raw profiles. gcc's data goes beside its objects, so a
// caller makes the directory only when Plan asks for it.
var ErrNoCoverageDir = errors.New("a coverage directory is needed")

// checkCoverage refuses coverage where this increment cannot collect it,
// saying what can.
func checkCoverage(p *planInput) error {
	if !p.o.Coverage {
		return nil
	}
	switch {
	case p.tc == Meson:
		return p.errorf("coverage", "not collected for meson projects yet: go, cargo, cmake, make and swift have it")
	case p.tc == Autotools && !planAutotoolsConfig(p).inSource:
		return p.errorf("coverage", "not collected for autotools builds out of tree yet: a tree configured in-source (./configure) has it, as make's")
	case !local(p.o.files()):
		return p.errorf("coverage", "not collected on another host yet (ssh_host): run the tests here")
	case p.tc == CMake && p.o.BuildDir != "":
		return p.errorf("coverage", "configures a build directory of its own (compiled with %s); drop build_dir", coverFlag)
	case p.o.CoverageDir == "" && (p.tc == Go || p.tc == Cargo || planClang(p) != ""):
		return fmt.Errorf("%w: %w", ErrNoCoverageDir, p.errorf("coverage", "no directory was given for the coverage data"))
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
// may run goroutines), into one profile. rerun (go test, the run's build
// flags and the caller's args) with the cover flags runs one test alone.
func goCoverage(p *planInput, s *Step, packages, rerun []string) {
	profile := filepath.Join(p.o.CoverageDir, "go-cover.out")
	flags := []string{"-covermode=atomic", "-coverpkg=" + strings.Join(packages, ","), "-coverprofile=" + profile}
	// After "go test -json" and before the packages and the caller's args.
	s.Argv = append(s.Argv[:3:3], append(flags, s.Argv[3:]...)...)
	s.Coverage = &Coverage{Tool: "go", Profile: profile, Tried: "go test " + strings.Join(flags[:2], " ") + " -coverprofile",
		Rerun: append(slices.Clip(rerun), flags[:2]...)}
}

// cmakeCoverageArgs are the configure arguments of a CMake coverage build:
// the compiler and linker flags with --coverage (clang's source-based
// flags when the compiler is clang), on top of what the caller gives in
// configure_args or the environment (which CMake reads only when the
// variable is not given).
func cmakeCoverageArgs(o Options) []string {
	clang := clangPath(cmakeCompiler(o), o) != ""
	vars := []struct{ name, env string }{
		{"CMAKE_C_FLAGS", "CFLAGS"}, {"CMAKE_CXX_FLAGS", "CXXFLAGS"},
		{"CMAKE_EXE_LINKER_FLAGS", "LDFLAGS"}, {"CMAKE_SHARED_LINKER_FLAGS", "LDFLAGS"}, {"CMAKE_MODULE_LINKER_FLAGS", "LDFLAGS"},
	}
	args := append([]string(nil), o.ConfigureArgs...)
	for _, v := range vars {
		if i, val, ok := configureArg(args, v.name); ok {
			args[i] = "-D" + v.name + "=" + withFlags(val, coverFlags(v.name, clang))
			continue
		}
		args = append(args, "-D"+v.name+"="+withFlags(o.Env[v.env], coverFlags(v.name, clang)))
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

// cmakeClangCoverage makes a CMake test step, whose compiler is clang, a
// clang coverage run.
func cmakeClangCoverage(p *planInput, s *Step, clang, buildDir string) {
	clangCoverage(p, s, clang, buildDir,
		"CMAKE_C_FLAGS and CMAKE_CXX_FLAGS with "+strings.Join(clangCompileFlags, " ")+", the linker flags with "+clangLinkFlags[0]+", in a build directory of their own ("+buildDir+"),",
		"check that the project's CMakeLists.txt does not replace CMAKE_C_FLAGS/CMAKE_CXX_FLAGS (append to them instead), and that the tests ran programs it built")
	s.Coverage.Generated = []string{buildDir}
}

// makeClangCoverage makes a make test step, whose compiler is clang, a
// clang coverage run.
func makeClangCoverage(p *planInput, s *Step, clang string) {
	advice := "make rebuilds nothing when only flags change: run make clean (or pass args [\"-B\"]) so every object is compiled with " + clangCompileFlags[0] +
		"; and check that the Makefile's compile and link rules use $(CFLAGS)/$(CXXFLAGS) and $(LDFLAGS)"
	if !MakeTakesFlags(p.dir, p.o) {
		advice = "the Makefile assigns CFLAGS, CXXFLAGS or LDFLAGS under a conditional or with override, so the flags triage passed may have been ignored: add " +
			strings.Join(clangCompileFlags, " ") + " to them in the Makefile; " + advice
	}
	clangCoverage(p, s, clang, p.dir,
		"CFLAGS and CXXFLAGS with "+strings.Join(clangCompileFlags, " ")+" and LDFLAGS with "+clangLinkFlags[0]+", on make's command line or in its environment,", advice)
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

// rustCoverFlag makes rustc instrument what it compiles for LLVM's
// source-based coverage.
const rustCoverFlag = "instrument-coverage"

// cargoCoverage makes a cargo test step a coverage run: rustc instruments
// every crate (-C instrument-coverage, added to the caller's RUSTFLAGS or
// CARGO_ENCODED_RUSTFLAGS, whichever cargo reads), each program writes its
// raw profile into the coverage directory, and the build goes to a target
// directory of its own (TARGET/triage-coverage) so that the flags do not
// make the caller's next plain build rebuild everything.
func cargoCoverage(p *planInput, s *Step, listArgv []string) {
	if s.Env == nil {
		s.Env = map[string]string{}
	}
	name, flags, sep := "RUSTFLAGS", envOf(p.o, "RUSTFLAGS"), " "
	parts := strings.Fields(flags)
	// cargo reads CARGO_ENCODED_RUSTFLAGS (flags separated by 0x1f) over
	// RUSTFLAGS when it is set at all.
	if v, ok := lookupEnvOf(p.o, "CARGO_ENCODED_RUSTFLAGS"); ok {
		name, flags, sep = "CARGO_ENCODED_RUSTFLAGS", v, "\x1f"
		parts = strings.Split(v, sep)
	}
	if !hasRustCoverFlag(parts) {
		flags = strings.TrimPrefix(flags+sep+"-C"+sep+rustCoverFlag, sep)
	}
	target := filepath.Join(p.dir, "target")
	if t := envOf(p.o, "CARGO_TARGET_DIR"); t != "" {
		target = t
		if !filepath.IsAbs(t) {
			target = filepath.Join(p.dir, t)
		}
	}
	target = filepath.Join(target, "triage-coverage")
	s.Env[name] = flags
	s.Env["CARGO_TARGET_DIR"] = target
	s.Env["LLVM_PROFILE_FILE"] = filepath.Join(p.o.CoverageDir, "%p-%m.profraw")
	s.Coverage = &Coverage{
		Tool: "llvm-cov", ProfileDir: p.o.CoverageDir, Objects: listArgv, Generated: []string{target},
		Tried: name + " with -C " + rustCoverFlag + ", CARGO_TARGET_DIR=" + target + " and LLVM_PROFILE_FILE in " + p.o.CoverageDir,
		Advice: "check that the tests ran (a test binary that dies on a signal, or a build that fails, writes no profile); " +
			"cargo ignores the rustflags of .cargo/config.toml when RUSTFLAGS is set: give such flags in env's RUSTFLAGS",
	}
}

// hasRustCoverFlag reports whether rustc's flags ask for instrumentation
// already (-C instrument-coverage, -Cinstrument-coverage[=…]).
func hasRustCoverFlag(flags []string) bool {
	for i, f := range flags {
		opt, ok := strings.CutPrefix(f, "-C")
		if ok && opt == "" && i+1 < len(flags) {
			opt = flags[i+1]
		}
		if opt == rustCoverFlag || strings.HasPrefix(opt, rustCoverFlag+"=") {
			return true
		}
	}
	return false
}

// envOf is v as the step sees it: the caller's env, else ours (for a plan
// run here).
func envOf(o Options, v string) string {
	val, _ := lookupEnvOf(o, v)
	return val
}

func lookupEnvOf(o Options, v string) (string, bool) {
	if val, ok := o.Env[v]; ok {
		return val, true
	}
	if !local(o.files()) {
		return "", false
	}
	return os.LookupEnv(v)
}
