package toolchain

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCoveragePlans(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n"), 0o644)
	steps, err := TestPlan(Go, dir, Options{Coverage: true, CoverageDir: "/cov", Targets: []string{"./a", "./b"}, Args: []string{"-count=1"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"go", "test", "-json", "-covermode=atomic", "-coverpkg=./a,./b", "-coverprofile=/cov/go-cover.out", "-count=1", "./a", "./b"}
	if s := steps[0]; !slices.Equal(s.Argv, want) || s.Coverage == nil || s.Coverage.Profile != "/cov/go-cover.out" {
		t.Errorf("go: %q %+v", s.Argv, s.Coverage)
	}

	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("CFLAGS = -O2\ntest:\n\t./t\n"), 0o644)
	steps, err = TestPlan(Make, dir, Options{Coverage: true, Args: []string{"CXXFLAGS=-Wall"}})
	if err != nil {
		t.Fatal(err)
	}
	s := steps[0]
	if !slices.Contains(s.Argv, "CFLAGS=-O2 -g --coverage") || !slices.Contains(s.Argv, "CXXFLAGS=-Wall --coverage") || !strings.Contains(s.Env["LDFLAGS"], "--coverage") {
		t.Errorf("make: %q env %v", s.Argv, s.Env)
	}
	if s.Coverage == nil || s.Coverage.Tool != "gcov" || !slices.Equal(s.Coverage.DataDirs, []string{dir}) {
		t.Errorf("make coverage %+v", s.Coverage)
	}

	os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte("project(p C)\n"), 0o644)
	plain, _ := TestPlan(CMake, dir, Options{})
	steps, err = TestPlan(CMake, dir, Options{Coverage: true, ConfigureArgs: []string{"-DCMAKE_C_FLAGS=-Wall"}, Env: map[string]string{"LDFLAGS": "-L/x"}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := steps[0].Argv
	for _, a := range []string{"-DCMAKE_C_FLAGS=-Wall --coverage", "-DCMAKE_CXX_FLAGS=--coverage", "-DCMAKE_EXE_LINKER_FLAGS=-L/x --coverage"} {
		if !slices.Contains(cfg, a) {
			t.Errorf("cmake configure %q lacks %q", cfg, a)
		}
	}
	if steps[2].Dir == plain[2].Dir || steps[2].Coverage.DataDirs[0] != steps[2].Dir {
		t.Errorf("coverage build dir %s, plain %s: want one of its own, where the data is", steps[2].Dir, plain[2].Dir)
	}
}

func TestCoverageRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		tc   Toolchain
		o    Options
		want string
	}{
		{Cargo, Options{Coverage: true}, "no directory was given"},
		{CMake, Options{Coverage: true, BuildDir: "b"}, "drop build_dir"},
		{Go, Options{Coverage: true, CoverageDir: "/c", Args: []string{"-coverprofile=x"}}, "drop it"},
	} {
		_, err := TestPlan(tt.tc, dir, tt.o)
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %+v: %v, want an option error saying %q", tt.tc, tt.o, err, tt.want)
		}
	}
	if _, err := CommandPlan(StepTest, []string{"./t"}, dir, Options{Coverage: true}); err == nil || !strings.Contains(err.Error(), "not by an explicit command") {
		t.Errorf("command plan: %v", err)
	}
}

// A coverage plan asks for a directory (ErrNoCoverageDir) only where the
// toolchain writes its data into one: Go, cargo and clang; gcc writes
// beside its objects, so a make or CMake plan with gcc needs none.
func TestCoverageDirAskedFor(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("CC = gcc\ntest:\n\t./t\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module m\n"), 0o644)
	for _, tt := range []struct {
		tc   Toolchain
		env  map[string]string
		asks bool
	}{
		{Go, nil, true},
		{Cargo, nil, true},
		{Make, nil, false},
		{Make, map[string]string{"CC": "clang-22"}, false}, // the Makefile's CC = gcc wins
	} {
		_, err := TestPlan(tt.tc, dir, Options{Coverage: true, Env: tt.env})
		if asks := errors.Is(err, ErrNoCoverageDir); asks != tt.asks || (!asks && err != nil) {
			t.Errorf("%s %v: %v; want a directory asked for: %t", tt.tc, tt.env, err, tt.asks)
		}
	}
	if _, err := TestPlan(Make, dir, Options{Coverage: true, Args: []string{"CC=clang-22"}}); !errors.Is(err, ErrNoCoverageDir) {
		t.Errorf("make CC=clang-22: %v; want a directory asked for", err)
	}
}

