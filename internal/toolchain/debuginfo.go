package toolchain

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/verdict"
)

// A crash whose frame has no file:line for want of debug info is answered
// with the calls that rebuild with debug info and rerun only what crashed,
// run as given: the next answer has the file:line. Where no call can do it
// (the file is not the project's, the project's own flags drop -g), the
// hint says what to change instead.

// TestCall is a test call's own arguments: a rerun hint changes only what
// it must. Toolchain is "" when detected, "command" for an explicit argv.
type TestCall struct {
	ProjectDir, Toolchain string
	Options               Options
	TimeoutS              float64
	SSHHost               string // the host the project is on
}

// TestRebuildHints are the next calls after a test crash without debug
// info in nd, while test ran ("" when unknown), under the toolchain tc
// that ran it: for CMake, Meson, cargo and swift, the same test call in the
// debug configuration, running only the crashed test; for make, which
// does not recompile on a flag change, a clean build, then the same test
// call; for autotools, the test call in the debug configuration (a build
// directory of its own), or make's hints for a tree configured in-source.
func TestRebuildHints(tc string, call TestCall, nd *coredump.NoDebugInfo, test string) []verdict.Hint {
	if nd == nil {
		return nil
	}
	if h, ok := notTheProjects(nd, call.ProjectDir); ok {
		return []verdict.Hint{h}
	}
	switch Toolchain(tc) {
	case CMake:
		return cmakeRebuildHints(call, test)
	case Meson:
		return mesonRebuildHints(call, test)
	case Cargo, Swift:
		return profileRebuildHints(call, test)
	case Make:
		return makeRebuildHints(call)
	case Autotools:
		return autotoolsRebuildHints(call)
	}
	return []verdict.Hint{{Text: "rebuild " + nd.File + " with -g and test again"}}
}

func cmakeRebuildHints(call TestCall, test string) []verdict.Hint {
	buildType := CMakeBuildType(call.ProjectDir, call.Options)
	_, inArgs, fromArgs := configureArg(call.Options.ConfigureArgs, "CMAKE_BUILD_TYPE")
	if fromArgs {
		buildType = inArgs
	}
	if HasDebugInfoType(buildType) {
		return []verdict.Hint{{Text: "the build type already has -g, so the project's own flags drop it (look for -g0, -s or CMAKE_C_FLAGS_DEBUG in its CMakeLists.txt); fix that and test again"}}
	}
	if fromArgs {
		// They would override configuration's -DCMAKE_BUILD_TYPE.
		return []verdict.Hint{{Text: "configure_args give CMAKE_BUILD_TYPE=" + inArgs + ", which has no debug info: give -DCMAKE_BUILD_TYPE=Debug there instead and test again"}}
	}
	args := call.args()
	args["configuration"] = "debug"
	if test != "" {
		args["run"] = []string{"^" + regexp.QuoteMeta(test) + "$"}
	}
	return []verdict.Hint{{Text: "rebuild with debug info and rerun " + orAll(test), Tool: "test", Args: args}}
}

// mesonRebuildHints: the debug build type, unless the build type already
// has -g or configure_args give it (configuration would then clash).
func mesonRebuildHints(call TestCall, test string) []verdict.Hint {
	buildType := MesonBuildType(call.ProjectDir, call.Options)
	if mesonHasDebugInfo(buildType) {
		return []verdict.Hint{{Text: "the build type " + buildType + " already has -g, so the project's own flags drop it (look for debug=false, -g0 or strip in configure_args or meson.build's default_options); fix that and test again"}}
	}
	if _, ok := mesonArgsBuildType(call.Options.ConfigureArgs); ok {
		return []verdict.Hint{{Text: "configure_args give the build type " + buildType + ", which has no debug info: give --buildtype=debug there and test again"}}
	}
	args := call.args()
	args["configuration"] = "debug"
	if test != "" {
		args["run"] = []string{test} // meson test's names are exact
	}
	return []verdict.Hint{{Text: "rebuild with debug info and rerun " + orAll(test), Tool: "test", Args: args}}
}

// profileRebuildHints: cargo and swift build in a profile.
func profileRebuildHints(call TestCall, test string) []verdict.Hint {
	if c := strings.ToLower(call.Options.Configuration); c == "" || c == "debug" || c == "dev" {
		return []verdict.Hint{{Text: "the debug profile already has debug info, so the project's profile settings drop it (debug = 0 or strip in Cargo.toml); fix that and test again"}}
	}
	args := call.args()
	args["configuration"] = "debug"
	if name := lastElement(test); name != "" {
		args["run"] = []string{name}
	}
	return []verdict.Hint{{Text: "rebuild with debug info and rerun " + orAll(test), Tool: "test", Args: args}}
}

