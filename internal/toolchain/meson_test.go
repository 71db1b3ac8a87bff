package toolchain

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/coredump"
)

const mesonProjectFile = "# a comment first\nproject('p', 'c')\ntest('t', executable('t', 't.c'))\n"

// mesonTree writes files (path → content) under a temp dir.
func mesonTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestDetectMeson: a meson.build that starts a project names Meson, after
// CMake and before make; a subdirectory's meson.build (no project() call)
// names nothing, and the project above it is the nearest.
func TestDetectMeson(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []Toolchain
	}{
		{"meson", map[string]string{"meson.build": mesonProjectFile}, []Toolchain{Meson}},
		{"project call with a space", map[string]string{"meson.build": "project ('p')\n"}, []Toolchain{Meson}},
		{"meson with a Makefile", map[string]string{"meson.build": mesonProjectFile, "Makefile": "all:\n"}, []Toolchain{Meson, Make}},
		{"cmake and meson", map[string]string{"meson.build": mesonProjectFile, "CMakeLists.txt": "project(p C)\n"}, []Toolchain{CMake, Meson}},
		{"cargo and meson", map[string]string{"meson.build": mesonProjectFile, "Cargo.toml": ""}, []Toolchain{Cargo, Meson}},
		{"subdirectory meson.build beside a Makefile", map[string]string{"meson.build": "foo = subproject('foo')\nexecutable('x', 'x.c')\n", "Makefile": "all:\n"}, []Toolchain{Make}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DetectAll(mesonTree(t, tt.files))
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("DetectAll = %v, %v; want %v", got, err, tt.want)
			}
		})
	}

	root := mesonTree(t, map[string]string{"meson.build": mesonProjectFile, "src/meson.build": "executable('x', 'x.c')\n"})
	_, err := Detect(filepath.Join(root, "src"))
	var ne *NotAProjectError
	if !errors.As(err, &ne) || ne.Nearest != root || ne.NearestMarker != "meson.build" {
		t.Errorf("Detect(src) error = %v, want *NotAProjectError naming %s's meson.build", err, root)
	}
	if err != nil && !slices.Contains(ne.LookedFor, "meson.build") {
		t.Errorf("LookedFor = %v, want meson.build in it", ne.LookedFor)
	}
}

func TestMesonPlanArgv(t *testing.T) {
	bdir := proj + "/.triage/build/meson-debug"
	rel := proj + "/.triage/build/meson-release"
	tests := []struct {
		name   string
		test   bool
		o      Options
		want   [][]string
		filter string
	}{
		{"build", false, Options{}, [][]string{
			{"meson", "setup", "--buildtype=debug", bdir, proj},
			{"meson", "compile", "-C", bdir},
		}, ""},
		{"build release, targets, jobs, args", false, Options{Configuration: "Release", Targets: []string{"app", "sub/lib"}, Jobs: 3, Args: []string{"--verbose"}}, [][]string{
			{"meson", "setup", "--buildtype=release", rel, proj},
			{"meson", "compile", "-C", rel, "--jobs=3", "app", "sub/lib", "--verbose"},
		}, ""},
		{"test", true, Options{}, [][]string{
			{"meson", "setup", "--buildtype=debug", bdir, proj},
			{"meson", "compile", "-C", bdir},
			{"meson", "test", "-C", bdir, "--print-errorlogs", "--no-rebuild"},
		}, ""},
		{"test names, jobs, args", true, Options{Run: []string{"unit one", "sub:two"}, Jobs: 2, Args: []string{"--suite", "fast"}}, [][]string{
			{"meson", "setup", "--buildtype=debug", bdir, proj},
			{"meson", "compile", "-C", bdir, "--jobs=2"},
			{"meson", "test", "-C", bdir, "--print-errorlogs", "--no-rebuild", "--num-processes=2", "unit one", "sub:two", "--suite", "fast"},
		}, "unit one sub:two"},
		// With targets the build step builds those alone: meson test
		// builds what its tests need rather than fail on a test program
		// not built.
		{"test with targets", true, Options{Targets: []string{"t"}}, [][]string{
			{"meson", "setup", "--buildtype=debug", bdir, proj},
			{"meson", "compile", "-C", bdir, "t"},
			{"meson", "test", "-C", bdir, "--print-errorlogs"},
		}, ""},
		{"configure args", false, Options{ConfigureArgs: []string{"-Dtests=true", "--wrap-mode=nofallback"}}, [][]string{
			{"meson", "setup", "--buildtype=debug", "-Dtests=true", "--wrap-mode=nofallback", MesonBuildDir(proj, Options{ConfigureArgs: []string{"-Dtests=true", "--wrap-mode=nofallback"}}), proj},
			{"meson", "compile", "-C", MesonBuildDir(proj, Options{ConfigureArgs: []string{"-Dtests=true", "--wrap-mode=nofallback"}})},
		}, ""},
		{"build type in configure args", false, Options{ConfigureArgs: []string{"--buildtype", "plain"}}, [][]string{
			{"meson", "setup", "--buildtype", "plain", proj + "/.triage/build/meson-plain", proj},
			{"meson", "compile", "-C", proj + "/.triage/build/meson-plain"},
		}, ""},
		{"explicit build dir", false, Options{BuildDir: "out"}, [][]string{
			{"meson", "setup", "--buildtype=debug", proj + "/out", proj},
			{"meson", "compile", "-C", proj + "/out"},
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := BuildPlan
			if tt.test {
				plan = TestPlan
			}
			steps, err := plan(Meson, proj, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if got := argvs(steps); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("argv:\n got %q\nwant %q", got, tt.want)
			}
			if steps[0].Name != StepConfigure || steps[1].Name != StepBuild || steps[0].Dir != proj || steps[1].Dir != proj {
				t.Errorf("steps %s in %s, %s in %s; want configure and build in the project", steps[0].Name, steps[0].Dir, steps[1].Name, steps[1].Dir)
			}
			if !tt.test {
				return
			}
			last := steps[len(steps)-1]
			dir := last.Argv[3]
			if last.Name != StepTest || last.Dir != dir || last.Format != "meson" || last.Filter != tt.filter {
				t.Errorf("test step %s in %s, Format %q, Filter %q; want test in %s, meson, %q", last.Name, last.Dir, last.Format, last.Filter, dir, tt.filter)
			}
			if last.ReportFile != dir+"/meson-logs/testlog.json" || last.ReportFormat != MesonTestlogFormat {
				t.Errorf("ReportFile, ReportFormat = %q, %q; want meson's testlog.json", last.ReportFile, last.ReportFormat)
			}
		})
	}
}

