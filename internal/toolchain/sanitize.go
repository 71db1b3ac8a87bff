package toolchain

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// The checkers a test plan can build with (Options.Check): each a
// sanitizer, in a build of triage's own, or Go's race detector or -asan.
const (
	CheckMemory    = "memory"    // AddressSanitizer (leaks not reported)
	CheckLeaks     = "leaks"     // AddressSanitizer with LeakSanitizer
	CheckUndefined = "undefined" // UBSan, every report fatal
	CheckThread    = "thread"    // ThreadSanitizer; go test -race
)

// sanitizer is the compiler's name of a check's sanitizer.
func sanitizer(check string) string {
	switch check {
	case CheckMemory, CheckLeaks:
		return "address"
	case CheckUndefined:
		return "undefined"
	case CheckThread:
		return "thread"
	}
	return ""
}

// sanitizeFlags are the compiler flags of a check's build: frame pointers
// keep the report's stacks whole, and UBSan's reports end the test (it
// would print and go on, and the test could pass).
func sanitizeFlags(check string) []string {
	flags := []string{"-fsanitize=" + sanitizer(check), "-fno-omit-frame-pointer"}
	if check == CheckUndefined {
		flags = append(flags, "-fno-sanitize-recover=all")
	}
	return flags
}

// sanitizeDirSuffix names a check's build directory apart from the plain
// one: a sanitizer build's objects are not the plain build's.
func sanitizeDirSuffix(check string) string {
	switch sanitizer(check) {
	case "address":
		return "-asan"
	case "undefined":
		return "-ubsan"
	case "thread":
		return "-tsan"
	}
	return ""
}

// sanitizeEnv sets the sanitizer runtimes' options of a check's test step,
// where the caller set none: memory leaves leaks to leaks; UBSan prints
// the stack of its report.
func sanitizeEnv(s *Step, check string) {
	set := func(k, v string) {
		if _, ok := s.Env[k]; ok {
			return
		}
		if _, ok := os.LookupEnv(k); ok {
			return
		}
		if s.Env == nil {
			s.Env = map[string]string{}
		}
		s.Env[k] = v
	}
	switch check {
	case CheckMemory:
		set("ASAN_OPTIONS", "detect_leaks=0")
	case CheckLeaks:
		set("ASAN_OPTIONS", "detect_leaks=1")
	case CheckUndefined:
		set("UBSAN_OPTIONS", "print_stacktrace=1")
	}
}

// checkSanitize refuses a check a plan cannot build with, saying what can.
func checkSanitize(p *planInput) error {
	c := p.o.Check
	switch {
	case c == "":
		return nil
	case sanitizer(c) == "":
		return p.errorf("check", "%q: want memory, leaks, undefined or thread", c)
	case p.tc == Go:
		return checkGoSanitize(p)
	case p.tc == Make:
		// make VAR=… on the command line replaces the Makefile's own
		// value of VAR, flags the project needs with it: no sound way.
		return p.errorf("check", "a plain Makefile's CFLAGS cannot be given the sanitizer's flags without replacing its own (make CFLAGS=… overrides them): add %s -g to the Makefile's CFLAGS/CXXFLAGS and -fsanitize=%s to its LDFLAGS and run test without check (the report fails the test the same way), or run one test program with run's check: memory (valgrind memcheck, no rebuild)",
			strings.Join(sanitizeFlags(c), " "), sanitizer(c))
	case p.tc == Autotools:
		if planAutotoolsConfig(p).inSource {
			return p.errorf("check", "the source directory is configured in-source (config.status there), so the sanitizer build cannot be configured out of tree: run make distclean there first")
		}
	case p.tc == CMake || p.tc == Meson:
	default:
		return p.errorf("check", "sanitizer builds are made for go, cmake, meson and autotools projects; build this one with -fsanitize=%s yourself (its report is read the same way), or run a program with run's check: memory (valgrind)", sanitizer(c))
	}
	if p.o.BuildDir != "" {
		return p.errorf("check", "configures a build directory of its own (compiled with -fsanitize=%s); drop build_dir", sanitizer(c))
	}
	if p.o.Coverage {
		return p.errorf("check", "and coverage are separate builds: ask for one at a time")
	}
	return nil
}

// checkGoSanitize refuses what go test cannot check: UBSan (Go has
// none), and -asan without cgo or off the platforms that have it.
func checkGoSanitize(p *planInput) error {
	switch p.o.Check {
	case CheckUndefined:
		return p.errorf("check", "go has no undefined-behaviour sanitizer: use thread (-race) or memory (-asan, for cgo)")
	case CheckThread:
		return nil
	}
	if v, ok := p.o.Env["CGO_ENABLED"]; (ok && v == "0") || (!ok && os.Getenv("CGO_ENABLED") == "0") {
		return p.errorf("check", "%s is go test -asan, which needs cgo: CGO_ENABLED is 0", p.o.Check)
	}
	if !slices.Contains([]string{"amd64", "arm64", "loong64", "ppc64le", "riscv64"}, runtime.GOARCH) || runtime.GOOS != "linux" {
		return p.errorf("check", "%s is go test -asan, which %s/%s does not have", p.o.Check, runtime.GOOS, runtime.GOARCH)
	}
	cc := p.o.Env["CC"]
	if cc == "" {
		cc = os.Getenv("CC")
	}
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(strings.Fields(cc + " gcc")[0]); err != nil {
		return p.errorf("check", "%s is go test -asan, which needs a C compiler (gcc 7+ or clang 9+); %s: %v", p.o.Check, cc, err)
	}
	return nil
}