// A SwiftPM coverage run adds --enable-code-coverage; SwiftPM is asked
// where it kept the JSON with the run's configuration and build location,
// and the build directory is where it builds (generated, its checkouts
// vendored); a failed test's rerun keeps the run's flags but its filters.
func TestSwiftCoveragePlan(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Package.swift"), []byte("// swift-tools-version:5.9\n"), 0o644)
	for _, tt := range []struct {
		args          []string
		argv, where   []string
		build         string
		rerunArgsTail []string
	}{
		{nil, []string{"swift", "test", "--enable-code-coverage", "--configuration=release", "--filter=A"},
			[]string{"swift", "test", "--configuration=release", "--show-codecov-path"}, filepath.Join(dir, ".build"), nil},
		{[]string{"--scratch-path", "out", "--filter=B", "-Xswiftc", "-g"},
			[]string{"swift", "test", "--enable-code-coverage", "--configuration=release", "--filter=A", "--scratch-path", "out", "--filter=B", "-Xswiftc", "-g"},
			[]string{"swift", "test", "--configuration=release", "--scratch-path", "out", "--show-codecov-path"}, filepath.Join(dir, "out"),
			[]string{"--scratch-path", "out", "-Xswiftc", "-g"}},
	} {
		steps, err := TestPlan(Swift, dir, Options{Coverage: true, Configuration: "release", Run: []string{"A"}, Args: tt.args})
		if err != nil {
			t.Fatal(err)
		}
		s := steps[0]
		c := s.Coverage
		if !slices.Equal(s.Argv, tt.argv) || c == nil || c.Tool != "swiftpm" {
			t.Fatalf("argv %q, want %q; coverage %+v", s.Argv, tt.argv, c)
		}
		if !slices.Equal(c.PathArgv, tt.where) || !slices.Equal(c.Generated, []string{tt.build}) {
			t.Errorf("path argv %q generated %q, want %q %q", c.PathArgv, c.Generated, tt.where, tt.build)
		}
		if want := append([]string{"swift", "test", "--enable-code-coverage", "--configuration=release"}, tt.rerunArgsTail...); !slices.Equal(c.Rerun, want) {
			t.Errorf("rerun %q, want %q", c.Rerun, want)
		}
	}
}

// A cargo coverage run adds -C instrument-coverage to the flags cargo
// reads (the caller's kept), builds into a target directory of its own and
// has each program write its profile into the coverage directory; the
// executables are listed with the run's own flags.
func TestCargoCoveragePlan(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[package]\nname = \"c\"\n"), 0o644)
	t.Setenv("RUSTFLAGS", "")
	os.Unsetenv("RUSTFLAGS")
	t.Setenv("CARGO_TARGET_DIR", "")
	os.Unsetenv("CARGO_TARGET_DIR")
	for _, tt := range []struct {
		env        map[string]string
		name, want string
		target     string
	}{
		{nil, "RUSTFLAGS", "-C instrument-coverage", filepath.Join(dir, "target/triage-coverage")},
		{map[string]string{"RUSTFLAGS": "--cfg x", "CARGO_TARGET_DIR": "out"}, "RUSTFLAGS", "--cfg x -C instrument-coverage", filepath.Join(dir, "out/triage-coverage")},
		{map[string]string{"RUSTFLAGS": "-Cinstrument-coverage"}, "RUSTFLAGS", "-Cinstrument-coverage", filepath.Join(dir, "target/triage-coverage")},
		{map[string]string{"CARGO_ENCODED_RUSTFLAGS": "--cfg\x1fx", "CARGO_TARGET_DIR": "/t"}, "CARGO_ENCODED_RUSTFLAGS", "--cfg\x1fx\x1f-C\x1finstrument-coverage", "/t/triage-coverage"},
	} {
		steps, err := TestPlan(Cargo, dir, Options{Coverage: true, CoverageDir: "/cov", Env: tt.env, Jobs: 1, Args: []string{"--lib", "--", "--test-threads=1"}})
		if err != nil {
			t.Fatal(err)
		}
		s := steps[0]
		if s.Env[tt.name] != tt.want || s.Env["CARGO_TARGET_DIR"] != tt.target || s.Env["LLVM_PROFILE_FILE"] != "/cov/%p-%m.profraw" {
			t.Errorf("env %v: step env %q", tt.env, s.Env)
		}
		c := s.Coverage
		if c == nil || c.Tool != "llvm-cov" || c.ProfileDir != "/cov" || !slices.Equal(c.Generated, []string{tt.target}) {
			t.Fatalf("coverage %+v", c)
		}
		if want := []string{"cargo", "test", "--no-run", "--message-format=json", "--jobs=1", "--lib"}; !slices.Equal(c.Objects, want) {
			t.Errorf("objects argv %q, want %q", c.Objects, want)
		}
	}
}