// TestMesonBuildDirectories: each configuration, and each set of the
// settings meson keeps from the first setup on (configure arguments,
// compilers and their flags), gets a build directory of its own, apart
// from CMake's; the same settings find the same directory again.
func TestMesonBuildDirectories(t *testing.T) {
	dirOf := func(o Options) string {
		steps, err := TestPlan(Meson, proj, o)
		if err != nil {
			t.Fatal(err)
		}
		return steps[len(steps)-1].Dir
	}
	root := proj + "/.triage/build/"
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{}, "meson-debug"},
		{Options{Configuration: "Release"}, "meson-release"},
		{Options{Configuration: "RelWithDebInfo"}, "meson-debugoptimized"},
		{Options{Configuration: "minsizerel"}, "meson-minsize"},
		{Options{ConfigureArgs: []string{"-Dbuildtype=release"}}, "meson-release"},
		{Options{Env: map[string]string{"OTHER": "1", "CMAKE_GENERATOR": "Ninja"}}, "meson-debug"},
	} {
		if got := dirOf(tt.o); got != root+tt.want {
			t.Errorf("%+v: build dir %s, want %s", tt.o, got, root+tt.want)
		}
	}
	if c := CMakeBuildDir(proj, Options{}); c == dirOf(Options{}) {
		t.Errorf("CMake and meson share %s", c)
	}
	seen := map[string]string{dirOf(Options{}): "none"}
	for name, o := range map[string]Options{
		"-Dtests=true":         {ConfigureArgs: []string{"-Dtests=true"}},
		"-Dtests=false":        {ConfigureArgs: []string{"-Dtests=false"}},
		"CC":                   {Env: map[string]string{"CC": "clang"}},
		"CFLAGS":               {Env: map[string]string{"CFLAGS": "-fsanitize=address"}},
		"PKG_CONFIG_PATH":      {Env: map[string]string{"PKG_CONFIG_PATH": "/opt/lib/pkgconfig"}},
		"release -Dtests=true": {Configuration: "release", ConfigureArgs: []string{"-Dtests=true"}},
	} {
		d := dirOf(o)
		if other, ok := seen[d]; ok {
			t.Errorf("%s shares %s with %s", name, d, other)
		}
		seen[d] = name
		if again := dirOf(o); again != d {
			t.Errorf("%s: %s then %s", name, d, again)
		}
		if !strings.HasPrefix(d, root+"meson-") {
			t.Errorf("%s: build dir %s outside %smeson-*", name, d, root)
		}
	}
}