// goSanitizeFlags are go test's flags of a check: -race, or -asan.
func goSanitizeFlags(check string) []string {
	switch check {
	case CheckThread:
		return []string{"-race"}
	case CheckMemory, CheckLeaks:
		return []string{"-asan"}
	}
	return nil
}

// cmakeSanitizeArgs are the configure arguments of a check's CMake build:
// the sanitizer's flags (and -g when the build type lacks it) through
// CMAKE_<LANG>_FLAGS_INIT, which keeps CFLAGS and the type's own flags,
// and the linkers' likewise, for the sanitizer's runtime; and, since a
// project that assigns CMAKE_C_FLAGS outright (set(CMAKE_C_FLAGS "-O2"))
// drops the _INIT flags, the same flags again through a script of
// triage's in the build directory that CMake includes after the project's
// project() (CMAKE_PROJECT_INCLUDE, CMake 3.15+; cmakeSanitizeScript).
func cmakeSanitizeArgs(check string, debugInfo bool, buildDir string) []string {
	flags := strings.Join(cmakeSanitizeCompileFlags(check, debugInfo), " ")
	link := "-fsanitize=" + sanitizer(check)
	return []string{"-DCMAKE_C_FLAGS_INIT=" + flags, "-DCMAKE_CXX_FLAGS_INIT=" + flags,
		"-DCMAKE_EXE_LINKER_FLAGS_INIT=" + link, "-DCMAKE_SHARED_LINKER_FLAGS_INIT=" + link, "-DCMAKE_MODULE_LINKER_FLAGS_INIT=" + link,
		"-DCMAKE_PROJECT_INCLUDE=" + filepath.Join(buildDir, cmakeSanitizeFile)}
}

// cmakeSanitizeCompileFlags are a check's compile flags: -g first when
// the build type has none.
func cmakeSanitizeCompileFlags(check string, debugInfo bool) []string {
	if debugInfo {
		return append([]string{"-g"}, sanitizeFlags(check)...)
	}
	return sanitizeFlags(check)
}

// cmakeSanitizeFile is the script a check's CMake build directory holds
// for CMAKE_PROJECT_INCLUDE.
const cmakeSanitizeFile = "triage-sanitize.cmake"

// cmakeSanitizeScript adds a check's flags to every C and C++ target as
// compile and link options, which no assignment of CMAKE_<LANG>_FLAGS
// drops: once (include_guard), after the top-level project(), so that
// every directory below inherits them; only to C and C++ compiles
// (COMPILE_LANGUAGE), a CUDA or Fortran compiler may not take them.
func cmakeSanitizeScript(check string, debugInfo bool) string {
	var b strings.Builder
	b.WriteString("# Written by triage: the sanitizer build's flags, kept whatever the project sets CMAKE_<LANG>_FLAGS to.\ninclude_guard(GLOBAL)\n")
	for _, f := range cmakeSanitizeCompileFlags(check, debugInfo) {
		b.WriteString("add_compile_options(\"$<$<COMPILE_LANGUAGE:C,CXX>:" + f + ">\")\n")
	}
	b.WriteString("add_link_options(-fsanitize=" + sanitizer(check) + ")\n")
	return b.String()
}

// cmakeSanitizeSetup makes a check's configure step write its script
// (cmakeSanitizeScript) into the build directory, which it runs in, and
// returns the step that makes that directory when it is not there yet.
func cmakeSanitizeSetup(p *planInput, conf *Step, cfg cmakeConfig) []Step {
	if p.o.Check == "" {
		return nil
	}
	conf.Dir = cfg.buildDir
	conf.Files = map[string]string{cmakeSanitizeFile: cmakeSanitizeScript(p.o.Check, cfg.addDebugInfo)}
	if fi, err := p.o.files().Stat(cfg.buildDir); err == nil && fi.IsDir() {
		return nil
	}
	return []Step{p.step(StepMkdir, "mkdir", "-p", cfg.buildDir)}
}

// mesonSanitizeArgs are meson setup's options of a check's build, unless
// the caller gives b_sanitize: -Db_lundef=false, which clang's sanitizers
// need for shared libraries.
func mesonSanitizeArgs(o Options) []string {
	if o.Check == "" {
		return o.ConfigureArgs
	}
	for _, a := range o.ConfigureArgs {
		if strings.HasPrefix(a, "-Db_sanitize=") {
			return o.ConfigureArgs
		}
	}
	return append(slices.Clone(o.ConfigureArgs), "-Db_sanitize="+sanitizer(o.Check), "-Db_lundef=false")
}
