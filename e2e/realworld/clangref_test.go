package realworld

import (
	"debug/elf"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The LLVM scripts/install-deps.sh installs: the clang of the corpus's
// clang cell and the llvm-profdata and llvm-cov that read its profiles.
const (
	testClang         = "clang-22"
	testClangProfdata = "llvm-profdata-22"
	testClangCov      = "llvm-cov-22"
)

// clangReference reruns the tests of triage's clang coverage build (the
// CMake build directory under dir whose cache holds clang's coverage
// flags) with ctest, each program writing its profile into a directory of
// the reference's own, and reads llvm-cov report's line figures and llvm-cov
// show's lines of the programs with coverage mapping the build made.
func clangReference(t *testing.T, _ Project, dir string) covRef {
	build := clangBuildDir(t, dir)
	profiles := t.TempDir()
	toolOutput(t, build, []string{"LLVM_PROFILE_FILE=" + filepath.Join(profiles, "%p-%m.profraw")}, "ctest")
	raws, _ := filepath.Glob(filepath.Join(profiles, "*.profraw"))
	if len(raws) == 0 {
		t.Fatalf("ctest in %s wrote no profile", build)
	}
	merged := filepath.Join(profiles, "merged.profdata")
	toolOutput(t, dir, nil, append([]string{testClangProfdata, "merge", "-sparse", "-o", merged}, raws...)...)
	exes := covmapObjects(t, build)
	objects := []string{exes[0]}
	for _, e := range exes[1:] {
		objects = append(objects, "-object="+e)
	}
	ref := covRef{Files: map[string][2]int{}, Listed: map[string]map[int]bool{}}
	// Absolute names: report names files without the prefix they share.
	export := toolOutput(t, dir, nil, append([]string{testClangCov, "report", "-instr-profile=" + merged, "-show-region-summary=false", "-show-branch-summary=false", "-show-instantiation-summary=false", "-show-functions=false"}, objects...)...)
	rows := strings.Split(string(export), "\n")
	for _, row := range rows {
		f := strings.Fields(row)
		// Filename, functions, missed, executed, lines, missed, cover.
		if len(f) != 7 || !(strings.HasSuffix(f[0], ".c") || strings.HasSuffix(f[0], ".h")) {
			continue
		}
		lines, _ := strconv.Atoi(f[4])
		missed, _ := strconv.Atoi(f[5])
		ref.Files[f[0]] = [2]int{lines - missed, lines}
	}
	prefix := commonDir(t, dir, ref.Files)
	own := map[string][2]int{}
	for name, w := range ref.Files {
		abs := filepath.Join(prefix, name)
		rel, err := filepath.Rel(dir, abs)
		if err != nil || strings.HasPrefix(rel, "..") || strings.HasPrefix(rel, ".triage") || strings.HasPrefix(abs, build+"/") {
			continue // the system's headers, the build's generated files
		}
		rel = filepath.ToSlash(rel)
		own[rel] = w
		show := toolOutput(t, dir, nil, append([]string{testClangCov, "show", "-instr-profile=" + merged, "-sources", abs}, objects...)...)
		ref.Listed[rel] = llvmListing(show)
	}
	ref.Files = own
	if len(own) == 0 {
		t.Fatalf("llvm-cov report names none of the project's files:\n%s", export)
	}
	return ref
}

// commonDir is the directory llvm-cov report's names are relative to: the
// one under which each of them is a file of the project (they share it as
// a prefix, which report leaves out).
func commonDir(t *testing.T, dir string, files map[string][2]int) string {
	t.Helper()
	for _, base := range []string{"/", dir} {
		ok := true
		for name := range files {
			if _, err := os.Stat(filepath.Join(base, name)); err != nil {
				ok = false
				break
			}
		}
		if ok {
			return base
		}
	}
	// Below the project: the deepest directory holding every file.
	var found string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || found != "" {
			return nil
		}
		for name := range files {
			if _, err := os.Stat(filepath.Join(path, name)); err != nil {
				return nil
			}
		}
		found = path
		return filepath.SkipAll
	})
	if found == "" {
		t.Fatalf("no directory under %s holds llvm-cov report's files %v", dir, files)
	}
	return found
}

// clangBuildDir is the CMake build directory under dir configured with
// clang's coverage flags.
func clangBuildDir(t *testing.T, dir string) string {
	t.Helper()
	var build string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "CMakeCache.txt" {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), "-fprofile-instr-generate") {
				build = filepath.Dir(path)
				return filepath.SkipAll
			}
		}
		return nil
	})
	if build == "" {
		t.Fatalf("no CMake build directory with clang's coverage flags under %s", dir)
	}
	return build
}

// covmapObjects are the ELF programs and libraries under dir with an
// __llvm_covmap section: those clang built with coverage mapping.
func covmapObjects(t *testing.T, dir string) []string {
	t.Helper()
	var objs []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || strings.HasSuffix(path, ".o") {
			return nil
		}
		f, err := elf.Open(path)
		if err != nil {
			return nil
		}
		defer f.Close()
		if f.Section("__llvm_covmap") != nil && (f.Type == elf.ET_EXEC || f.Type == elf.ET_DYN) {
			objs = append(objs, path)
		}
		return nil
	})
	if len(objs) == 0 {
		t.Fatalf("no program with coverage mapping under %s", dir)
	}
	return objs
}