// TestMesonReconfigures: a build directory meson has set up (its
// meson-private/coredata.dat is there) is reconfigured, since meson setup
// would ignore the options given; one never set up, or whose setup
// failed (meson-private without coredata.dat), is set up.
func TestMesonReconfigures(t *testing.T) {
	dir := mesonTree(t, map[string]string{"meson.build": mesonProjectFile})
	setup := func(o Options) []string {
		steps, err := BuildPlan(Meson, dir, o)
		if err != nil {
			t.Fatal(err)
		}
		return steps[0].Argv
	}
	bdir := MesonBuildDir(dir, Options{})
	if err := os.MkdirAll(filepath.Join(bdir, "meson-private"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := setup(Options{}); slices.Contains(got, "--reconfigure") {
		t.Errorf("a failed setup's directory: %q, want a setup", got)
	}
	if err := os.WriteFile(filepath.Join(bdir, "meson-private", "coredata.dat"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	want := []string{"meson", "setup", "--reconfigure", "--buildtype=debug", bdir, dir}
	if got := setup(Options{}); !reflect.DeepEqual(got, want) {
		t.Errorf("a set up directory: %q, want %q", got, want)
	}
	if got := setup(Options{Configuration: "release"}); slices.Contains(got, "--reconfigure") {
		t.Errorf("another configuration's directory: %q, want a setup", got)
	}
}

func TestMesonRefusals(t *testing.T) {
	tests := []struct {
		name   string
		test   bool
		o      Options
		option string
		msg    string
	}{
		{"skip", true, Options{Skip: []string{"slow"}}, "skip", "--no-suite"},
		{"filter on build", false, Options{Run: []string{"t"}}, "run/skip", "test tool"},
		{"unknown configuration", false, Options{Configuration: "fast"}, "configuration", "debugoptimized"},
		{"build type twice", true, Options{Configuration: "debug", ConfigureArgs: []string{"--buildtype=release"}}, "configuration", "give it once"},
		{"test name read as option", true, Options{Run: []string{"--list"}}, "run", "starts with '-'"},
		{"features", false, Options{Features: []string{"x"}}, "features", "only go"},
		{"coverage", true, Options{Coverage: true, CoverageDir: "/tmp/c"}, "coverage", "meson"},
		{"clean", false, Options{Clean: true}, "clean", "only swift"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := BuildPlan
			if tt.test {
				plan = TestPlan
			}
			steps, err := plan(Meson, proj, tt.o)
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Option != tt.option || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("steps %q, error %v; want an OptionError for %s saying %q", argvs(steps), err, tt.option, tt.msg)
			}
		})
	}
}

// TestMesonRebuildHints: a crash without debug info in a release build is
// answered with the same test call in the debug build type, running the
// crashed test by its exact name and keeping the configure arguments; a
// build type with -g already, or one configure_args give, gets advice.
func TestMesonRebuildHints(t *testing.T) {
	dir := t.TempDir()
	own := &coredump.NoDebugInfo{File: filepath.Join(dir, ".triage/build/meson-release/t")}
	call := TestCall{ProjectDir: dir, Options: Options{Configuration: "release", ConfigureArgs: []string{"-Dx=true"}}}
	hs := TestRebuildHints("meson", call, own, "unit one")
	want := map[string]any{"project_dir": dir, "configuration": "debug", "run": []string{"unit one"}, "configure_args": []string{"-Dx=true"}}
	if len(hs) != 1 || hs[0].Tool != "test" || !reflect.DeepEqual(hs[0].Args, want) {
		t.Errorf("release: %+v", hs)
	}
	for name, o := range map[string]Options{
		"the default":    {},
		"debugoptimized": {Configuration: "debugoptimized"},
	} {
		if hs := TestRebuildHints("meson", TestCall{ProjectDir: dir, Options: o}, own, "t"); len(hs) != 1 || hs[0].Tool != "" || !strings.Contains(hs[0].Text, "already has -g") {
			t.Errorf("%s: %+v", name, hs)
		}
	}
	o := Options{ConfigureArgs: []string{"--buildtype=release"}}
	if hs := TestRebuildHints("meson", TestCall{ProjectDir: dir, Options: o}, own, "t"); len(hs) != 1 || hs[0].Tool != "" || !strings.Contains(hs[0].Text, "--buildtype=debug") {
		t.Errorf("build type in configure_args: %+v", hs)
	}
}

func TestMesonBuildNote(t *testing.T) {
	for _, tt := range []struct {
		o    Options
		want string
	}{
		{Options{}, "build type debug (the default), built in " + proj + "/.triage/build/meson-debug"},
		{Options{Configuration: "Release"}, "build type release (as asked), built in " + proj + "/.triage/build/meson-release"},
		{Options{ConfigureArgs: []string{"--buildtype=plain"}}, "build type plain (from configure_args), built in " + proj + "/.triage/build/meson-plain"},
	} {
		if got := BuildNote("meson", proj, tt.o); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.o, got, tt.want)
		}
	}
	if got := BuildNote("go", proj, Options{}); got != "" {
		t.Errorf("go: %q, want none", got)
	}
}
