package hang

import (
	"path"
	"strings"

	"github.com/triage-dev/triage/internal/coredump"
)

// isUserFrame reports whether a frame is in the user's own code rather
// than a runtime, a standard library or a dependency.
//
// LOCAL RULE, to be replaced by the shared one internal/coredump is getting
// (one rule for every toolchain); keep its callers to this one function.
func isUserFrame(f coredump.Frame) bool {
	if f.File == "" || f.Line <= 0 || f.Function == "" {
		return false
	}
	file := f.File
	switch {
	case strings.HasPrefix(file, "./"), strings.HasPrefix(file, "../"): // glibc's build tree
		return false
	case strings.HasPrefix(file, "/rustc/"), strings.Contains(file, "/.cargo/registry/"), strings.Contains(file, "/.rustup/"):
		return false // Rust's standard library and crates.io dependencies
	case strings.HasPrefix(file, "/usr/include/"), strings.Contains(file, "/include/c++/"):
		return false // C and C++ headers
	case strings.Contains(file, "/pkg/mod/"), path.Base(file) == "_testmain.go":
		return false // Go module cache; go test's generated main
	case isGoStd(f):
		return false
	}
	if base := path.Base(f.Module); base != "." && base != "" {
		for _, lib := range []string{"libc.so", "libc-", "libstdc++", "libc++", "libpthread", "ld-linux", "libgcc_s", "libswiftCore", "libdispatch"} {
			if strings.HasPrefix(base, lib) {
				return false
			}
		}
	}
	return true
}

// isGoStd reports a frame of Go's standard library: its function's import
// path has no dot in its first element and its file sits at
// <GOROOT>/src/<import path>/. A user module named without a dot ("hang")
// lives elsewhere, so it is not mistaken for one.
func isGoStd(f coredump.Frame) bool {
	if !strings.HasSuffix(f.File, ".go") && !strings.HasSuffix(f.File, ".s") {
		return false
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
	dir := path.Dir(f.File)
	// The runtime's files also hold functions of other std packages
	// (sync.runtime_SemacquireMutex is in runtime/sema.go).
	return strings.HasSuffix(dir, "/src/"+pkg) || strings.HasSuffix(dir, "/src/runtime")
}
