package toolchain

import (
	"os/exec"
	"slices"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/nativeprojects"
)

// TestTestOptionsOffMeson: a meson project's test options that are off, read
// from the build directory meson set up, as the -D arguments that turn
// them on; options on, or not about tests, are not named.
func TestTestOptionsOffMeson(t *testing.T) {
	nativeprojects.Need(t, "meson", "ninja", "cc")
	dir := nativeprojects.Write(t, map[string]string{
		"meson.build": "project('o', 'c')\n",
		"meson_options.txt": "option('tests', type: 'boolean', value: false)\n" +
			"option('fuzz_tests', type: 'feature', value: 'disabled')\n" +
			"option('docs', type: 'boolean', value: false)\n" +
			"option('unit_tests', type: 'boolean', value: true)\n",
	})
	build := dir + "/build"
	if out, err := exec.Command("meson", "setup", build, dir).CombinedOutput(); err != nil {
		t.Fatalf("meson setup: %v\n%s", err, out)
	}
	got := TestOptionsOff(build)
	want := []string{"-Dfuzz_tests=enabled", "-Dtests=true"}
	if !slices.Equal(got, want) {
		t.Errorf("TestOptionsOff = %q, want %q", got, want)
	}
	if got := TestOptionsOff(dir); got != nil {
		t.Errorf("an unconfigured directory: %q, want none", got)
	}
}