// A project whose compiler is clang (CC, or CMake's CMAKE_C_COMPILER) is
// compiled with clang's source-based coverage, its programs writing their
// profiles into the coverage directory.
func TestClangCoveragePlans(t *testing.T) {
	if _, err := exec.LookPath("clang-22"); err != nil {
		t.Fatalf("clang-22: %v (scripts/install-deps.sh installs it)", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("CFLAGS = -O2\ntest:\n\t./t\n"), 0o644)
	steps, err := TestPlan(Make, dir, Options{Coverage: true, CoverageDir: "/cov", Env: map[string]string{"CC": "ccache clang-22"}})
	if err != nil {
		t.Fatal(err)
	}
	s := steps[0]
	if !slices.Contains(s.Argv, "CFLAGS=-O2 -g -fprofile-instr-generate -fcoverage-mapping") || s.Env["LDFLAGS"] != "-fprofile-instr-generate" || s.Env["LLVM_PROFILE_FILE"] != "/cov/%p-%m.profraw" {
		t.Errorf("make: %q env %v", s.Argv, s.Env)
	}
	if c := s.Coverage; c == nil || c.Tool != "llvm-cov" || !strings.HasSuffix(c.Compiler, "/clang-22") || !slices.Equal(c.ObjectDirs, []string{dir}) {
		t.Errorf("make coverage %+v", s.Coverage)
	}

	os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte("project(p C)\n"), 0o644)
	steps, err = TestPlan(CMake, dir, Options{Coverage: true, CoverageDir: "/cov", ConfigureArgs: []string{"-DCMAKE_C_COMPILER=clang-22"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"-DCMAKE_C_FLAGS=-fprofile-instr-generate -fcoverage-mapping", "-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate"} {
		if !slices.Contains(steps[0].Argv, a) {
			t.Errorf("cmake configure %q lacks %q", steps[0].Argv, a)
		}
	}
	if c := steps[2].Coverage; c == nil || c.Tool != "llvm-cov" || c.ObjectDirs[0] != steps[2].Dir || len(c.Rerun) == 0 {
		t.Errorf("cmake coverage %+v", c)
	}
	if _, err := TestPlan(CMake, dir, Options{Coverage: true, ConfigureArgs: []string{"-DCMAKE_C_COMPILER=clang-22"}}); err == nil {
		t.Error("a clang coverage plan without a coverage directory was made")
	}
}

// make's compiler as make picks it: the command line's CC, then the
// Makefile's over the environment's.
func TestMakeCompiler(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{"CC": "clang-22"}
	if got := makeCompiler(dir, Options{Env: env}); got != "clang-22" {
		t.Errorf("no Makefile: %q", got)
	}
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("CC = gcc\ntest:\n"), 0o644)
	if got := makeCompiler(dir, Options{Env: env}); got != "gcc" {
		t.Errorf("the Makefile's gcc under env CC=clang-22: %q", got)
	}
	if got := makeCompiler(dir, Options{Env: env, Args: []string{"CC=clang-22"}}); got != "clang-22" {
		t.Errorf("CC on the command line: %q", got)
	}
	steps, err := TestPlan(Make, dir, Options{Coverage: true, CoverageDir: "/cov", Env: env})
	if err != nil || steps[0].Coverage.Tool != "gcov" {
		t.Errorf("the Makefile's gcc: %v %+v", err, steps[0].Coverage)
	}
}
