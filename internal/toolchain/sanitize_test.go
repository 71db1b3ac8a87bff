package toolchain

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// A CMake test plan with a check makes a build directory of its own
// (debug-asan…) and configures it with the sanitizer's flags through
// CMAKE_<LANG>_FLAGS_INIT and the linkers', and again as compile and link
// options in the script it writes there for CMAKE_PROJECT_INCLUDE; it
// sets the sanitizer runtime's options for ctest.
func TestCMakeCheckPlan(t *testing.T) {
	for _, tc := range []struct {
		check, dir, flags, env string
	}{
		{CheckMemory, "debug-asan", "-fsanitize=address -fno-omit-frame-pointer", "ASAN_OPTIONS=detect_leaks=0"},
		{CheckLeaks, "debug-asan", "-fsanitize=address -fno-omit-frame-pointer", "ASAN_OPTIONS=detect_leaks=1"},
		{CheckUndefined, "debug-ubsan", "-fsanitize=undefined -fno-omit-frame-pointer -fno-sanitize-recover=all", "UBSAN_OPTIONS=print_stacktrace=1"},
		{CheckThread, "debug-tsan", "-fsanitize=thread -fno-omit-frame-pointer", ""},
	} {
		t.Run(tc.check, func(t *testing.T) {
			unsetenv(t, "ASAN_OPTIONS", "UBSAN_OPTIONS")
			steps, err := TestPlan(CMake, proj, Options{Check: tc.check})
			if err != nil {
				t.Fatal(err)
			}
			dir := proj + "/.triage/build/" + tc.dir
			if steps[0].Name != StepMkdir || !slices.Equal(steps[0].Argv, []string{"mkdir", "-p", dir}) {
				t.Errorf("first step %+v, want the build directory made", steps[0])
			}
			confStep, test := steps[1], steps[len(steps)-1]
			conf := confStep.Argv
			if script := confStep.Files[cmakeSanitizeFile]; confStep.Dir != dir || !slices.Contains(conf, "-DCMAKE_PROJECT_INCLUDE="+dir+"/"+cmakeSanitizeFile) ||
				!strings.Contains(script, "add_compile_options(\"$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize="+sanitizer(tc.check)+">\")\n") ||
				!strings.Contains(script, "add_link_options(-fsanitize="+sanitizer(tc.check)+")\n") {
				t.Errorf("configure %q in %s writes %q", conf, confStep.Dir, script)
			}
			if !slices.Contains(conf, dir) || !slices.Contains(conf, "-DCMAKE_C_FLAGS_INIT="+tc.flags) ||
				!slices.Contains(conf, "-DCMAKE_CXX_FLAGS_INIT="+tc.flags) || !slices.Contains(conf, "-DCMAKE_EXE_LINKER_FLAGS_INIT=-fsanitize="+sanitizer(tc.check)) {
				t.Errorf("configure %q", conf)
			}
			if test.Dir != dir {
				t.Errorf("ctest in %s, want %s", test.Dir, dir)
			}
			if k, v, _ := strings.Cut(tc.env, "="); tc.env != "" && test.Env[k] != v {
				t.Errorf("ctest env %v, want %s", test.Env, tc.env)
			}
		})
	}
	// A Release build gets -g with the sanitizer, in a directory of its own.
	steps, err := TestPlan(CMake, proj, Options{Check: CheckMemory, Configuration: "Release"})
	if err != nil {
		t.Fatal(err)
	}
	if conf := steps[1].Argv; !slices.Contains(conf, proj+"/.triage/build/release-g-asan") ||
		!slices.Contains(conf, "-DCMAKE_C_FLAGS_INIT=-g -fsanitize=address -fno-omit-frame-pointer") ||
		!strings.Contains(steps[1].Files[cmakeSanitizeFile], "add_compile_options(\"$<$<COMPILE_LANGUAGE:C,CXX>:-g>\")") {
		t.Errorf("configure %q writes %q", conf, steps[1].Files[cmakeSanitizeFile])
	}
}

// unsetenv unsets variables for the test (t.Setenv first restores them).
func unsetenv(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		t.Setenv(n, "")
		os.Unsetenv(n)
	}
}

