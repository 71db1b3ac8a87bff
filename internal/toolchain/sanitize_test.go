package toolchain

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// A CMake test plan with a check configures a build directory of its own
// (debug-asan…) with the sanitizer's flags through CMAKE_<LANG>_FLAGS_INIT
// and the linkers', and sets the sanitizer runtime's options for ctest.
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
			conf, test := steps[0].Argv, steps[len(steps)-1]
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
	if conf := steps[0].Argv; !slices.Contains(conf, proj+"/.triage/build/release-g-asan") ||
		!slices.Contains(conf, "-DCMAKE_C_FLAGS_INIT=-g -fsanitize=address -fno-omit-frame-pointer") {
		t.Errorf("configure %q", conf)
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
		{Cargo, Options{Check: CheckMemory}, "sanitizer builds are made for go, cmake and meson"},
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
