package testreport

import (
	"slices"
	"strings"
	"testing"
)

// TestRustcBuildErrorsLocated: a rustc error is recorded with the location
// rustc prints on the line after it, as Go's and gcc's errors carry theirs
// (recorded cargo test runs on a real crate, testdata/README).
func TestRustcBuildErrorsLocated(t *testing.T) {
	for _, tt := range []struct {
		log  string
		want []string
	}{
		{"testdata/cargo-test-compile-error-lib.log", []string{
			"src/lib.rs:485:29: error[E0308]: mismatched types",
			"error: could not compile `semver` (lib test) due to 1 previous error; 26 warnings emitted",
			"error: could not compile `semver` (lib) due to 1 previous error; 26 warnings emitted"}},
		{"testdata/cargo-test-compile-error-test.log", []string{
			"tests/test_version_req.rs:47:29: error[E0308]: mismatched types",
			"error: could not compile `semver` (test \"test_version_req\") due to 1 previous error; 15 warnings emitted"}},
	} {
		rep := parseFile(t, FormatCargo, tt.log)
		if !slices.Equal(rep.BuildErrors, tt.want) {
			t.Errorf("%s: build errors\n%q\nwant\n%q", tt.log, rep.BuildErrors, tt.want)
		}
		if rep.Status != Failed || len(rep.Cases) != 0 {
			t.Errorf("%s: %s with %d cases, want failed with none", tt.log, rep.Status, len(rep.Cases))
		}
	}
	// Errors without a code are the compiler's too; cargo's own are not.
	rep, err := Parse(FormatCargo, strings.NewReader("error: expected `;`, found `}`\n --> src/lib.rs:3:14\n  |\n"+
		"error: could not compile `rs` (lib) due to 1 previous error\nerror: test failed, to rerun pass `--lib`\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"src/lib.rs:3:14: error: expected `;`, found `}`", "error: could not compile `rs` (lib) due to 1 previous error"}; !slices.Equal(rep.BuildErrors, want) {
		t.Errorf("build errors %q, want %q", rep.BuildErrors, want)
	}
}

// TestDataRaceIsAFailureKind: a data race detected while a test ran fails
// that test as a data race located at the racy access (the first frame in
// the project's code of the report's first access stack), in Go's shape
// (go test -race) and ThreadSanitizer's (a C test built with gcc
// -fsanitize=thread, under ctest): recorded runs, testdata/README.
func TestDataRaceIsAFailureKind(t *testing.T) {
	type want struct {
		name, file string
		line       int
	}
	for _, tt := range []struct {
		log, format string
		failed      []want
	}{
		{"testdata/go-test-json-race.log", FormatGoJSON, []want{
			{"TestWithContext", "/tmp/cap/xsync/errgroup/errgroup.go", 78},
			{"TestGoLimit", "/tmp/cap/xsync/errgroup/errgroup.go", 78}}},
		{"testdata/ctest-tsan.log", FormatCTest, []want{{"race", "/tmp/cap/tsan/race.c", 8}}},
	} {
		rep := parseFile(t, tt.format, tt.log)
		var got []want
		for _, c := range rep.Failures() {
			if c.Status != Failed || c.Kind != KindDataRace {
				t.Errorf("%s: %s is %s (kind %q), want failed (kind %q)", tt.log, c.Name, c.Status, c.Kind, KindDataRace)
			}
			got = append(got, want{c.Name, c.File, c.Line})
		}
		if !slices.Equal(got, tt.failed) {
			t.Errorf("%s: failed %v, want %v", tt.log, got, tt.failed)
		}
		if rep.Status != Failed {
			t.Errorf("%s: run %s, want failed", tt.log, rep.Status)
		}
	}
}

// TestRaceSite: the access stacks of a race report are read, not the
// stacks of where the goroutines or threads were created, and the runtime's
// and a dependency's frames are passed over.
func TestRaceSite(t *testing.T) {
	for _, tt := range []struct {
		name, text string
		fn, file   string
		line       int
	}{
		{"Go, the access in the runtime's map code",
			"WARNING: DATA RACE\nWrite at 0x00c000 by goroutine 8:\n  runtime.mapassign_faststr()\n      /usr/local/go/src/internal/runtime/maps/runtime_faststr.go:263 +0x0\n" +
				"  example.com/app.(*Cache).Put()\n      /src/app/cache.go:21 +0x64\n\nPrevious read at 0x00c000 by goroutine 7:\n" +
				"  example.com/app.(*Cache).Get()\n      /src/app/cache.go:14 +0x3c\n\nGoroutine 8 (running) created at:\n  example.com/app.TestCache()\n      /src/app/cache_test.go:9 +0x90\n==================\n",
			"example.com/app.(*Cache).Put", "/src/app/cache.go", 21},
		{"TSan, clang's column and a libc frame first",
			"==77==WARNING: ThreadSanitizer: data race (pid=77)\n  Atomic write of size 8 at 0x7b04 by thread T1:\n    #0 memcpy <null> (libtsan.so.2+0x1)\n    #1 fill /src/fill.c:12:5 (app+0x2)\n\n" +
				"  Previous read of size 8 at 0x7b04 by main thread:\n    #0 main /src/main.c:30:3 (app+0x3)\n\n  Thread T1 (tid=78, running) created by main thread at:\n    #0 main /src/main.c:25:3 (app+0x4)\n\nSUMMARY: ThreadSanitizer: data race /src/fill.c:12:5 in fill\n",
			"fill", "/src/fill.c", 12},
		{"TSan, a volatile C++ method called from a lambda (g++ 12 -fsanitize=thread)",
			"WARNING: ThreadSanitizer: data race (pid=18377)\n  Read of size 4 at 0x7ffc8b811d9c by thread T2:\n" +
				"    #0 ns::counter::bump(int) volatile /src/tsq/race.cpp:6 (race+0x195f)\n" +
				"    #1 operator() /src/tsq/race.cpp:12 (race+0x125a)\n" +
				"    #2 __invoke_impl<void, main()::<lambda()> > /usr/include/c++/12/bits/invoke.h:61 (race+0x1807)\n" +
				"    #7 <null> <null> (libstdc++.so.6+0xd44a2)\n\n" +
				"  Thread T2 (tid=18382, running) created by main thread at:\n" +
				"    #0 pthread_create ../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp:1001 (libtsan.so.2+0x5e686)\n" +
				"    #1 std::thread::_M_start_thread(std::unique_ptr<std::thread::_State, std::default_delete<std::thread::_State> >, void (*)()) <null> (libstdc++.so.6+0xd4578)\n" +
				"    #2 main /src/tsq/race.cpp:13 (race+0x12d1)\n\nSUMMARY: ThreadSanitizer: data race /src/tsq/race.cpp:6 in ns::counter::bump(int) volatile\n",
			"ns::counter::bump(int) volatile", "/src/tsq/race.cpp", 6},
		{"no race", "panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n\t/src/main.go:3 +0x1\n", "", "", 0},
	} {
		site, ok := raceIn(tt.text)
		if ok != (tt.file != "") || site.Function != tt.fn || site.File != tt.file || site.Line != tt.line {
			t.Errorf("%s: %v %+v, want %s at %s:%d", tt.name, ok, site, tt.fn, tt.file, tt.line)
		}
	}
}
