package toolchain

import (
	"errors"
	"fmt"
	"maps"
	"strings"
)

// Step names.
const (
	StepBootstrap = "bootstrap" // generates configure (autotools)
	StepMkdir     = "mkdir"     // makes the build directory configure runs in
	StepConfigure = "configure"
	StepClean     = "clean"
	StepBuild     = "build"
	StepTest      = "test"
)

// Options select what a plan builds or tests and how. The zero value builds
// or tests everything the toolchain builds or tests by default.
type Options struct {
	// Configuration is the build configuration, only passed when set:
	//   go:    "debug" (-gcflags=all=-N -l, for debuggers) or "release" (-trimpath)
	//   cargo: a profile: "debug"/"dev" (the default), "release", or a custom one
	//   cmake: CMAKE_BUILD_TYPE (Debug, Release, RelWithDebInfo, ...), also
	//          --config for multi-config generators and -C for ctest
	//   meson: --buildtype (plain, debug, debugoptimized, release, minsize,
	//          custom; CMake's RelWithDebInfo and MinSizeRel are taken too)
	//   swift: "debug" or "release"
	//   make:  none (pass variables in Args)
	Configuration string
	// Targets selects what to build: go package patterns (default ./...),
	// cargo packages (--package), cmake targets (--target), meson targets
	// (meson compile's), swift targets (one build step each), make targets
	// (for tests, instead of the test target).
	Targets []string
	// Features are go build tags or cargo features.
	Features []string
	// Run and Skip select tests: go -run/-skip regular expressions (several
	// are joined with '|'), cargo/libtest name substrings, ctest -R/-E
	// regular expressions, meson test names (exact; no skip), swift test
	// --filter/--skip. make has no filter.
	Run, Skip []string
	// Args are appended to the main command (the build, or the test runner).
	// For cargo test, arguments after a "--" go to the test harness.
	Args []string
	// ConfigureArgs are appended to the configure step: cmake's
	// (-DFOO=ON), or meson setup's (-Dfoo=true). They give a build
	// directory of their own.
	ConfigureArgs []string
	// BuildDir is the cmake or meson build directory, relative to the
	// project or absolute; triage's own (.triage/build/NAME) when empty.
	BuildDir string
	// Jobs caps build parallelism (go -p, cargo/swift --jobs, cmake
	// --parallel, meson compile --jobs, make --jobs, ctest --parallel,
	// meson test --num-processes); 0 leaves the tool's default.
	Jobs int
	// Env holds environment overrides for every step.
	Env map[string]string
	// Coverage makes a test plan collect line coverage (go, cargo, and gcc
	// under cmake or make); the test step's Coverage says where the data is.
	Coverage bool
	// CoverageDir is where a Go coverage run writes its profile, and a
	// cargo one its raw LLVM profiles.
	CoverageDir string
	// Check builds and runs the tests with a checker (CheckMemory,
	// CheckLeaks, CheckUndefined, CheckThread; sanitize.go): go test's
	// -race or -asan, a sanitizer build of cmake's, meson's or autotools'
	// in a build directory of its own.
	Check string
	// Clean makes a build plan start from a clean tree: swift's first step
	// is `swift package clean` (StepClean). Other toolchains refuse it.
	Clean bool
	// Files is where the project's files are read; nil is this machine.
	Files Files `json:"-"`
}

// Step is one command of a plan.
type Step struct {
	Name string            `json:"name"` // StepConfigure, StepClean, StepBuild or StepTest
	Argv []string          `json:"argv"`
	Dir  string            `json:"dir"`
	Env  map[string]string `json:"env,omitempty"` // overrides of the inherited environment
	// Format is the testreport format of a test step's output; "" for
	// build steps, and for test output of unknown shape (use ParseAuto).
	Format string `json:"format,omitempty"`
	// ReportFile is a machine-readable report the step writes (ctest's
	// JUnit XML), in ReportFormat. A file left by an earlier run may be
	// there: remove it before running the step.
	ReportFile   string `json:"report_file,omitempty"`
	ReportFormat string `json:"report_format,omitempty"`
	// Filter shows the test selection applied ("" when every test runs), so
	// that a run in which nothing ran can name the filter that selected
	// nothing.
	Filter string `json:"filter,omitempty"`
	// NoHangStacks: when the step times out, take no stacks of its process;
	// the tests run where triage cannot reach them (a simulator).
	NoHangStacks bool `json:"-"`
	// Files are written into Dir before the step runs, each only where no
	// file of that name is there yet (the project's own wins).
	Files map[string]string `json:"-"`
	// Coverage, on a coverage run's test step, says where its data is.
	Coverage *Coverage `json:"coverage,omitempty"`
}

