package coverage

import (
	"context"
	"debug/elf"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/triage-dev/triage/internal/spawn"
)

// clangFlags are what a clang coverage run compiles with (the plan's
// flags, internal/toolchain): source-based coverage.
var clangFlags = []string{"-fprofile-instr-generate", "-fcoverage-mapping"}

var clangVersionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`clang version ((\d+)\S*)`) })

// FindClangTools finds the LLVM tools that read what compiler (a clang,
// with the words CC gives after it) writes: llvm-profdata-N and
// llvm-cov-N of its LLVM major N, then those beside the clang it runs,
// then unversioned ones of that major. It checks too that the clang can
// link a program compiled for coverage (Debian ships its profile runtime,
// libclang_rt.profile, in a package of its own), building one in work.
// Either missing is an error saying what was tried and what to install.
func FindClangTools(ctx context.Context, dir string, env map[string]string, compiler, work string) (*LLVMTools, error) {
	argv := strings.Fields(compiler)
	if len(argv) == 0 {
		return nil, fmt.Errorf("no coverage: no compiler named")
	}
	out, err := probe(ctx, dir, env, append(argv, "--version")...)
	if err != nil {
		return nil, fmt.Errorf("no coverage: asking %s for its version: %w", argv[0], err)
	}
	m := clangVersionRE().FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("no coverage: %s --version names no clang version:\n%s", argv[0], strings.TrimSpace(out))
	}
	t := &LLVMTools{Compiler: firstLine(out)}
	t.Major, _ = strconv.Atoi(m[2])
	pairs := []llvmPair{versionedPair(t.Major)}
	if real, err := filepath.EvalSymlinks(argv[0]); err == nil && filepath.IsAbs(real) {
		bin := filepath.Dir(real)
		pairs = append(pairs, llvmPair{filepath.Join(bin, "llvm-profdata"), filepath.Join(bin, "llvm-cov")})
	}
	pairs = append(pairs, llvmPair{"llvm-profdata", "llvm-cov"})
	var tried []string
	for _, c := range pairs {
		why := c.check(ctx, dir, env, t.Major)
		if why == "" {
			t.Profdata, t.Cov = c.profdata, c.cov
			return t, checkProfileRuntime(ctx, dir, env, argv, work, t)
		}
		tried = append(tried, why)
	}
	return nil, fmt.Errorf("no coverage: %s writes LLVM %d profiles, and no llvm-profdata and llvm-cov of LLVM %d were found (tried %s): install them with `apt-get install llvm-%d`",
		t.Compiler, t.Major, t.Major, strings.Join(tried, "; "), t.Major)
}

// checkProfileRuntime builds an empty program with clang's coverage flags
// in work: a clang without its profile runtime fails to link it.
func checkProfileRuntime(ctx context.Context, dir string, env map[string]string, clang []string, work string, t *LLVMTools) error {
	src := filepath.Join(work, "triage-probe.c")
	bin := filepath.Join(work, "triage-probe")
	defer os.Remove(src)
	defer os.Remove(bin)
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o600); err != nil {
		return err
	}
	argv := append(append(append([]string(nil), clang...), clangFlags...), src, "-o", bin)
	var out limited
	res, err := spawn.Run(ctx, spawn.Spec{Argv: argv, Dir: dir, Env: env, Combined: &out, Timeout: probeTimeout})
	if err != nil {
		return fmt.Errorf("no coverage: building a program with %s: %w", strings.Join(clangFlags, " "), err)
	}
	if res.Success() {
		return nil
	}
	why := lastLines(out.String(), 3)
	if strings.Contains(out.String(), "profile") {
		return fmt.Errorf("no coverage: %s cannot link a program compiled with %s (%s): its profile runtime, libclang_rt.profile, is missing: install it with `apt-get install libclang-rt-%d-dev`, or build with gcc (CC=gcc)",
			t.Compiler, strings.Join(clangFlags, " "), why, t.Major)
	}
	return fmt.Errorf("no coverage: %s cannot build a program with %s (%s failed: %s)", t.Compiler, strings.Join(clangFlags, " "), strings.Join(argv, " "), why)
}

// InstrumentedObjects lists the programs and shared libraries under dirs
// that carry LLVM coverage mapping (an ELF __llvm_covmap section), the
// objects llvm-cov reads a clang run's profiles for; at most maxObjects.
// CMake's own directories (its compiler checks) are not looked into.
func InstrumentedObjects(dirs []string) ([]string, error) {
	var objects []string
	for _, root := range dirs {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil
			case d.IsDir():
				if path != root && (skipDirs[d.Name()] || d.Name() == "CMakeFiles") {
					return filepath.SkipDir
				}
				return nil
			case !d.Type().IsRegular() || !maybeObject(d):
				return nil
			}
			if hasCovMap(path) {
				if len(objects) >= maxObjects {
					return fmt.Errorf("more than %d programs with coverage mapping under %s", maxObjects, root)
				}
				objects = append(objects, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return objects, nil
}

// maybeObject says whether a file may be a program or a shared library:
// executable, or named .so.
func maybeObject(d fs.DirEntry) bool {
	if strings.HasSuffix(d.Name(), ".so") || strings.Contains(d.Name(), ".so.") {
		return true
	}
	info, err := d.Info()
	return err == nil && info.Mode()&0o111 != 0
}

func hasCovMap(path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Section("__llvm_covmap") != nil
}
