package toolchain

import (
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/testreport"
)

// Meson: triage sets up a build directory of its own per configuration,
// .triage/build/meson-BUILDTYPE[-HASH] in the project (reused between
// calls; "meson-" keeps it apart from a CMake directory of a project that
// has both), builds with meson compile and tests with meson test.
//
// Quirks of meson (1.0) the plans account for:
//   - meson setup on a configured directory prints "Directory already
//     configured" and ignores the options given; setup --reconfigure on a
//     directory never configured fails ("does not contain a valid build
//     tree"; meson 1.1 takes it). The plan reconfigures when
//     DIR/meson-private/coredata.dat is there, the file meson itself looks
//     for (a setup that failed leaves none). On another host the plan cannot
//     see it and sets up: a configured directory then stays as it was, with
//     the same options, since the options name the directory.
//   - meson test takes test names, each "NAME" or "PROJECT:NAME", exact
//     (no pattern), and passes over names no test has; with none left it
//     prints "No suitable tests defined." and exits 0. It cannot leave a
//     test out by name (--no-suite leaves out a suite), so skip is refused.
//   - meson test rebuilds what its tests need unless --no-rebuild: the
//     build step has built everything, and a compile error is that step's.
//   - meson test's JUnit file counts a test that timed out as passed
//     (1.0.1), and a crash as a plain failure: the report file is
//     testlog.json, a JSON object a test (its result, its exit status, -N
//     for signal N, and its output).

// DefaultMesonBuildType is the build type triage sets up with unless the
// caller gives one: debug info, no optimisation, and assert() on (meson's
// b_ndebug is false unless the project says otherwise). It is meson's own
// default, given explicitly because a project's default_options may set
// another.
const DefaultMesonBuildType = "debug"

const mesonDirPrefix = "meson-"

// MesonTestlogFormat is the ReportFormat of a meson test step: its
// ReportFile is meson's testlog.json, which testreport.ParseMesonTestlog
// reads (testreport.Parse knows no such format).
const MesonTestlogFormat = testreport.FormatMesonTestlog

// mesonBuildTypes are meson's build types; mesonBuildTypeAliases takes
// CMake's names of the nearest ones.
var (
	mesonBuildTypes       = []string{"plain", "debug", "debugoptimized", "release", "minsize", "custom"}
	mesonBuildTypeAliases = map[string]string{"relwithdebinfo": "debugoptimized", "minsizerel": "minsize"}
)

// mesonFlagEnv are the variables meson reads only when it first sets up a
// build directory (compilers, their flags and linkers, pkg-config's
// path): a build directory per set of their values, as for CMake.
var mesonFlagEnv = append(slices.Clone(flagEnv), "CC_LD", "CXX_LD", "AR", "STRIP", "PKG_CONFIG", "PKG_CONFIG_PATH", "RUSTC", "RUSTFLAGS")