func makeRebuildHints(call TestCall) []verdict.Hint {
	env := withDebugFlags(call.Options.Env)
	o := call.Options
	o.Env = env
	if !MakeCompilesWithDebugInfo(call.ProjectDir, o) {
		return []verdict.Hint{{Text: "the Makefile sets CFLAGS/CXXFLAGS itself (under a condition, or with override, or in args): add -g there, then build the clean target and test again"}}
	}
	args := call.args()
	if len(env) > 0 {
		args["env"] = env
	}
	clean := map[string]any{"project_dir": call.ProjectDir, "targets": []string{"clean"}}
	if call.SSHHost != "" {
		clean["ssh_host"] = call.SSHHost
	}
	return []verdict.Hint{
		{Text: "make does not recompile on a flag change: remove the objects built without -g", Tool: "build", Args: clean},
		{Text: "then rebuild with -g and rerun the tests", Tool: "test", Args: args},
	}
}

// args are the test call's own arguments.
func (call TestCall) args() map[string]any {
	args := map[string]any{"project_dir": call.ProjectDir}
	if call.Toolchain != "" {
		args["toolchain"] = call.Toolchain
	}
	o := call.Options
	if len(o.Targets) > 0 {
		args["targets"] = o.Targets
	}
	if len(o.Args) > 0 {
		args["args"] = o.Args
	}
	if len(o.ConfigureArgs) > 0 {
		args["configure_args"] = o.ConfigureArgs
	}
	if o.Jobs != 0 {
		args["jobs"] = o.Jobs
	}
	if len(o.Env) > 0 {
		args["env"] = o.Env
	}
	if call.TimeoutS > 0 {
		args["timeout_s"] = call.TimeoutS
	}
	if call.SSHHost != "" {
		args["ssh_host"] = call.SSHHost
	}
	return args
}

// RunCall is a run call's own arguments, Program absolute when a path and
// Dir the directory it ran in ("" when neither cwd nor project_dir was
// given).
type RunCall struct {
	Program    string
	Args       []string
	Dir        string
	ProjectDir string
	Env        map[string]string
}

// RunRebuildHints are the next calls after a `run` crash without debug
// info. A program built by CMake (a CMakeCache.txt above it) is rebuilt
// in triage's debug build directory of its source tree, and run from
// there with the same arguments; any other, the hint says how.
func RunRebuildHints(nd *coredump.NoDebugInfo, call RunCall) []verdict.Hint {
	if nd == nil {
		return nil
	}
	program := call.Program
	src, rel, built := cmakeTarget(program)
	if h, ok := notTheProjects(nd, filepath.Dir(program), call.ProjectDir, src, strings.TrimSuffix(program, rel)); ok && nd.File != program {
		return []verdict.Hint{h}
	}
	if !built {
		return []verdict.Hint{{Text: "rebuild " + nd.File + " with debug info (-g in CFLAGS/CXXFLAGS, with its objects rebuilt) and run it again"}}
	}
	args := call.Args
	if args == nil {
		args = []string{}
	}
	rerun := map[string]any{"program": filepath.Join(CMakeBuildDir(src, Options{Configuration: "debug"}), rel), "args": args}
	if call.Dir != "" {
		rerun["cwd"] = call.Dir // as it ran
	}
	if len(call.Env) > 0 {
		rerun["env"] = call.Env
	}
	return []verdict.Hint{
		{Text: "rebuild its CMake project with debug info", Tool: "build", Args: map[string]any{"project_dir": src, "configuration": "debug"}},
		{Text: "then run the debug build the same way", Tool: "run", Args: rerun},
	}
}

// notTheProjects is the hint for a file without debug info that no
// rebuild of the project makes: one outside the project's directories
// (a system library).
func notTheProjects(nd *coredump.NoDebugInfo, dirs ...string) (verdict.Hint, bool) {
	for _, d := range dirs {
		if d != "" && within(nd.File, d) {
			return verdict.Hint{}, false
		}
	}
	return verdict.Hint{Text: nd.File + " is not built by the project: install its debug symbols (the distribution's -dbg or -dbgsym package) for file:line"}, true
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// withDebugFlags is env with -g added to the compiler flag variables it
// sets without debug info; nil when it sets none.
func withDebugFlags(env map[string]string) map[string]string {
	if len(env) == 0 {
		return nil
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		out[k] = v
		if (k == "CFLAGS" || k == "CXXFLAGS") && !strings.Contains(" "+v+" ", " -g ") {
			out[k] = strings.TrimSpace(v + " -g")
		}
	}
	return out
}

// cmakeTarget finds the CMake build directory program was built in (the
// nearest CMakeCache.txt above it) and returns the source directory it
// was configured from and program's path inside the build directory.
func cmakeTarget(program string) (src, rel string, ok bool) {
	for dir := filepath.Dir(program); ; dir = filepath.Dir(dir) {
		if data, err := os.ReadFile(filepath.Join(dir, "CMakeCache.txt")); err == nil {
			src = cacheValue(string(data), "CMAKE_HOME_DIRECTORY")
			rel, err = filepath.Rel(dir, program)
			return src, rel, src != "" && err == nil
		}
		if dir == filepath.Dir(dir) {
			return "", "", false
		}
	}
}

// cacheValue reads "NAME:TYPE=value" from a CMakeCache.txt.
func cacheValue(cache, name string) string {
	for _, line := range strings.Split(cache, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, name+":") {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// lastElement is a qualified test name's own part ("suite/name" → name).
func lastElement(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func orAll(test string) string {
	if test == "" {
		return "the tests"
	}
	return "only " + test
}
