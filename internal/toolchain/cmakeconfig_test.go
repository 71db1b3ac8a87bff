package toolchain

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cmakeProject writes a CMakeLists.txt and returns its directory.
func cmakeProject(t *testing.T, lists string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "CMakeLists.txt"), []byte(lists), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCMakeBuildTypeAndDirectory(t *testing.T) {
	plain := cmakeProject(t, "project(p C)\nadd_executable(p p.c)\n")
	ownType := cmakeProject(t, "project(p C)\nif(NOT CMAKE_BUILD_TYPE)\n  SET( CMAKE_BUILD_TYPE Release)\nendif()\n")
	tests := []struct {
		name      string
		dir       string
		o         Options
		buildType string // the -DCMAKE_BUILD_TYPE passed, "" for none
		buildDir  string // relative to dir
	}{
		{"no build type anywhere: Debug, for debug info", plain, Options{}, "Debug", ".triage/build/debug"},
		{"the caller's configuration", plain, Options{Configuration: "Release"}, "Release", ".triage/build/release-g"},
		{"the project's own default", ownType, Options{}, "", ".triage/build/default-g"},
		{"configuration overrides the project's", ownType, Options{Configuration: "Debug"}, "Debug", ".triage/build/debug"},
		{"configure args set it", plain, Options{ConfigureArgs: []string{"-DCMAKE_BUILD_TYPE:STRING=MinSizeRel"}}, "", ".triage/build/minsizerel-g"},
		{"the environment sets it", plain, Options{Env: map[string]string{"CMAKE_BUILD_TYPE": "RelWithDebInfo"}}, "", ".triage/build/relwithdebinfo"},
		{"an explicit build dir", plain, Options{BuildDir: "out"}, "Debug", "out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps, err := TestPlan(CMake, tt.dir, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			configure, test := steps[0].Argv, steps[2]
			want := filepath.Join(tt.dir, tt.buildDir)
			if configure[4] != want || test.Dir != want {
				t.Errorf("build dir %s, test in %s; want %s", configure[4], test.Dir, want)
			}
			var got string
			for _, a := range configure {
				if v, ok := strings.CutPrefix(a, "-DCMAKE_BUILD_TYPE="); ok {
					got = v
				}
			}
			if got != tt.buildType {
				t.Errorf("-DCMAKE_BUILD_TYPE=%q, want %q (%q)", got, tt.buildType, configure)
			}
			// -g for every build type without it; CFLAGS and the type's flags kept.
			if g := slices.Contains(configure, "-DCMAKE_C_FLAGS_INIT=-g"); g != strings.HasSuffix(tt.buildDir, "-g") {
				t.Errorf("configure %q: -g added %v, want it exactly for a build type without debug info", configure, g)
			}
			if c := strings.Join(test.Argv, " "); (tt.buildType != "") != strings.Contains(c, "-C "+tt.buildType) {
				t.Errorf("ctest %q: want -C %s exactly when a build type is passed", c, tt.buildType)
			}
		})
	}
}

// Each call builds what its own arguments say: a configuration, and the
// compiler flags CMake only reads when it first configures a directory,
// each get a build directory of their own.
func TestCMakeNothingSticky(t *testing.T) {
	dir := cmakeProject(t, "project(p C)\n")
	dirOf := func(o Options) string {
		steps, err := TestPlan(CMake, dir, o)
		if err != nil {
			t.Fatal(err)
		}
		return steps[len(steps)-1].Dir
	}
	plain := dirOf(Options{})
	if release := dirOf(Options{Configuration: "Release"}); release == plain {
		t.Errorf("release and default share %s", plain)
	}
	asan := dirOf(Options{Env: map[string]string{"CFLAGS": "-fsanitize=address"}})
	if asan == plain || !strings.HasPrefix(filepath.Base(asan), "debug-") {
		t.Errorf("CFLAGS set: build dir %s, want a debug-HASH directory apart from %s", asan, plain)
	}
	if again := dirOf(Options{Env: map[string]string{"CFLAGS": "-fsanitize=address"}}); again != asan {
		t.Errorf("the same flags got %s then %s: the directory must be reused", asan, again)
	}
	if dirOf(Options{Env: map[string]string{"OTHER": "1"}}) != plain {
		t.Error("a variable CMake does not cache changed the build directory")
	}
	// Settings CMake caches on the first configure: CMAKE_* variables and
	// configure arguments.
	seen := map[string]string{plain: "none", asan: "CFLAGS"}
	for name, o := range map[string]Options{
		"CMAKE_EXPORT_COMPILE_COMMANDS": {Env: map[string]string{"CMAKE_EXPORT_COMPILE_COMMANDS": "ON"}},
		"CMAKE_GENERATOR":               {Env: map[string]string{"CMAKE_GENERATOR": "Ninja"}},
		"-DFOO=ON":                      {ConfigureArgs: []string{"-DFOO=ON"}},
		"-DFOO=OFF":                     {ConfigureArgs: []string{"-DFOO=OFF"}},
	} {
		d := dirOf(o)
		if other, ok := seen[d]; ok {
			t.Errorf("%s shares %s with %s", name, d, other)
		}
		seen[d] = name
		if again := dirOf(o); again != d {
			t.Errorf("%s: %s then %s", name, d, again)
		}
	}
	if d := dirOf(Options{Env: map[string]string{"CMAKE_BUILD_TYPE": "Debug"}}); d != plain {
		t.Errorf("CMAKE_BUILD_TYPE=Debug in the environment: %s, want %s", d, plain)
	}
}