// CommandLine renders the argv for people, quoting arguments that need it.
// It is for display only: steps are run as argv, never through a shell.
func (s Step) CommandLine() string {
	parts := make([]string, len(s.Argv))
	for i, a := range s.Argv {
		parts[i] = shellQuote(a)
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'\\$`|&;<>()*?[]{}!#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// OptionError reports an option a toolchain cannot honour. It says which
// option and why, so that the caller can pass the message on as is.
type OptionError struct {
	Toolchain Toolchain
	Option    string // the Options field, in tool-argument spelling
	Reason    string
}

func (e *OptionError) Error() string {
	if e.Toolchain == "" {
		return fmt.Sprintf("option %s: %s", e.Option, e.Reason)
	}
	return fmt.Sprintf("option %s for %s: %s", e.Option, e.Toolchain, e.Reason)
}

// planner makes the build and test plans of one toolchain.
type planner struct {
	build, test func(p *planInput) ([]Step, error)
}

var planners = map[Toolchain]planner{
	Go:        {goBuild, goTest},
	Cargo:     {cargoBuild, cargoTest},
	CMake:     {cmakeBuild, cmakeTest},
	Meson:     {mesonBuild, mesonTest},
	Autotools: {autotoolsBuild, autotoolsTest},
	Swift:     {swiftBuild, swiftTest},
	Make:      {makeBuild, makeTest},
}

// planInput is what a toolchain's planner works from: options checked for
// the common rules, and the project directory made absolute.
type planInput struct {
	tc  Toolchain
	dir string
	o   Options
}

func (p *planInput) errorf(option, format string, args ...any) error {
	return &OptionError{Toolchain: p.tc, Option: option, Reason: fmt.Sprintf(format, args...)}
}

// step returns a step in the project directory with a copy of the options'
// environment.
func (p *planInput) step(name string, argv ...string) Step {
	return Step{Name: name, Argv: argv, Dir: p.dir, Env: maps.Clone(p.o.Env)}
}

// Plan returns the steps of a build or a test (kind is StepBuild or
// StepTest) of the project in dir, and what runs them: an explicit argv
// when one is given ("command"), else the toolchain named (name), else the
// one detected in dir.
func Plan(kind string, argv []string, name, dir string, o Options) ([]Step, string, error) {
	if argv != nil {
		steps, err := CommandPlan(kind, argv, dir, o)
		return steps, "command", err
	}
	var tc Toolchain
	var err error
	if name != "" {
		tc, err = Parse(name)
	} else {
		tc, err = detectIn(o.files(), dir)
	}
	if err != nil {
		return nil, "", err
	}
	var steps []Step
	if kind == StepBuild {
		steps, err = BuildPlan(tc, dir, o)
	} else {
		steps, err = TestPlan(tc, dir, o)
	}
	return steps, string(tc), err
}

// BuildPlan returns the steps that build the project in dir with tc.
func BuildPlan(tc Toolchain, dir string, o Options) ([]Step, error) {
	p, pl, err := prepare(tc, dir, o)
	if err != nil {
		return nil, err
	}
	return pl.build(p)
}

// TestPlan returns the steps that build and run the tests of the project in
// dir with tc. The last step is the test run.
func TestPlan(tc Toolchain, dir string, o Options) ([]Step, error) {
	p, pl, err := prepare(tc, dir, o)
	if err != nil {
		return nil, err
	}
	if o.Clean {
		return nil, p.errorf("clean", "cleans before a build: build with clean, then test")
	}
	return pl.test(p)
}

// CommandPlan returns a one-step plan running an explicit argv in dir, which
// overrides detection: kind is StepBuild or StepTest. Only Env and Args
// (appended) apply; other options belong in the command itself. The output
// format of a test command is unknown (Format "").
func CommandPlan(kind string, argv []string, dir string, o Options) ([]Step, error) {
	if kind != StepBuild && kind != StepTest {
		return nil, fmt.Errorf("command plan: unknown step kind %q (want %s or %s)", kind, StepBuild, StepTest)
	}
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("command plan: empty command")
	}
	if err := checkCommandOptions(o); err != nil {
		return nil, err
	}
	abs, err := absDir(o.files(), dir)
	if err != nil {
		return nil, err
	}
	if err := checkEnv(o.Env); err != nil {
		return nil, err
	}
	cmd := append(append([]string(nil), argv...), o.Args...)
	p := &planInput{dir: abs, o: o}
	return []Step{p.step(kind, cmd...)}, nil
}

// checkCommandOptions refuses options that cannot apply to an explicit
// command, rather than dropping them silently.
func checkCommandOptions(o Options) error {
	set := []struct {
		name string
		on   bool
	}{
		{"configuration", o.Configuration != ""},
		{"targets", len(o.Targets) > 0},
		{"features", len(o.Features) > 0},
		{"run", len(o.Run) > 0},
		{"skip", len(o.Skip) > 0},
		{"configure_args", len(o.ConfigureArgs) > 0},
		{"build_dir", o.BuildDir != ""},
		{"jobs", o.Jobs != 0},
		{"clean", o.Clean},
	}
	if o.Check != "" {
		return &OptionError{Option: "check", Reason: "builds with a sanitizer in the plans of go, cmake, meson and autotools, not in an explicit command: drop command to use them"}
	}
	if o.Coverage {
		return &OptionError{Option: "coverage", Reason: "is collected by the plans of go, cargo, cmake and make (gcc, clang), not by an explicit command: drop command to use them"}
	}
	for _, s := range set {
		if s.on {
			return &OptionError{Option: s.name, Reason: "does not apply to an explicit command: put it in the command"}
		}
	}
	return nil
}

// prepare checks the rules common to every toolchain. tc may be an alias.
func prepare(tc Toolchain, dir string, o Options) (*planInput, planner, error) {
	tc, err := Parse(string(tc))
	if err != nil {
		return nil, planner{}, err
	}
	pl := planners[tc]
	abs, err := absDir(o.files(), dir)
	if err != nil {
		return nil, planner{}, err
	}
	o.Files = newReadOnce(o.files())
	p := &planInput{tc: tc, dir: abs, o: o}
	if o.Jobs < 0 {
		return nil, planner{}, p.errorf("jobs", "must not be negative, got %d", o.Jobs)
	}
	for _, list := range []struct {
		option string
		values []string
	}{{"targets", o.Targets}, {"features", o.Features}, {"run", o.Run}, {"skip", o.Skip}} {
		for _, v := range list.values {
			if err := checkName(v); err != nil {
				return nil, planner{}, p.errorf(list.option, "%v", err)
			}
		}
	}
	if err := checkEnv(o.Env); err != nil {
		return nil, planner{}, err
	}
	if tc != CMake && tc != Meson && tc != Autotools && (len(o.ConfigureArgs) > 0 || o.BuildDir != "") {
		return nil, planner{}, p.errorf("configure_args/build_dir", "only cmake, meson and autotools have a configure step and a build directory")
	}
	if len(o.Features) > 0 && tc != Go && tc != Cargo {
		return nil, planner{}, p.errorf("features", "only go (build tags) and cargo (features) have them; pass definitions in args")
	}
	if err := checkCoverage(p); err != nil {
		return nil, planner{}, err
	}
	if err := checkSanitize(p); err != nil {
		return nil, planner{}, err
	}
	if o.Clean && tc != Swift {
		return nil, planner{}, p.errorf("clean", "only swift has it (swift package clean); clean with command, e.g. [\"make\", \"clean\"]")
	}
	return p, pl, nil
}

func absDir(fsys Files, dir string) (string, error) {
	abs, err := absIn(fsys, dir)
	if err != nil {
		return "", fmt.Errorf("planning: %w", err)
	}
	return abs, nil
}

// checkName refuses a target, feature or filter that a tool would read as
// an option, or that cannot travel in an argv.
func checkName(v string) error {
	switch {
	case strings.TrimSpace(v) == "":
		return errors.New("empty value")
	case strings.HasPrefix(v, "-"):
		return fmt.Errorf("%q starts with '-' and would be read as an option; put options in args", v)
	case strings.ContainsRune(v, 0):
		return fmt.Errorf("%q contains a NUL byte", v)
	}
	return nil
}

func checkEnv(env map[string]string) error {
	for k, v := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return &OptionError{Option: "env", Reason: fmt.Sprintf("invalid variable name %q", k)}
		}
		if strings.ContainsRune(v, 0) {
			return &OptionError{Option: "env", Reason: fmt.Sprintf("value of %s contains a NUL byte", k)}
		}
	}
	return nil
}

// jobsArg returns "<flag>=N", or nothing when jobs is 0.
func jobsArg(flag string, jobs int) []string {
	if jobs == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s=%d", flag, jobs)}
}
