package toolchain

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/coredump"
)

// TestRebuildHintsByToolchain: the next calls after a test crash without
// debug info follow the toolchain; a file outside the project gets advice
// instead, and a configuration that has debug info already says so.
func TestRebuildHintsByToolchain(t *testing.T) {
	dir := t.TempDir()
	own := &coredump.NoDebugInfo{File: filepath.Join(dir, "target/release/deps/calc-1f2e")}
	call := TestCall{ProjectDir: dir, Toolchain: "cargo", Options: Options{Configuration: "release", Jobs: 2}, TimeoutS: 30}
	hs := TestRebuildHints("cargo", call, own, "tests/adds")
	want := map[string]any{"project_dir": dir, "toolchain": "cargo", "configuration": "debug", "run": []string{"adds"}, "jobs": 2, "timeout_s": 30.0}
	if len(hs) != 1 || hs[0].Tool != "test" || !reflect.DeepEqual(hs[0].Args, want) {
		t.Errorf("cargo release: %+v", hs)
	}
	call.Options.Configuration = "debug"
	if hs := TestRebuildHints("cargo", call, own, "adds"); len(hs) != 1 || hs[0].Tool != "" || !strings.Contains(hs[0].Text, "profile settings drop it") {
		t.Errorf("cargo debug: %+v", hs)
	}
	libc := &coredump.NoDebugInfo{File: "/usr/lib/x86_64-linux-gnu/libc.so.6"}
	if hs := TestRebuildHints("cmake", call, libc, "adds"); len(hs) != 1 || !strings.Contains(hs[0].Text, "install its debug symbols") {
		t.Errorf("a system library: %+v", hs)
	}
	if hs := TestRebuildHints("go", call, nil, "adds"); hs != nil {
		t.Errorf("no missing debug info, yet %+v", hs)
	}
}

// TestRunRebuildHintsFindTheCMakeProject: a program built by CMake is
// rebuilt in triage's debug build directory of its source tree and run
// from there, with the same arguments, directory and environment.
func TestRunRebuildHintsFindTheCMakeProject(t *testing.T) {
	src, build := t.TempDir(), t.TempDir()
	cache := "CMAKE_HOME_DIRECTORY:INTERNAL=" + src + "\n"
	if err := os.WriteFile(filepath.Join(build, "CMakeCache.txt"), []byte(cache), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(build, "bin", "app")
	hs := RunRebuildHints(&coredump.NoDebugInfo{File: prog}, RunCall{Program: prog, Args: []string{"-v"}, Dir: "/tmp", Env: map[string]string{"A": "1"}})
	rerun := map[string]any{"program": filepath.Join(CMakeBuildDir(src, Options{Configuration: "debug"}), "bin", "app"), "args": []string{"-v"}, "cwd": "/tmp", "env": map[string]string{"A": "1"}}
	if len(hs) != 2 || hs[0].Tool != "build" || hs[0].Args["project_dir"] != src || hs[1].Tool != "run" || !reflect.DeepEqual(hs[1].Args, rerun) {
		t.Errorf("hints %+v", hs)
	}
	other := filepath.Join(t.TempDir(), "a.out")
	if hs := RunRebuildHints(&coredump.NoDebugInfo{File: other}, RunCall{Program: other}); len(hs) != 1 || !strings.Contains(hs[0].Text, "-g in CFLAGS") {
		t.Errorf("not built by CMake: %+v", hs)
	}
}

// TestCMakeRebuildHintsKeepConfigureArgs: the rerun keeps the call's
// configure arguments (its build directory), and a build type they give,
// which configuration could not override, gets advice instead.
func TestCMakeRebuildHintsKeepConfigureArgs(t *testing.T) {
	dir := t.TempDir()
	own := &coredump.NoDebugInfo{File: filepath.Join(dir, "build/t")}
	call := TestCall{ProjectDir: dir, Options: Options{Configuration: "Release", ConfigureArgs: []string{"-DFOO=ON"}}}
	want := map[string]any{"project_dir": dir, "configuration": "debug", "run": []string{"^t\\.x$"}, "configure_args": []string{"-DFOO=ON"}}
	if hs := TestRebuildHints("cmake", call, own, "t.x"); len(hs) != 1 || !reflect.DeepEqual(hs[0].Args, want) {
		t.Errorf("release: %+v", hs)
	}
	for args, text := range map[string]string{
		"-DCMAKE_BUILD_TYPE=Release":           "give -DCMAKE_BUILD_TYPE=Debug there",
		"-DCMAKE_BUILD_TYPE:STRING=MinSizeRel": "give -DCMAKE_BUILD_TYPE=Debug there",
		"-DCMAKE_BUILD_TYPE=RelWithDebInfo":    "already has -g",
	} {
		call := TestCall{ProjectDir: dir, Options: Options{ConfigureArgs: []string{args}}}
		if hs := TestRebuildHints("cmake", call, own, "t"); len(hs) != 1 || hs[0].Tool != "" || !strings.Contains(hs[0].Text, text) {
			t.Errorf("%s: %+v, want advice saying %q", args, hs, text)
		}
	}
}
