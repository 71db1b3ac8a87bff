package toolchain

import (
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/testreport"
	"github.com/triage-dev/triage/internal/verdict"
)

// Autotools: a configure.ac (or configure.in) at the project's root. triage
// configures out of tree, in a build directory of its own per
// configuration, .triage/build/autotools-CONFIG[-HASH] in the project: the
// project's configure run there by its absolute path (a VPATH build), then
// make -C DIR, and make -C DIR check for the tests.
//
// Quirks of autoconf and automake the plans account for:
//   - A tree without configure (a checkout) has to be bootstrapped, in the
//     source tree: every bootstrap writes configure, Makefile.in and helper
//     scripts there. The project's own autogen.sh or bootstrap script is
//     run when it has one (projects often need theirs: a directory to make,
//     gettext or gtk-doc set up first), with NOCONFIGURE=1, which most such
//     scripts take as "do not run configure"; one that runs configure
//     without looking at NOCONFIGURE would configure the source tree
//     in-source, so autoreconf -fi bootstraps such a project instead.
//   - automake's configure refuses to configure out of tree a source
//     directory configured in-source ("source directory already
//     configured; run "make distclean" there first"). A config.status in
//     the source directory makes the plan build there, as it is configured,
//     as the make toolchain does (configuration and configure_args, which
//     it could not honour, are refused saying so).
//   - configure keeps its arguments and precious variables (CC, CFLAGS,
//     PKG_CONFIG_PATH…) in config.status, and the Makefiles it writes rerun
//     config.status --recheck when configure changes. So the arguments and
//     those variables name a build directory of their own (a hash, as for
//     CMake and meson), which is configured once, when it has no
//     config.status or no Makefile (a configure that failed), and which
//     make keeps current after that.
//   - make check builds the test programs (check_PROGRAMS) just before it
//     runs them, so that a test program's compile error would come in the
//     tests' step. For an automake project the test plan's build step is
//     make check TESTS= TEST_SUITE_LOG=: everything, the test programs
//     included, and no test run (unless the root Makefile.am has a check-local rule, which
//     would run then: such a project's build step is plain make). A test
//     program listed only in TESTS (check_PROGRAMS = $(TESTS)) is still
//     built in the tests' step.
//   - configure run by its absolute path makes srcdir absolute, so that
//     compile errors name sources by their absolute paths; make -C DIR
//     prints its "Entering directory" lines, by which the automake reader
//     finds each failed test's NAME.log beside it in the build directory.
//   - A hand-written Makefile.in without VPATH support does not build out
//     of tree: configure such a project in-source (./configure), and the
//     plan builds it there.

// autotoolsDirPrefix keeps triage's autotools build directories apart from
// a CMake or meson one of the same project.
const autotoolsDirPrefix = "autotools-"

// The configurations of an autotools plan: debug (the default) compiles
// with autotoolsDebugFlags, release with configure's own default flags
// (gcc's -g -O2).
const (
	autotoolsDebug   = "debug"
	autotoolsRelease = "release"
)

// autotoolsDebugFlags go to configure as CFLAGS and CXXFLAGS in the debug
// configuration, where the caller gives neither: debug info and frames not
// optimised away.
const autotoolsDebugFlags = "-g -O0"

// bootstrapScripts are the projects' own bootstrap scripts, in the order
// they are preferred.
var bootstrapScripts = []string{"autogen.sh", "bootstrap", "bootstrap.sh"}

// autotoolsFlagEnv are the variables configure keeps from its first run in
// a build directory (its precious variables and the compilers' flags): a
// build directory per set of their values.
var autotoolsFlagEnv = append(slices.Clone(flagEnv), "LIBS", "CPP", "CXXCPP", "PKG_CONFIG", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "YACC", "YFLAGS", "LEX", "CONFIG_SITE", "LT_SYS_LIBRARY_PATH")

