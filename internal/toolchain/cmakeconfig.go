package toolchain

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// DefaultCMakeConfiguration is the build type triage configures with when
// neither the project nor the caller sets one. Debug rather than
// RelWithDebInfo: an empty build type compiles without -O and without
// -DNDEBUG, and Debug only adds -g to that, so the tests behave as the
// project's own default build (RelWithDebInfo defines NDEBUG, which turns
// assert() off, and optimises frames and lines away).
const DefaultCMakeConfiguration = "Debug"

// triageBuildRoot holds triage's own CMake build directories, one per
// configuration, inside the project: the user's build/ is never
// configured by triage.
const triageBuildRoot = ".triage/build"

// flagEnv are the variables CMake reads only when it first configures a
// build directory, besides the CMAKE_* ones (CMAKE_GENERATOR,
// CMAKE_TOOLCHAIN_FILE, CMAKE_EXPORT_COMPILE_COMMANDS…): a build directory
// per set of their values, and of the configure arguments (-DFOO=ON stays
// in the cache), keeps one call's options from sticking to the next.
var flagEnv = []string{"CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS", "CPPFLAGS", "FC", "FFLAGS", "CUDACXX", "CUDAFLAGS", "ASM", "ASMFLAGS", "OBJC", "OBJCFLAGS", "OBJCXX", "OBJCXXFLAGS"}

// cmakeConfig is what a plan configures: the build type passed to cmake
// ("" when the project's or the caller's own is used) and the build
// directory.
type cmakeConfig struct {
	buildType string
	buildDir  string
	// addDebugInfo: the build type in use has no -g (the project's own
	// Release, a caller's MinSizeRel), so triage adds it through
	// CMAKE_<LANG>_FLAGS_INIT, which keeps CFLAGS and the type's own
	// flags: -g changes no generated code, and a crash gets its lines.
	addDebugInfo bool
}

func planCMakeConfig(p *planInput) cmakeConfig {
	c := cmakeConfig{buildType: p.o.Configuration}
	name := strings.ToLower(c.buildType)
	if c.buildType == "" {
		if t, ok := callerBuildType(p.o); ok {
			name = strings.ToLower(t)
		} else if !projectSetsBuildType(p.o.files(), p.dir) {
			c.buildType = DefaultCMakeConfiguration
			name = strings.ToLower(c.buildType)
		}
	}
	if name == "" {
		name = "default"
	}
	if d := p.o.BuildDir; d != "" {
		// The caller's own build tree keeps the flags its cache holds.
		if !filepath.IsAbs(d) {
			d = filepath.Join(p.dir, d)
		}
		c.buildDir = filepath.Clean(d)
		return c
	}
	if c.addDebugInfo = !HasDebugInfoType(name); c.addDebugInfo {
		name += "-g" // a directory configured before without it keeps its flags
	}
	name += sanitizeDirSuffix(p.o.Check) // debug-asan: a sanitizer's objects are not the plain build's
	c.buildDir = filepath.Join(p.dir, triageBuildRoot, safeDirName(name)+flagsSuffix(p.o.Env, configureArgs(p.o)))
	return c
}

// callerBuildType is a build type the caller set another way than
// Configuration: -DCMAKE_BUILD_TYPE in ConfigureArgs, or the
// CMAKE_BUILD_TYPE environment variable (CMake 3.22+).
func callerBuildType(o Options) (string, bool) {
	for _, a := range o.ConfigureArgs {
		if v, ok := strings.CutPrefix(a, "-DCMAKE_BUILD_TYPE"); ok {
			if i := strings.IndexByte(v, '='); i >= 0 {
				return v[i+1:], true
			}
		}
	}
	if v, ok := o.Env["CMAKE_BUILD_TYPE"]; ok && v != "" {
		return v, true
	}
	return "", false
}