// Go's checks are go test's -race and -asan; UBSan is refused, as is
// -asan without cgo, a toolchain without sanitizer builds, and an
// explicit command.
func TestGoAndRefusedCheckPlans(t *testing.T) {
	for check, flag := range map[string]string{CheckThread: "-race", CheckMemory: "-asan", CheckLeaks: "-asan"} {
		steps, err := TestPlan(Go, proj, Options{Check: check, Env: map[string]string{"CGO_ENABLED": "1"}})
		if err != nil {
			if check != CheckThread && strings.Contains(err.Error(), "C compiler") {
				continue // no gcc here: refused, as it should be
			}
			t.Fatalf("%s: %v", check, err)
		}
		if argv := steps[0].Argv; !slices.Equal(argv[:4], []string{"go", "test", "-json", flag}) {
			t.Errorf("%s: %q", check, argv)
		}
	}
	for _, tc := range []struct {
		tc   Toolchain
		o    Options
		want string
	}{
		{Go, Options{Check: CheckUndefined}, "go has no undefined-behaviour sanitizer"},
		{Go, Options{Check: CheckMemory, Env: map[string]string{"CGO_ENABLED": "0"}}, "needs cgo"},
		{Cargo, Options{Check: CheckMemory}, "sanitizer builds are made for go, cmake, meson and autotools"},
		{Make, Options{Check: CheckMemory}, "add -fsanitize=address -fno-omit-frame-pointer -g to the Makefile's CFLAGS/CXXFLAGS and -fsanitize=address to its LDFLAGS"},
		{Autotools, Options{Check: CheckMemory, BuildDir: "b"}, "drop build_dir"},
		{CMake, Options{Check: "races"}, `"races": want memory, leaks, undefined or thread`},
		{CMake, Options{Check: CheckThread, BuildDir: "b"}, "drop build_dir"},
	} {
		if _, err := TestPlan(tc.tc, proj, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %+v: error %v, want %q", tc.tc, tc.o, err, tc.want)
		}
	}
	if _, err := CommandPlan(StepTest, []string{"./t"}, proj, Options{Check: CheckMemory}); err == nil || !strings.Contains(err.Error(), "not in an explicit command") {
		t.Errorf("command with check: %v", err)
	}
}

// A meson plan with a check sets up with -Db_sanitize, whose value names
// the build directory apart from the plain one.
func TestMesonCheckPlan(t *testing.T) {
	plain, err := TestPlan(Meson, proj, Options{})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := TestPlan(Meson, proj, Options{Check: CheckUndefined})
	if err != nil {
		t.Fatal(err)
	}
	setup := steps[0].Argv
	if !slices.Contains(setup, "-Db_sanitize=undefined") || steps[len(steps)-1].Dir == plain[len(plain)-1].Dir {
		t.Errorf("setup %q in %s (plain %s)", setup, steps[len(steps)-1].Dir, plain[len(plain)-1].Dir)
	}
}

// An autotools plan with a check configures a build directory of its own
// (autotools-debug-asan…) with the sanitizer's flags after the caller's
// configure_args (configure takes the last), added to the caller's CFLAGS
// where given, and sets the runtime's options for make check.
func TestAutotoolsCheckPlan(t *testing.T) {
	unsetenv(t, "ASAN_OPTIONS", "UBSAN_OPTIONS")
	root := autotoolsTree(t, map[string]string{"configure.ac": configureAC, "configure*": "#!/bin/sh\n", "Makefile.am": automakeMakefile, "Makefile.in": "\n"})
	steps, err := TestPlan(Autotools, root, Options{Check: CheckUndefined, ConfigureArgs: []string{"--enable-x"}})
	if err != nil {
		t.Fatal(err)
	}
	dir := root + "/.triage/build/autotools-debug-ubsan-b3f38f6c" // the hash of configure_args
	conf := stepNamed(t, steps, StepConfigure)
	want := []string{root + "/configure", "--enable-x", "CFLAGS=-g -O1 -fsanitize=undefined -fno-omit-frame-pointer -fno-sanitize-recover=all",
		"CXXFLAGS=-g -O1 -fsanitize=undefined -fno-omit-frame-pointer -fno-sanitize-recover=all", "LDFLAGS=-fsanitize=undefined"}
	if !slices.Equal(conf.Argv, want) || conf.Dir != dir {
		t.Errorf("configure %q in %s, want %q in %s", conf.Argv, conf.Dir, want, dir)
	}
	if test := steps[len(steps)-1]; test.Env["UBSAN_OPTIONS"] != "print_stacktrace=1" || test.Dir != dir {
		t.Errorf("make check %+v", test)
	}
	steps, err = TestPlan(Autotools, root, Options{Check: CheckThread, Env: map[string]string{"CFLAGS": "-O2 -DX"}})
	if err != nil {
		t.Fatal(err)
	}
	if argv := stepNamed(t, steps, StepConfigure).Argv; !slices.Contains(argv, "CFLAGS=-O2 -DX -g -fsanitize=thread -fno-omit-frame-pointer") {
		t.Errorf("the caller's CFLAGS: %q", argv)
	}
	if note := AutotoolsBuildNote(root, Options{Check: CheckMemory}); !strings.Contains(note, "compiled for check memory: CFLAGS=-g -O1 -fsanitize=address") ||
		!strings.Contains(note, "autotools-debug-asan") {
		t.Errorf("note %q", note)
	}
	// Configured in-source: no sanitizer build out of tree.
	inSource := autotoolsTree(t, map[string]string{"configure.ac": configureAC, "configure": "", "config.status": "", "Makefile": configuredMakefile})
	if _, err := TestPlan(Autotools, inSource, Options{Check: CheckMemory}); err == nil || !strings.Contains(err.Error(), "make distclean") {
		t.Errorf("in-source: %v", err)
	}
}

// stepNamed is the plan's step of that name.
func stepNamed(t *testing.T, steps []Step, name string) Step {
	t.Helper()
	for _, s := range steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no %s step in %+v", name, steps)
	return Step{}
}
