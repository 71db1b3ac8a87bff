package crashsite

import "testing"

// The traces are real ones (gdb on cores of a Rust, a C and a Go program,
// ASan's report, a Go test's panic), cut to the frames that matter.
func TestPick(t *testing.T) {
	tests := []struct {
		name    string
		frames  []Frame
		project string
		want    int
	}{
		{"rust process::abort under gdb", []Frame{
			{Function: "__pthread_kill_implementation", File: "./nptl/pthread_kill.c", Line: 44},
			{Function: "__pthread_kill_internal", File: "./nptl/pthread_kill.c", Line: 78},
			{Function: "__GI_raise", File: "../sysdeps/posix/raise.c", Line: 26},
			{Function: "__GI_abort", File: "./stdlib/abort.c", Line: 79},
			{Function: "std::sys::pal::unix::abort_internal", File: "library/std/src/sys/pal/unix/mod.rs", Line: 305},
			{Function: "std::process::abort", File: "library/std/src/process.rs", Line: 2533},
			{Function: "rcrash::boom", File: "src/main.rs", Line: 3},
		}, "", 6},
		{"go std below the user's call (a deadlock on sync.Mutex)", []Frame{
			{Function: "runtime.gopark", File: "/usr/local/go/src/runtime/proc.go", Line: 435},
			{Function: "sync.runtime_SemacquireMutex", File: "/usr/local/go/src/runtime/sema.go", Line: 95},
			{Function: "sync.(*Mutex).Lock", File: "/usr/local/go/src/sync/mutex.go", Line: 81},
			{Function: "main.transfer", File: "/tmp/w/hang/main.go", Line: 17},
		}, "", 3},
		{"a user module named without a dot is the user's", []Frame{
			{Function: "hang.wait", File: "/tmp/w/hang/wait.go", Line: 9},
		}, "", 0},
		{"go test's generated main is not the user's", []Frame{
			{Function: "main.main", File: "_testmain.go", Line: 50},
			{Function: "example.com/x.TestX", File: "/tmp/w/x_test.go", Line: 7},
		}, "", 1},
		{"rust std under /rustc/<hash>", []Frame{
			{Function: "abort_internal", File: "/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/sys/pal/unix/mod.rs", Line: 305},
			{Function: "mylib::parse", File: "src/lib.rs", Line: 170},
		}, "", 1},
		{"glibc without debug info, C project", []Frame{
			{Function: "__strlen_avx2", Module: "/lib/x86_64-linux-gnu/libc.so.6"},
			{Function: "crash_here", File: "app.c", Line: 3},
			{Function: "main", File: "app.c", Line: 4},
		}, "", 1},
		{"project source compiled with ./ prefix is the project's", []Frame{
			{Function: "__GI_abort", File: "./stdlib/abort.c", Line: 79},
			{Function: "check", File: "./src/check.c", Line: 12},
		}, "", 1},
		{"cargo registry dependency below the project", []Frame{
			{Function: "serde_json::de::from_str", File: "/root/.cargo/registry/src/index-abc/serde_json-1.0.1/src/de.rs", Line: 10},
			{Function: "app::load", File: "/work/app/src/lib.rs", Line: 40},
		}, "/work/app", 1},
		{"absolute source outside the project dir is a dependency", []Frame{
			{Function: "png_read", File: "/usr/src/libpng/pngread.c", Line: 99},
			{Function: "load", File: "/work/app/load.c", Line: 7},
		}, "/work/app", 1},
		{"without a project dir only a dependency's own markers count", []Frame{
			{Function: "png_read", File: "/usr/src/libpng/pngread.c", Line: 99},
			{Function: "load", File: "/work/app/load.c", Line: 7},
		}, "", 0},
		{"go test panic: testing and runtime frames skipped", []Frame{
			{Function: "testing.tRunner.func1.2", File: "/usr/local/go/src/testing/testing.go", Line: 1974},
			{Function: "testing.tRunner.func1", File: "/usr/local/go/src/testing/testing.go", Line: 1977},
			{Function: "panic", File: "/usr/local/go/src/runtime/panic.go", Line: 860},
			{Function: "example.com/gp.write", File: "/tmp/gp/main.go", Line: 11},
		}, "", 3},
		{"asan interceptor", []Frame{
			{Function: "__interceptor_strlen", File: "../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc", Line: 387},
			{Function: "count", File: "/work/c/count.c", Line: 9},
		}, "/work/c", 1},
		{"only runtime frames: the first with source", []Frame{
			{Function: "raise", Module: "/lib/x86_64-linux-gnu/libc.so.6"},
			{Function: "__GI_abort", File: "./stdlib/abort.c", Line: 79},
		}, "", 1},
		{"a dependency beats the runtime", []Frame{
			{Function: "__GI_abort", File: "./stdlib/abort.c", Line: 79},
			{Function: "dep::f", File: "/root/.cargo/registry/src/x/dep-1.0/src/lib.rs", Line: 5},
		}, "", 1},
		{"no source: the first frame not the runtime's", []Frame{{Function: "raise"}, {Function: "main"}}, "", 1},
		{"stripped program under glibc with debug info: its own frame", []Frame{
			{}, // "#0 0x563ce1729155 in ?? ()"
			{},
			{Function: "__libc_start_call_main", File: "../sysdeps/nptl/libc_start_call_main.h", Line: 58},
		}, "", 0},
		{"nothing known: frame 0", []Frame{{Function: "raise", Module: "libc.so.6"}, {Function: "abort"}}, "", 0},
		{"no frames", nil, "", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Pick(tt.frames, tt.project); got != tt.want {
				t.Errorf("Pick = %d, want %d (%+v)", got, tt.want, tt.frames)
			}
		})
	}
}

func TestOriginOf(t *testing.T) {
	tests := []struct {
		f       Frame
		project string
		want    Origin
	}{
		{Frame{Function: "main.main", File: "/p/main.go", Line: 3}, "/p", Project},
		{Frame{Function: "runtime.gopanic", File: "/usr/lib/go-1.22/src/runtime/panic.go", Line: 1}, "", Runtime},
		{Frame{File: "/usr/local/go/src/testing/testing.go", Line: 1}, "", Runtime},
		{Frame{Function: "std::terminate()", Module: "/lib/x86_64-linux-gnu/libstdc++.so.6"}, "", Runtime},
		{Frame{Function: "f", File: "/home/u/go/pkg/mod/github.com/x/y@v1.0.0/y.go", Line: 2}, "", Dependency},
		{Frame{Function: "f", File: "/home/u/proj/src/runtime/engine.c", Line: 2}, "", Project},
		{Frame{Function: "f", File: "library/core/x.c", Line: 2}, "", Project},
		{Frame{Function: "f", File: "relative/x.c", Line: 2}, "/elsewhere", Project},
	}
	for _, tt := range tests {
		if got := OriginOf(tt.f, tt.project); got != tt.want {
			t.Errorf("OriginOf(%+v, %q) = %v, want %v", tt.f, tt.project, got, tt.want)
		}
	}
}
