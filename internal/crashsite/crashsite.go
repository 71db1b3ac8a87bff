// Package crashsite decides which stack frame a crash is reported at: the
// first frame in the project's own code, not the C library's abort path,
// the Rust or Go runtime, a sanitizer's interceptor or a dependency.
//
// This is the one rule for every place that names a crash location: a core's
// first-look backtrace (coredump), the dump report, the verdict of a run and
// of a crashed test, and traces read from a program's output (a Go panic, a
// sanitizer report).
//
// A frame is one of three origins:
//
//   - Runtime: code that comes with the system or the toolchain and is
//     almost never where the bug is: libc, the dynamic loader, libstdc++,
//     libgcc, libpthread, glibc's own sources (build-relative paths such as
//     ./nptl/pthread_kill.c), Rust's std/core/alloc (/rustc/<hash>/library/…,
//     library/std/src/…), the Go runtime and testing packages
//     (GOROOT/src/runtime, testing), sanitizer runtimes (libasan,
//     compiler-rt), C++ standard headers.
//   - Dependency: third-party code the project uses: cargo registry and Go
//     module cache sources, and, when the project directory is known, any
//     absolute source path outside it.
//   - Project: everything else.
//
// Pick chooses the first Project frame with a source location, else the
// first Dependency frame with one, else the first frame that is not the
// runtime's (a stripped program's own code: "0x5555… in ??"), else the
// first frame with a source location, else frame 0.
//
// SanitizerFrame reads a frame line of a sanitizer's report, for every
// reader of one (the verdict's scanner, CTest's and automake's readers, the
// data race reader), so that a C++ or Rust name with spaces in it
// ("ns::klass::as_int(int) const") is read as one function everywhere.
//
// A Site is what a verdict shows of that frame: its source around the
// faulting line, and, from the debugger run that took the backtrace, its
// arguments and locals and a memory fault's address, each bounded; and
// the frames above it in the project's code that passed or computed the
// faulting value (AddCallers, callers.go).
package crashsite

import (
	"path"
	"path/filepath"
	"strings"
)

// Frame is what the rule needs to know of a stack frame. Zero fields are
// unknown.
type Frame struct {
	Function string // "crash_here", "main.write", "std::process::abort"
	File     string // source file as the tool printed it
	Line     int
	Module   string // shared object or image the pc is in, when known
}

// Origin says whose code a frame is in.
type Origin int

const (
	Project    Origin = iota // the project's own code
	Dependency               // third-party code the project uses
	Runtime                  // the system's or the toolchain's
)

func (o Origin) String() string {
	switch o {
	case Project:
		return "project"
	case Dependency:
		return "dependency"
	}
	return "runtime"
}

// HasSource reports whether the frame has a file:line.
func (f Frame) HasSource() bool { return f.File != "" && f.Line > 0 }

// Pick returns the index of the frame a crash is reported at, or -1 when
// there are no frames. projectDir may be empty when it is not known.
func Pick(frames []Frame, projectDir string) int {
	if len(frames) == 0 {
		return -1
	}
	dir := cleanDir(projectDir)
	dependency, notRuntime, withSource := -1, -1, -1
	for i, f := range frames {
		o := originOf(f, dir)
		switch {
		case f.HasSource() && o == Project:
			return i
		case f.HasSource() && o == Dependency && dependency < 0:
			dependency = i
		}
		if o != Runtime && notRuntime < 0 {
			notRuntime = i
		}
		if f.HasSource() && withSource < 0 {
			withSource = i
		}
	}
	for _, i := range []int{dependency, notRuntime, withSource} {
		if i >= 0 {
			return i
		}
	}
	return 0
}

// OriginOf says whose code f is in; projectDir may be empty.
func OriginOf(f Frame, projectDir string) Origin {
	return originOf(f, cleanDir(projectDir))
}

func cleanDir(dir string) string {
	if dir == "" {
		return ""
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Clean(dir)
}

func originOf(f Frame, dir string) Origin {
	if runtimeModule(f.Module) || runtimeFunction(f.Function) || runtimeFile(f.File) || goStd(f) {
		return Runtime
	}
	file := filepath.ToSlash(f.File)
	for _, d := range dependencyDirs {
		if strings.Contains(file, d) {
			return Dependency
		}
	}
	if dir != "" && filepath.IsAbs(f.File) && !within(filepath.Clean(f.File), dir) {
		return Dependency
	}
	return Project
}

func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator)) || dir == string(filepath.Separator)
}

// dependencyDirs mark sources fetched by a package manager.
var dependencyDirs = []string{
	"/.cargo/registry/", "/.cargo/git/", "/cargo/registry/", // cargo; Debian's /usr/share/cargo/registry
	"/pkg/mod/", // Go module cache
	"/vendor/",  // vendored Go and PHP-style dependencies
	"/_deps/",   // CMake FetchContent
	"/.conan/", "/.conan2/", "/vcpkg/",
}

// runtimeModules are shared objects of the C/C++ runtime, the loader and
// sanitizers (by base-name prefix), on Linux and macOS.
var runtimeModules = []string{
	"libc.so", "libc-", "libc.musl", "ld-linux", "ld-musl", "ld64.so", "ld.so",
	"libstdc++", "libc++", "libgcc_s", "libpthread", "libm.so", "libdl.so", "librt.so",
	"libasan", "libtsan", "liblsan", "libubsan", "libhwasan", "libmsan", "libclang_rt",
	"libsystem_", "libdyld", "dyld", "libobjc", "libswiftCore", "libdispatch", "libunwind",
}