// mesonProjectCall matches the project() call a top-level meson.build
// starts with; a subdirectory's meson.build has none.
var mesonProjectCall = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*project[ \t]*\(`) })

// mesonRoot reports whether the meson.build at path is a project's (its
// first statement is project()), not a subdirectory's. One that cannot be
// read counts as a project's: meson will say what is wrong with it.
func mesonRoot(fsys Files, path string) bool {
	f, err := fsys.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	head, err := io.ReadAll(io.LimitReader(f, maxMakefileScan))
	return err != nil || mesonProjectCall().Match(head)
}

// mesonConfig is what a Meson plan sets up: the build type given to
// meson setup ("" when configure_args give it) and its name, and the
// build directory.
type mesonConfig struct {
	buildType string
	name      string
	buildDir  string
}

func planMesonConfig(p *planInput) mesonConfig {
	var c mesonConfig
	if t, ok := mesonArgsBuildType(p.o.ConfigureArgs); ok {
		c.name = t
	} else {
		c.buildType = DefaultMesonBuildType
		if p.o.Configuration != "" {
			c.buildType = mesonBuildType(p.o.Configuration)
		}
		c.name = c.buildType
	}
	if c.name == "" {
		c.name = "default"
	}
	if d := p.o.BuildDir; d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(p.dir, d)
		}
		c.buildDir = filepath.Clean(d)
		return c
	}
	suffix := settingsSuffix(p.o.Env, func(k string) bool { return slices.Contains(mesonFlagEnv, k) }, mesonCachedArgs(mesonSanitizeArgs(p.o)))
	c.buildDir = filepath.Join(p.dir, triageBuildRoot, mesonDirPrefix+safeDirName(strings.ToLower(c.name))+suffix)
	return c
}

// mesonBuildType is meson's name of a configuration, or "" when meson has
// none of that name.
func mesonBuildType(configuration string) string {
	c := strings.ToLower(configuration)
	if t, ok := mesonBuildTypeAliases[c]; ok {
		return t
	}
	if slices.Contains(mesonBuildTypes, c) {
		return c
	}
	return ""
}

// mesonArgsBuildType is the build type configure arguments give
// (--buildtype=T, --buildtype T or -Dbuildtype=T), and whether they give
// one.
func mesonArgsBuildType(args []string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--buildtype="); ok {
			return v, true
		}
		if v, ok := strings.CutPrefix(a, "-Dbuildtype="); ok {
			return v, true
		}
		if a == "--buildtype" {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", true
		}
	}
	return "", false
}

// mesonCachedArgs are the configure arguments that name a build
// directory by their hash: all but the build type, which names it in
// words.
func mesonCachedArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--buildtype":
			i++
		case strings.HasPrefix(a, "--buildtype="), strings.HasPrefix(a, "-Dbuildtype="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// checkMeson refuses what a Meson plan cannot honour.
func checkMeson(p *planInput) error {
	_, inArgs := mesonArgsBuildType(p.o.ConfigureArgs)
	switch c := p.o.Configuration; {
	case c != "" && inArgs:
		return p.errorf("configuration", "configure_args give the build type too (--buildtype or -Dbuildtype); give it once")
	case c != "" && mesonBuildType(c) == "":
		return p.errorf("configuration", "%q is not a meson build type: use one of %s", c, strings.Join(mesonBuildTypes, ", "))
	}
	return nil
}

// mesonSetup is the configure step: meson setup of the build directory,
// or its reconfiguration when it is set up already.
func mesonSetup(p *planInput) (Step, mesonConfig, error) {
	if err := checkMeson(p); err != nil {
		return Step{}, mesonConfig{}, err
	}
	c := planMesonConfig(p)
	argv := []string{"meson", "setup"}
	if isFile(p.o.files(), filepath.Join(c.buildDir, "meson-private", "coredata.dat")) {
		argv = append(argv, "--reconfigure")
	}
	if c.buildType != "" {
		argv = append(argv, "--buildtype="+c.buildType)
	}
	argv = append(argv, mesonSanitizeArgs(p.o)...) // b_sanitize also names the build directory
	argv = append(argv, c.buildDir, p.dir)
	return p.step(StepConfigure, argv...), c, nil
}

// mesonCompile builds the targets given, or everything.
func mesonCompile(p *planInput, c mesonConfig, args []string) Step {
	argv := []string{"meson", "compile", "-C", c.buildDir}
	argv = append(argv, jobsArg("--jobs", p.o.Jobs)...)
	argv = append(argv, p.o.Targets...)
	return p.step(StepBuild, append(argv, args...)...)
}

// mesonBuild sets up (or reconfigures), then builds.
func mesonBuild(p *planInput) ([]Step, error) {
	if len(p.o.Run) > 0 || len(p.o.Skip) > 0 {
		return nil, p.errorf("run/skip", "select tests with the test tool, not build")
	}
	setup, c, err := mesonSetup(p)
	if err != nil {
		return nil, err
	}
	return []Step{setup, mesonCompile(p, c, p.o.Args)}, nil
}

// mesonTest sets up, builds, then runs meson test in the build directory
// with the failed tests' logs printed (--print-errorlogs); Run names the
// tests, Args go to meson test. Each test keeps meson's own timeout.
func mesonTest(p *planInput) ([]Step, error) {
	if len(p.o.Skip) > 0 {
		return nil, p.errorf("skip", `meson test cannot leave a test out by name: name the tests to run in run, or leave a suite out with args ["--no-suite", "SUITE"]`)
	}
	setup, c, err := mesonSetup(p)
	if err != nil {
		return nil, err
	}
	argv := []string{"meson", "test", "-C", c.buildDir, "--print-errorlogs"}
	if len(p.o.Targets) == 0 {
		// The build step built every target. With targets it built those
		// alone, and meson test builds what the tests it runs need.
		argv = append(argv, "--no-rebuild")
	}
	argv = append(argv, jobsArg("--num-processes", p.o.Jobs)...)
	argv = append(argv, p.o.Run...) // together: meson test's names are one positional list
	argv = append(argv, p.o.Args...)
	test := p.step(StepTest, argv...)
	test.Dir = c.buildDir
	test.Format = testreport.FormatMeson
	test.ReportFile, test.ReportFormat = filepath.Join(c.buildDir, "meson-logs", "testlog.json"), MesonTestlogFormat
	test.Filter = strings.Join(p.o.Run, " ")
	sanitizeEnv(&test, p.o.Check)
	return []Step{setup, mesonCompile(p, c, nil), test}, nil
}

// MesonBuildDir is the build directory a Meson plan for dir with o sets up
// and builds in.
func MesonBuildDir(dir string, o Options) string {
	return planMesonConfig(&planInput{tc: Meson, dir: dir, o: o}).buildDir
}

// MesonBuildType is the build type of a Meson plan for dir with o: the
// caller's (Configuration, or configure_args), else
// DefaultMesonBuildType.
func MesonBuildType(dir string, o Options) string {
	return planMesonConfig(&planInput{tc: Meson, dir: dir, o: o}).name
}

// MesonBuildNote says in a sentence what a Meson plan for dir with o sets
// up and where: "build type debug (the default), built in
// /p/.triage/build/meson-debug".
func MesonBuildNote(dir string, o Options) string {
	c := planMesonConfig(&planInput{tc: Meson, dir: dir, o: o})
	what := "build type " + c.name
	switch {
	case c.buildType == "":
		what += " (from configure_args)"
	case o.Configuration != "":
		what += " (as asked)"
	default:
		what += " (the default)"
	}
	return what + ", built in " + c.buildDir
}

// mesonHasDebugInfo reports whether a meson build type compiles with -g.
func mesonHasDebugInfo(buildType string) bool {
	switch strings.ToLower(buildType) {
	case "debug", "debugoptimized", "minsize":
		return true
	}
	return false
}

// BuildNote says what a plan of the toolchain tc configured and where,
// for those that configure a build directory of triage's own (CMake,
// Meson, autotools); "" for the others.
func BuildNote(tc, dir string, o Options) string {
	switch Toolchain(tc) {
	case CMake:
		return CMakeBuildNote(dir, o)
	case Meson:
		return MesonBuildNote(dir, o)
	case Autotools:
		return AutotoolsBuildNote(dir, o)
	}
	return ""
}
