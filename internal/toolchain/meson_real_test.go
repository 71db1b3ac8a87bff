package toolchain

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// mesonTestlogEntry is what these tests read of a line of meson test's
// testlog.json.
type mesonTestlogEntry struct {
	Name       string `json:"name"`
	Result     string `json:"result"`
	Returncode int    `json:"returncode"`
}

// readMesonTestlog reads a testlog.json: a JSON object a test, by name.
func readMesonTestlog(t *testing.T, path string) map[string]mesonTestlogEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]mesonTestlogEntry{}
	} else if err != nil {
		t.Fatal(err)
	}
	out := map[string]mesonTestlogEntry{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var e mesonTestlogEntry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("%s: %v: %s", path, err, line)
		}
		out[e.Name] = e
	}
	return out
}

// runMesonTests runs a Meson test plan as the pipeline does (the report
// file of an earlier run removed first) and returns whether meson test
// succeeded, its output and the tests its testlog.json holds.
func runMesonTests(t *testing.T, steps []Step) (bool, []byte, map[string]mesonTestlogEntry) {
	t.Helper()
	last := steps[len(steps)-1]
	if err := os.Remove(last.ReportFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	res, out := runPlan(t, steps, nil)
	return res.Success(), out, readMesonTestlog(t, last.ReportFile)
}

// TestRealMeson sets up, builds and tests a meson project of its own with
// the real meson, through the planned steps: the argv must be one meson
// takes, the build must be the debug build type with assert() on, the
// second plan must reconfigure the directory the first set up, test names
// must select, configure_args must reach meson setup in a directory of
// their own, and testlog.json must be where the test step says.
func TestRealMeson(t *testing.T) {
	nativeprojects.Need(t, "meson", "ninja", "cc")
	dir := writeFiles(t, map[string]string{
		"meson.build": `project('m', 'c')
ok = executable('ok', 'ok.c')
test('unit_ok', ok)
test('unit_abort', executable('aborts', 'aborts.c'))
if get_option('extra')
  test('extra_ok', ok)
endif
`,
		"meson_options.txt": "option('extra', type: 'boolean', value: false)\n",
		"ok.c":              "int main(void) { return 0; }\n",
		// assert() fails only where NDEBUG is not defined.
		"aborts.c": "#include <assert.h>\nint main(void) { assert(1 == 2); return 0; }\n",
	})
	if tc, err := Detect(dir); err != nil || tc != Meson {
		t.Fatalf("Detect = %q, %v", tc, err)
	}

	steps, err := TestPlan(Meson, dir, Options{Run: []string{"unit_ok"}, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(steps[0].Argv, "--reconfigure") {
		t.Fatalf("first plan reconfigures: %q", steps[0].Argv)
	}
	ok, out, tests := runMesonTests(t, steps)
	if want := map[string]mesonTestlogEntry{"unit_ok": {"unit_ok", "OK", 0}}; !ok || !reflect.DeepEqual(tests, want) {
		t.Errorf("filtered run: success %v, tests %v; want %v\n%s", ok, tests, want, out)
	}
	bdir := steps[len(steps)-1].Dir
	if bdir != filepath.Join(dir, ".triage/build/meson-debug") {
		t.Errorf("built in %s", bdir)
	}
	opts := mesonBuildOptions(t, bdir)
	if opts["buildtype"] != "debug" || opts["debug"] != true || opts["b_ndebug"] != "false" {
		t.Errorf("build options buildtype %v, debug %v, b_ndebug %v; want debug, true, false", opts["buildtype"], opts["debug"], opts["b_ndebug"])
	}

	steps, err = TestPlan(Meson, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(steps[0].Argv, "--reconfigure") {
		t.Errorf("second plan sets up the directory again: %q", steps[0].Argv)
	}
	ok, out, tests = runMesonTests(t, steps)
	if ok || tests["unit_ok"].Result != "OK" || tests["unit_abort"].Result != "FAIL" || tests["unit_abort"].Returncode != -6 || len(tests) != 2 {
		t.Errorf("full run: success %v, tests %v; want unit_ok OK and unit_abort FAIL by SIGABRT (-6)\n%s", ok, tests, out)
	}

	// A name no test has: meson says so, and exits 0.
	steps, err = TestPlan(Meson, dir, Options{Run: []string{"extra_ok"}})
	if err != nil {
		t.Fatal(err)
	}
	ok, out, tests = runMesonTests(t, steps)
	if !ok || len(tests) != 0 || !bytes.Contains(out, []byte("No suitable tests defined.")) {
		t.Errorf("a name no test has: success %v, tests %v\n%s", ok, tests, out)
	}

	steps, err = TestPlan(Meson, dir, Options{Run: []string{"extra_ok"}, ConfigureArgs: []string{"-Dextra=true"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := steps[len(steps)-1].Dir; d == bdir {
		t.Errorf("configure_args share %s", d)
	}
	ok, out, tests = runMesonTests(t, steps)
	if want := map[string]mesonTestlogEntry{"extra_ok": {"extra_ok", "OK", 0}}; !ok || !reflect.DeepEqual(tests, want) {
		t.Errorf("with -Dextra=true: success %v, tests %v; want %v\n%s", ok, tests, want, out)
	}

	steps, err = BuildPlan(Meson, dir, Options{Configuration: "release", Targets: []string{"ok"}})
	if err != nil {
		t.Fatal(err)
	}
	runPlan(t, steps, nil)
	if _, err := os.Stat(filepath.Join(dir, ".triage/build/meson-release/ok")); err != nil {
		t.Errorf("the release build did not build ok: %v", err)
	}
}

// mesonBuildOptions reads a build directory's options, name → value, from
// meson's introspection file.
func mesonBuildOptions(t *testing.T, buildDir string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(buildDir, "meson-info", "intro-buildoptions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var opts []struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	}
	if err := json.Unmarshal(data, &opts); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for _, o := range opts {
		out[o.Name] = o.Value
	}
	return out
}
