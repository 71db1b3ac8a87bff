package toolchain

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// clang's flags for LLVM's source-based coverage: the compiler's, and the
// linker's, which links the profile runtime (libclang_rt.profile).
var (
	clangCompileFlags = []string{"-fprofile-instr-generate", "-fcoverage-mapping"}
	clangLinkFlags    = []string{"-fprofile-instr-generate"}
)

// coverFlags are the flags a coverage run adds to the flag variable v
// (CFLAGS, LDFLAGS, CMAKE_C_FLAGS, CMAKE_EXE_LINKER_FLAGS…): gcc's
// --coverage, or clang's source-based flags when clang compiles.
func coverFlags(v string, clang bool) []string {
	switch {
	case !clang:
		return []string{coverFlag}
	case v == "LDFLAGS" || strings.Contains(v, "LINKER"):
		return clangLinkFlags
	}
	return clangCompileFlags
}

// withFlags adds each of add that flags lacks.
func withFlags(flags string, add []string) string {
	for _, f := range add {
		flags = withFlag(flags, f)
	}
	return flags
}

// cmakeCompiler is the C compiler a CMake build uses as the caller names
// it: -DCMAKE_C_COMPILER (or CXX) in configure_args, else CC (or CXX) in
// the environment, else CMake's default, cc.
func cmakeCompiler(o Options) string {
	for _, name := range []string{"CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER"} {
		if _, v, ok := configureArg(o.ConfigureArgs, name); ok && v != "" {
			return v
		}
	}
	return envCompiler(o)
}

// envCompiler is CC, else CXX, as the step sees them, else cc.
func envCompiler(o Options) string {
	for _, v := range []string{"CC", "CXX"} {
		if c := envOf(o, v); c != "" {
			return c
		}
	}
	return "cc"
}

// makeCompiler is the C compiler a make build uses, in make's order: CC
// on make's command line, else the Makefile's (which overrides the
// environment's), else the environment's CC or CXX, else cc.
func makeCompiler(dir string, o Options) string {
	if v, ok := argsValue(o.Args, "CC"); ok && v != "" {
		return v
	}
	if a, ok := makefileVars(o.files(), dir, isCompilerVar)["CC"]; ok && !a.unknown && a.value != "" {
		return a.value
	}
	return envCompiler(o)
}

// planClang is the clang a make or CMake plan (or an autotools one of a
// tree configured in-source, which is make's) compiles with, "" for
// another compiler or toolchain.
func planClang(p *planInput) string {
	switch p.tc {
	case CMake:
		return clangPath(cmakeCompiler(p.o), p.o)
	case Make, Autotools:
		return clangPath(makeCompiler(p.dir, p.o), p.o)
	}
	return ""
}

func isCompilerVar(name string) bool { return name == "CC" || name == "CXX" }

// clangPath is the clang a compiler command runs (its first word after a
// ccache), resolved through PATH and symbolic links (cc may be clang),
// or "" when it is not clang or, on another host, cannot be told.
func clangPath(compiler string, o Options) string {
	if r, ok := o.files().(*readOnce); ok {
		return r.clangPath(compiler, o)
	}
	return findClang(compiler, o)
}

// findClang is clangPath, asked of the file system.
func findClang(compiler string, o Options) string {
	words := strings.Fields(compiler)
	for len(words) > 1 && filepath.Base(words[0]) == "ccache" {
		words = words[1:]
	}
	if len(words) == 0 || !local(o.files()) {
		return ""
	}
	path := words[0]
	if !strings.Contains(path, "/") {
		found, err := lookPath(path, envOf(o, "PATH"))
		if err != nil {
			return ""
		}
		path = found
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil || !strings.HasPrefix(filepath.Base(resolved), "clang") {
		return ""
	}
	return strings.Join(append([]string{path}, words[1:]...), " ")
}

// lookPath finds name in the directories of path (the step's PATH).
func lookPath(name, path string) (string, error) {
	for _, d := range filepath.SplitList(path) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

// clangCoverage makes a C/C++ test step a clang coverage run: its programs
// write their raw profiles into the coverage directory, read after the run
// with llvm-profdata and llvm-cov of clang's LLVM, for the instrumented
// programs found under objectDir.
func clangCoverage(p *planInput, s *Step, clang, objectDir, tried, advice string) {
	if s.Env == nil {
		s.Env = map[string]string{}
	}
	s.Env["LLVM_PROFILE_FILE"] = filepath.Join(p.o.CoverageDir, "%p-%m.profraw")
	s.Coverage = &Coverage{
		Tool: "llvm-cov", Compiler: clang, ProfileDir: p.o.CoverageDir, ObjectDirs: []string{objectDir},
		Tried:  tried + " and LLVM_PROFILE_FILE in " + p.o.CoverageDir,
		Advice: advice,
	}
}