var (
	// runsConfigure matches a script line that runs configure
	// ("$srcdir/configure "$@"", "./configure"), or says to.
	runsConfigure = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/configure(["'\s;&|)]|$)`) })
	// checkLocal matches a Makefile.am's check-local rule.
	checkLocal = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^check-local\s*:`) })
)

// autotoolsConfig is what an autotools plan configures: the configuration
// and the build directory; inSource when the source directory is
// configured already (config.status), and built there.
type autotoolsConfig struct {
	name     string
	buildDir string
	inSource bool
}

func planAutotoolsConfig(p *planInput) autotoolsConfig {
	if isFile(p.o.files(), filepath.Join(p.dir, "config.status")) {
		return autotoolsConfig{buildDir: p.dir, inSource: true}
	}
	c := autotoolsConfig{name: autotoolsDebug}
	if strings.EqualFold(p.o.Configuration, autotoolsRelease) {
		c.name = autotoolsRelease
	}
	if d := p.o.BuildDir; d != "" {
		if !filepath.IsAbs(d) {
			d = filepath.Join(p.dir, d)
		}
		c.buildDir = filepath.Clean(d)
		return c
	}
	suffix := settingsSuffix(p.o.Env, func(k string) bool { return slices.Contains(autotoolsFlagEnv, k) }, p.o.ConfigureArgs)
	c.buildDir = filepath.Join(p.dir, triageBuildRoot, autotoolsDirPrefix+c.name+sanitizeDirSuffix(p.o.Check)+suffix)
	return c
}

// checkAutotools refuses what an autotools plan cannot honour.
func checkAutotools(p *planInput, c autotoolsConfig) error {
	switch conf := p.o.Configuration; {
	case c.inSource && (conf != "" || len(p.o.ConfigureArgs) > 0 || p.o.BuildDir != ""):
		return p.errorf("configuration/configure_args", "the source directory is configured in-source (config.status there), so configure cannot run out of tree and triage builds it as it is configured: run make distclean there first to have triage configure it")
	case conf != "" && !strings.EqualFold(conf, autotoolsDebug) && !strings.EqualFold(conf, autotoolsRelease):
		return p.errorf("configuration", "%q is not an autotools configuration: debug (CFLAGS=%s, the default) or release (configure's own flags)", conf, autotoolsDebugFlags)
	case len(p.o.Run) > 0 || len(p.o.Skip) > 0:
		return p.errorf("run/skip", `make check has no test filter by name; pass the tests to run in args (e.g. ["TESTS=test-name"])`)
	}
	return nil
}

// autotoolsSetup is what comes before make: the checks, and the steps
// that bootstrap and configure the build directory when it needs them.
func autotoolsSetup(p *planInput) (autotoolsConfig, []Step, error) {
	c := planAutotoolsConfig(p)
	if err := checkAutotools(p, c); err != nil {
		return c, nil, err
	}
	if c.inSource {
		return c, nil, nil
	}
	fsys := p.o.files()
	var steps []Step
	bootstrap, bootstrapping := autotoolsBootstrap(p)
	if bootstrapping {
		steps = append(steps, bootstrap)
	}
	configured := isFile(fsys, filepath.Join(c.buildDir, "config.status")) && isFile(fsys, filepath.Join(c.buildDir, "Makefile"))
	if configured && p.o.BuildDir == "" {
		// The arguments name the directory: configured with these. A
		// directory of the caller's is configured on every call.
		return c, steps, nil
	}
	if fi, err := fsys.Stat(c.buildDir); err != nil || !fi.IsDir() {
		steps = append(steps, p.step(StepMkdir, "mkdir", "-p", c.buildDir))
	}
	// A bootstrap writes configure executable.
	argv := []string{filepath.Join(p.dir, "configure")}
	if !bootstrapping && !isExecutable(fsys, argv[0]) {
		argv = append([]string{"sh"}, argv...)
	}
	configure := p.step(StepConfigure, append(argv, autotoolsConfigureArgs(p, c)...)...)
	configure.Dir = c.buildDir
	return c, append(steps, configure), nil
}

// autotoolsConfigureArgs are configure's arguments: the debug flags for
// each of CFLAGS and CXXFLAGS the caller gives neither in the environment
// nor in configure_args (debug configuration), then configure_args; a
// check's flags last (sanitizeautotools.go).
func autotoolsConfigureArgs(p *planInput, c autotoolsConfig) []string {
	if p.o.Check != "" {
		return append(slices.Clone(p.o.ConfigureArgs), autotoolsSanitizeArgs(p.o)...)
	}
	var args []string
	if c.name == autotoolsDebug {
		for _, v := range debugFlagVars {
			if _, ok := p.o.Env[v]; !ok && !argsAssign(p.o.ConfigureArgs, v) {
				args = append(args, v+"="+autotoolsDebugFlags)
			}
		}
	}
	return append(args, p.o.ConfigureArgs...)
}

// autotoolsBootstrap is the step that generates configure in the source
// tree, and whether one is needed: there is no configure, or an automake
// project has no Makefile.in.
func autotoolsBootstrap(p *planInput) (Step, bool) {
	fsys := p.o.files()
	has := func(name string) bool { return isFile(fsys, filepath.Join(p.dir, name)) }
	if has("configure") && (!has("Makefile.am") || has("Makefile.in")) {
		return Step{}, false
	}
	for _, name := range bootstrapScripts {
		path := filepath.Join(p.dir, name)
		if !has(name) || !ownBootstrap(fsys, path) {
			continue
		}
		argv := []string{"sh", name}
		if isExecutable(fsys, path) {
			argv = []string{"./" + name}
		}
		s := p.step(StepBootstrap, argv...)
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env["NOCONFIGURE"] = "1"
		return s, true
	}
	return p.step(StepBootstrap, "autoreconf", "-fi"), true
}

// ownBootstrap reports whether the project's bootstrap script at path is
// to be run: it does not run configure, or it takes NOCONFIGURE.
func ownBootstrap(fsys Files, path string) bool {
	f, err := fsys.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	text, err := io.ReadAll(io.LimitReader(f, maxMakefileScan))
	if err != nil {
		return false
	}
	return strings.Contains(string(text), "NOCONFIGURE") || !runsConfigure().Match(text)
}

// isExecutable reports whether path is a file its owner may run (false
// where the file system does not say: a project on another host).
func isExecutable(fsys Files, path string) bool {
	fi, err := fsys.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o100 != 0
}

// isAutomakeProject reports whether the project's root Makefile is
// automake's (a Makefile.am there).
func isAutomakeProject(p *planInput) bool {
	return isFile(p.o.files(), filepath.Join(p.dir, "Makefile.am"))
}

// checkBuildTargets are the targets of a test plan's build step for an
// automake project: make check with no test to run (TESTS=) builds
// everything the tests need, and with no test-suite log (TEST_SUITE_LOG=)
// prints no summary of zero tests; nil (make's default) when the root
// Makefile.am has a check-local rule, which make check would run.
func checkBuildTargets(p *planInput) []string {
	if !isAutomakeProject(p) {
		return nil
	}
	if f, err := p.o.files().Open(filepath.Join(p.dir, "Makefile.am")); err == nil {
		defer f.Close()
		if text, err := io.ReadAll(io.LimitReader(f, maxMakefileScan)); err == nil && checkLocal().Match(text) {
			return nil
		}
	}
	return []string{"check", "TESTS=", "TEST_SUITE_LOG="}
}

// autotoolsMake runs make in the build directory.
func autotoolsMake(p *planInput, c autotoolsConfig, name string, targets []string) Step {
	argv := append([]string{"make", "-C", c.buildDir}, jobsArg("--jobs", p.o.Jobs)...)
	s := p.step(name, append(argv, targets...)...)
	s.Dir = c.buildDir
	return s
}

// autotoolsBuild configures when needed, then runs make (the targets
// given, and args) in the build directory.
func autotoolsBuild(p *planInput) ([]Step, error) {
	c, steps, err := autotoolsSetup(p)
	switch {
	case err != nil:
		return nil, err
	case c.inSource:
		return makeBuild(p)
	}
	return append(steps, autotoolsMake(p, c, StepBuild, append(slices.Clone(p.o.Targets), p.o.Args...))), nil
}

// autotoolsTest builds everything the tests need (checkBuildTargets), then
// runs make check (or the targets given) with args.
func autotoolsTest(p *planInput) ([]Step, error) {
	c, steps, err := autotoolsSetup(p)
	if err != nil {
		return nil, err
	}
	if c.inSource {
		return autotoolsInSourceTest(p)
	}
	targets := p.o.Targets
	if len(targets) == 0 {
		targets = []string{"check"}
	}
	test := autotoolsMake(p, c, StepTest, append(slices.Clone(targets), p.o.Args...))
	if isAutomakeProject(p) {
		test.Format = testreport.FormatAutomake
	}
	sanitizeEnv(&test, p.o.Check)
	return append(steps, autotoolsMake(p, c, StepBuild, checkBuildTargets(p)), test), nil
}

// autotoolsInSourceTest is make's test plan of a tree configured
// in-source, after a build step as autotoolsTest's.
func autotoolsInSourceTest(p *planInput) ([]Step, error) {
	steps, err := makeTest(p)
	if err != nil {
		return nil, err
	}
	var targets []string
	if testTarget(p.o.files(), p.dir) == "check" && isAutomake(p.o.files(), p.dir) {
		targets = checkBuildTargets(p)
	}
	return append([]Step{makeStep(p, StepBuild, targets)}, steps...), nil
}

// AutotoolsBuildDir is the build directory an autotools plan for dir with
// o configures and builds in: the project's directory when it is
// configured in-source.
func AutotoolsBuildDir(dir string, o Options) string {
	return planAutotoolsConfig(&planInput{tc: Autotools, dir: dir, o: o}).buildDir
}

// AutotoolsBuildNote says in a sentence what an autotools plan for dir
// with o configures and where: "configuration debug (the default:
// CFLAGS/CXXFLAGS -g -O0 unless given), built out of tree in
// /p/.triage/build/autotools-debug", and what a bootstrap writes into the
// source tree.
func AutotoolsBuildNote(dir string, o Options) string {
	p := &planInput{tc: Autotools, dir: dir, o: o}
	c := planAutotoolsConfig(p)
	if c.inSource {
		return "configured in-source (config.status in " + dir + "): built there as configured, as make does; run make distclean there to have triage configure it out of tree"
	}
	what := "configuration " + c.name
	switch {
	case o.Check != "":
		what += ", " + autotoolsSanitizeNote(o)
	case c.name == autotoolsRelease:
		what += " (as asked: configure's own flags)"
	case o.Configuration != "":
		what += " (as asked: CFLAGS/CXXFLAGS " + autotoolsDebugFlags + " unless given)"
	default:
		what += " (the default: CFLAGS/CXXFLAGS " + autotoolsDebugFlags + " unless given)"
	}
	note := what + ", built out of tree in " + c.buildDir
	// The note is made after the run too, when a bootstrap that ran has
	// left configure and autom4te.cache (which no release tarball has).
	if s, ok := autotoolsBootstrap(p); ok {
		note += "; configure is generated first in the source tree (" + s.CommandLine() + "), which writes configure, Makefile.in and helper scripts there, as every autotools bootstrap does"
	} else if fi, err := p.o.files().Stat(filepath.Join(dir, "autom4te.cache")); err == nil && fi.IsDir() {
		note += "; configure and Makefile.in were generated in the source tree (autom4te.cache is there), as every autotools bootstrap does (triage's bootstrap step, when there was no configure)"
	}
	return note
}

// autotoolsRebuildHints: a tree configured in-source is make's; out of
// tree, the debug configuration (or the caller's flags with -g) in a build
// directory of its own, unless the build had -g already and the project's
// flags drop it. make check has no filter: the hint reruns every test.
func autotoolsRebuildHints(call TestCall) []verdict.Hint {
	p := &planInput{tc: Autotools, dir: call.ProjectDir, o: call.Options}
	c := planAutotoolsConfig(p)
	if c.inSource {
		return makeRebuildHints(call)
	}
	args := call.args()
	switch {
	case c.name == autotoolsRelease:
		args["configuration"] = autotoolsDebug
	case givenFlagsLackDebugInfo(call.Options.Env):
		args["env"] = withDebugFlags(call.Options.Env)
	case argsAssign(call.Options.ConfigureArgs, "CFLAGS") || argsAssign(call.Options.ConfigureArgs, "CXXFLAGS"):
		return []verdict.Hint{{Text: "configure_args give CFLAGS/CXXFLAGS: add -g there and test again"}}
	default:
		return []verdict.Hint{{Text: "the build had CFLAGS " + autotoolsDebugFlags + ", so the project's own flags drop -g (look for -g0 or -s in configure.ac's CFLAGS, or in Makefile.am's AM_CFLAGS/AM_LDFLAGS); fix that and test again"}}
	}
	return []verdict.Hint{{Text: "rebuild with debug info (in a build directory of its own) and rerun the tests", Tool: "test", Args: args}}
}

// givenFlagsLackDebugInfo reports whether the caller's CFLAGS or CXXFLAGS
// have no -g.
func givenFlagsLackDebugInfo(env map[string]string) bool {
	for _, v := range debugFlagVars {
		if flags, ok := env[v]; ok && !hasDebugInfo(flags) {
			return true
		}
	}
	return false
}
