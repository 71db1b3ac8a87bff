package run

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/coredump"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/toolchain"
	"github.com/triage-dev/triage/internal/verdict"
)

// A crash whose frame has no file:line for want of debug info is answered
// with the calls that rebuild with debug info and rerun only what crashed,
// run as given: the next answer has the file:line. Where no call can do it
// (the file is not the project's, the project's own flags drop -g), the
// hint says what to change instead.

// testRebuildHints are the next calls after a test crash without debug
// info: for CMake, cargo and swift, the same test call in the debug
// configuration, running only the crashed test; for make, which does not
// recompile on a flag change, a clean build, then the same test call.
func (r planRequest) testRebuildHints(tc string, c *pipeline.TestCrash) []verdict.Hint {
	nd := c.NoDebugInfo
	if nd == nil {
		return nil
	}
	if h, ok := notTheProjects(nd, r.projectDir); ok {
		return []verdict.Hint{h}
	}
	args := r.sameCall()
	switch toolchain.Toolchain(tc) {
	case toolchain.CMake:
		if toolchain.HasDebugInfoType(toolchain.CMakeBuildType(r.projectDir, r.options)) {
			return []verdict.Hint{{Text: "the build type already has -g, so the project's own flags drop it (look for -g0, -s or CMAKE_C_FLAGS_DEBUG in its CMakeLists.txt); fix that and test again"}}
		}
		args["configuration"] = "debug"
		if c.Test != "" {
			args["run"] = []string{"^" + regexp.QuoteMeta(c.Test) + "$"}
		}
		return []verdict.Hint{{Text: "rebuild with debug info and rerun " + orAll(c.Test), Tool: "test", Args: args}}
	case toolchain.Cargo, toolchain.Swift:
		if c := strings.ToLower(r.options.Configuration); c == "" || c == "debug" || c == "dev" {
			return []verdict.Hint{{Text: "the debug profile already has debug info, so the project's profile settings drop it (debug = 0 or strip in Cargo.toml); fix that and test again"}}
		}
		args["configuration"] = "debug"
		if name := lastElement(c.Test); name != "" {
			args["run"] = []string{name}
		}
		return []verdict.Hint{{Text: "rebuild with debug info and rerun " + orAll(c.Test), Tool: "test", Args: args}}
	case toolchain.Make:
		env := withDebugFlags(r.options.Env)
		o := r.options
		o.Env = env
		if !toolchain.MakeCompilesWithDebugInfo(r.projectDir, o) {
			return []verdict.Hint{{Text: "the Makefile sets CFLAGS/CXXFLAGS itself (under a condition, or with override, or in args): add -g there, then build the clean target and test again"}}
		}
		if len(env) > 0 {
			args["env"] = env
		}
		clean := map[string]any{"project_dir": r.projectDir, "targets": []string{"clean"}}
		return []verdict.Hint{
			{Text: "make does not recompile on a flag change: remove the objects built without -g", Tool: "build", Args: clean},
			{Text: "then rebuild with -g and rerun the tests", Tool: "test", Args: args},
		}
	}
	return []verdict.Hint{{Text: "rebuild " + nd.File + " with -g and test again"}}
}

// runRebuildHints are the next calls after a `run` crash without debug
// info. A program built by CMake (a CMakeCache.txt above it) is rebuilt
// in triage's debug build directory of its source tree, and run from
// there with the same arguments; any other, the hint says how.
func runRebuildHints(nd *coredump.NoDebugInfo, in processParams, program string) []verdict.Hint {
	if nd == nil {
		return nil
	}
	src, rel, built := cmakeTarget(program)
	if h, ok := notTheProjects(nd, filepath.Dir(program), in.projectDir(), src, strings.TrimSuffix(program, rel)); ok && nd.File != program {
		return []verdict.Hint{h}
	}
	if built {
		o := toolchain.Options{Configuration: "debug"}
		rerun := map[string]any{"program": filepath.Join(toolchain.CMakeBuildDir(src, o), rel), "args": in.argsOrEmpty()}
		if in.Cwd != "" || in.ProjectDir != "" {
			rerun["cwd"] = argpath.Base(in.Cwd, in.ProjectDir) // as it ran
		}
		if len(in.Env) > 0 {
			rerun["env"] = in.Env
		}
		return []verdict.Hint{
			{Text: "rebuild its CMake project with debug info", Tool: "build", Args: map[string]any{"project_dir": src, "configuration": "debug"}},
			{Text: "then run the debug build the same way", Tool: "run", Args: rerun},
		}
	}
	return []verdict.Hint{{Text: "rebuild " + nd.File + " with debug info (-g in CFLAGS/CXXFLAGS, with its objects rebuilt) and run it again"}}
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

// sameCall is the test call's own arguments, for a rerun that changes
// only what the hint changes.
func (r planRequest) sameCall() map[string]any {
	args := map[string]any{"project_dir": r.projectDir}
	if r.toolchain != "" {
		args["toolchain"] = r.toolchain
	}
	o := r.options
	if len(o.Targets) > 0 {
		args["targets"] = o.Targets
	}
	if len(o.Args) > 0 {
		args["args"] = o.Args
	}
	if o.Jobs != 0 {
		args["jobs"] = o.Jobs
	}
	if len(o.Env) > 0 {
		args["env"] = o.Env
	}
	if r.timeoutS > 0 {
		args["timeout_s"] = r.timeoutS
	}
	return args
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

func (p processParams) argsOrEmpty() []string {
	if p.Args == nil {
		return []string{}
	}
	return p.Args
}