// setBuildType matches a CMakeLists.txt line that sets CMAKE_BUILD_TYPE
// (often "if(NOT CMAKE_BUILD_TYPE) set(CMAKE_BUILD_TYPE Release)").
var setBuildType = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^\s*set\s*\(\s*CMAKE_BUILD_TYPE\s`) })

// projectSetsBuildType reports whether the top-level CMakeLists.txt sets
// a build type of its own, which triage then leaves to the project.
func projectSetsBuildType(fsys Files, dir string) bool {
	f, err := fsys.Open(filepath.Join(dir, "CMakeLists.txt"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxMakefileScan))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if setBuildType().MatchString(sc.Text()) {
			return true
		}
	}
	return false
}

// safeDirName keeps a configuration name usable as one path element.
func safeDirName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == '.' {
			return '_'
		}
		return r
	}, s)
}

// flagsSuffix is "-" and a short hash of the cached settings the caller
// gives (compiler and flag variables, CMAKE_* variables, configure
// arguments), or "" when it gives none. The build type is left out: it
// names the directory already.
func flagsSuffix(env map[string]string, configureArgs []string) string {
	var args []string
	for _, a := range configureArgs {
		if !strings.HasPrefix(a, "-DCMAKE_BUILD_TYPE") {
			args = append(args, a)
		}
	}
	return settingsSuffix(env, cmakeCaches, args)
}

// cmakeCaches reports whether CMake keeps what the environment variable
// named says from the first configure of a build directory on.
func cmakeCaches(name string) bool {
	return slices.Contains(flagEnv, name) || strings.HasPrefix(name, "CMAKE_") && name != "CMAKE_BUILD_TYPE"
}

// settingsSuffix is "-" and a short hash of the environment variables
// that cached selects and of args, or "" when there are none.
func settingsSuffix(env map[string]string, cached func(name string) bool, args []string) string {
	var keys []string
	for k := range env {
		if cached(k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 && len(args) == 0 {
		return ""
	}
	slices.Sort(keys)
	h := sha256.New()
	for _, k := range keys {
		io.WriteString(h, k+"="+env[k]+"\x00")
	}
	for _, a := range args {
		io.WriteString(h, "\x01"+a+"\x00")
	}
	return "-" + hex.EncodeToString(h.Sum(nil))[:8]
}

// CMakeBuildDir is the build directory a CMake plan for dir with o
// configures and builds in.
func CMakeBuildDir(dir string, o Options) string {
	return planCMakeConfig(&planInput{tc: CMake, dir: dir, o: o}).buildDir
}

// CMakeBuildType is the build type a CMake plan for dir with o passes to
// cmake: the caller's, else DefaultCMakeConfiguration; "" when the
// project's own or one set in ConfigureArgs or the environment is used.
func CMakeBuildType(dir string, o Options) string {
	return planCMakeConfig(&planInput{tc: CMake, dir: dir, o: o}).buildType
}

// HasDebugInfoType reports whether a CMake build type compiles with -g.
func HasDebugInfoType(buildType string) bool {
	switch strings.ToLower(buildType) {
	case "debug", "relwithdebinfo":
		return true
	}
	return false
}

// CMakeBuildNote says in a sentence what a CMake plan for dir with o
// configures and where: "configuration Debug (the default: the project
// sets no build type), built in /p/.triage/build/debug".
func CMakeBuildNote(dir string, o Options) string {
	c := planCMakeConfig(&planInput{tc: CMake, dir: dir, o: o})
	var what string
	switch t, fromCaller := callerBuildType(o); {
	case o.Configuration != "":
		what = "configuration " + o.Configuration + " (as asked)"
	case c.buildType == DefaultCMakeConfiguration:
		what = "configuration " + c.buildType + " (the default: the project sets no build type)"
	case fromCaller:
		what = "configuration " + t + " (from the environment or configure arguments)"
	default:
		what = "the project's own build type"
	}
	if c.addDebugInfo {
		what += " with -g added"
	}
	if o.Check != "" {
		what += " with " + strings.Join(sanitizeFlags(o.Check), " ")
	}
	return what + ", built in " + c.buildDir
}