func runtimeModule(mod string) bool {
	if mod == "" {
		return false
	}
	base := mod[strings.LastIndexAny(mod, `/\`)+1:]
	for _, p := range runtimeModules {
		if strings.HasPrefix(base, p) {
			return true
		}
	}
	return false
}

// runtimeFunctionPrefixes name functions of the runtimes above, for frames
// whose module is not printed (gdb omits it when a library has debug info).
var runtimeFunctionPrefixes = []string{
	// glibc's abort, assert and fortify paths.
	"__GI_", "__libc_", "__pthread_", "__assert", "__stack_chk_fail", "__fortify_fail", "__chk_fail",
	"malloc_printerr", "_IO_", "__restore_rt", "__sigaction",
	// C++ runtime.
	"std::", "__gnu_cxx::", "__cxxabiv1::", "__cxa_", "_Unwind_", "__gxx_personality",
	// Rust's std, core and alloc; the panic machinery.
	"core::", "alloc::", "<std::", "<core::", "<alloc::", "__rust_", "rust_panic", "rust_begin_unwind",
	"panic_abort::", "panic_unwind::",
	// Go runtime and testing.
	"runtime.", "runtime/", "internal/", "testing.", "reflect.",
	// Sanitizer runtimes.
	"__interceptor_", "___interceptor_", "__asan", "__tsan", "__ubsan", "__lsan", "__msan", "__hwasan", "__sanitizer",
}

// runtimeFunctions are exact names of runtime entry points.
var runtimeFunctions = map[string]bool{
	"raise": true, "abort": true, "gsignal": true, "pthread_kill": true, "__kill": true,
	"<signal handler called>": true, "_start": true, "start": true,
	"panic": true, "malloc": true, "free": true, "calloc": true, "realloc": true,
	"operator new": true, "operator delete": true, "operator new[]": true, "operator delete[]": true,
}

func runtimeFunction(fn string) bool {
	if fn == "" {
		return false
	}
	if runtimeFunctions[fn] {
		return true
	}
	for _, p := range runtimeFunctionPrefixes {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// glibcSourceDirs are the top-level directories of glibc's source tree, as
// its debug info names them relative to the build ("./nptl/...",
// "../sysdeps/...").
var glibcSourceDirs = map[string]bool{
	"nptl": true, "sysdeps": true, "stdlib": true, "assert": true, "malloc": true, "debug": true,
	"libio": true, "signal": true, "string": true, "stdio-common": true, "elf": true, "csu": true,
	"posix": true, "misc": true, "io": true, "wcsmbs": true, "iconv": true, "locale": true,
	"dlfcn": true, "setjmp": true, "resolv": true, "time": true,
}

// runtimeFile recognises the runtimes' sources by path.
func runtimeFile(file string) bool {
	if file == "" {
		return false
	}
	file = filepath.ToSlash(file)
	if rel, ok := buildRelative(file); ok {
		top, _, _ := strings.Cut(rel, "/")
		if glibcSourceDirs[top] {
			return true
		}
	}
	for _, s := range runtimePathParts {
		if strings.Contains(file, s) {
			return true
		}
	}
	for _, p := range runtimePathPrefixes {
		if strings.HasPrefix(file, p+"/src/") {
			return true
		}
	}
	if strings.HasSuffix(file, ".go") || strings.HasSuffix(file, ".s") {
		for _, p := range goRootParts {
			if strings.Contains(file, p) {
				return true
			}
		}
	}
	return false
}

// goStd reports a frame of Go's standard library (sync, time, net, ...):
// its function's import path has no dot in its first element and its file
// sits at <GOROOT>/src/<import path>/, or it is go test's generated main.
// A user module named without a dot ("hang") lives elsewhere, so it is not
// mistaken for one.
func goStd(f Frame) bool {
	file := filepath.ToSlash(f.File)
	if !strings.HasSuffix(file, ".go") && !strings.HasSuffix(file, ".s") {
		return false
	}
	if path.Base(file) == "_testmain.go" {
		return true
	}
	fn := f.Function
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 {
		return false
	}
	pkg := fn[:slash+1+dot]
	if first, _, _ := strings.Cut(pkg, "/"); strings.Contains(first, ".") || pkg == "main" {
		return false
	}
	dir := path.Dir(file)
	// The runtime's files also hold functions of other std packages
	// (sync.runtime_SemacquireMutex is in runtime/sema.go).
	return strings.HasSuffix(dir, "/src/"+pkg) || strings.HasSuffix(dir, "/src/runtime")
}

// goRootParts are GOROOT's runtime and testing packages: GOROOT/src/runtime/...
var goRootParts = []string{"/src/runtime/", "/src/testing/", "/src/internal/", "/src/reflect/"}

// buildRelative strips the "./" or "../" prefixes glibc's paths carry.
func buildRelative(file string) (string, bool) {
	rel, ok := file, false
	for {
		switch {
		case strings.HasPrefix(rel, "./"):
			rel = rel[2:]
		case strings.HasPrefix(rel, "../"):
			rel = rel[3:]
		default:
			return rel, ok
		}
		ok = true
	}
}

// runtimePathParts appear in the path of a runtime's source file.
var runtimePathParts = []string{
	"/rustc/",           // Rust's std, core, alloc: /rustc/<hash>/library/std/src/...
	"/lib/rustlib/src/", // the same, from rustup's rust-src component
	"/.rustup/",
	"libsanitizer/", "compiler-rt/",
	"/usr/include/", "/usr/lib/gcc/", "/usr/lib/llvm",
	"/glibc-", "/libgcc/", "/libstdc++-v3/",
}

// runtimePathPrefixes are Rust's standard crates as its debug info names
// them when remapped ("library/std/src/...").
var runtimePathPrefixes = []string{
	"library/std", "library/core", "library/alloc", "library/panic_abort", "library/panic_unwind",
	"library/proc_macro", "library/test", "library/backtrace", "library/stdarch",
}
