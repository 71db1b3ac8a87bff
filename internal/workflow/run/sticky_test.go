package run_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// TestCMakeNothingSticky: through the real test tool on a CMake project
// with no build type, a call with a configuration and one without build
// two configurations in triage's own directories and say which; a cached
// setting one call gives (CMAKE_EXPORT_COMPILE_COMMANDS) does not reach
// the next; the user's own build/ is never touched.
func TestCMakeNothingSticky(t *testing.T) {
	nativeprojects.Need(t, "cmake", "ctest", "cc")
	c := mcptest.Connect(t, nil)
	dir := nativeprojects.Write(t, listProject())
	for _, argv := range [][]string{{"cmake", "-S", ".", "-B", "build"}, {"cmake", "--build", "build"}} {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, b)
		}
	}
	userCache := filepath.Join(dir, "build", "CMakeCache.txt")
	before, err := os.ReadFile(userCache)
	if err != nil {
		t.Fatal(err)
	}
	test := func(args map[string]any, wantDir string, want ...string) {
		t.Helper()
		args["project_dir"] = dir
		args["run"] = []string{"^list_len$"}
		r := c.Call("test", args)
		if r.Outcome != "ok" {
			t.Fatalf("%v: %s", args, r.Text)
		}
		buildDir, end := filepath.Join(dir, ".triage", "build", wantDir), ")"
		if strings.HasSuffix(wantDir, "-") { // debug-HASH
			buildDir, end = buildDir[:len(buildDir)-1]+"-", ""
		}
		for _, w := range append(want, "(in "+buildDir+end, "built in "+buildDir+strings.Repeat("\n", len(end))) {
			if !strings.Contains(r.Text, w) {
				t.Errorf("%v: the answer lacks %q:\n%s", args, w, r.Text)
			}
		}
	}
	// release has no -g of its own: triage adds it, in a directory of its own.
	test(map[string]any{"configuration": "release"}, "release-g", "-C release", "build: configuration release (as asked) with -g added")
	test(map[string]any{}, "debug", "-C Debug", "build: configuration Debug (the default: the project sets no build type)")
	for cfg, want := range map[string]string{"release-g": "CMAKE_BUILD_TYPE:STRING=release", "debug": "CMAKE_BUILD_TYPE:STRING=Debug"} {
		cache, _ := os.ReadFile(filepath.Join(dir, ".triage", "build", cfg, "CMakeCache.txt"))
		if !bytes.Contains(cache, []byte(want)) {
			t.Errorf("%s's cache lacks %s", cfg, want)
		}
	}

	test(map[string]any{"env": map[string]any{"CMAKE_EXPORT_COMPILE_COMMANDS": "ON"}}, "debug-", "-C Debug")
	test(map[string]any{}, "debug", "-C Debug")
	if _, err := os.Stat(filepath.Join(dir, ".triage", "build", "debug", "compile_commands.json")); err == nil {
		t.Error("CMAKE_EXPORT_COMPILE_COMMANDS from one call reached the default build directory")
	}

	after, err := os.ReadFile(userCache)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the user's build/CMakeCache.txt changed (%v)", err)
	}
}
