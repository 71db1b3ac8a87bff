package testreport

import "testing"

// TestSanitizerFrame: of a sanitizer report's frames, only the program's
// own code is the crash site (the crashsite rule): interceptors, the
// sanitizer runtime and libc are passed over.
func TestSanitizerFrame(t *testing.T) {
	tests := []struct {
		line string
		fn   string
		file string
		ln   int
	}{
		{"    #0 0x7f3c2a4b in __interceptor_memcpy ../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:827", "", "", 0},
		{"    #0 0x7f3c2a4b in __asan_memcpy (/lib/x86_64-linux-gnu/libasan.so.8+0xc4b1c)", "", "", 0},
		{"    #1 0x7f3c2a4c in __libc_start_call_main ../sysdeps/nptl/libc_start_call_main.h:58", "", "", 0},
		{"    #1 0x55d1 in fill /src/tests/asan.c:4:10", "fill", "/src/tests/asan.c", 4},
		{"    #2 0x55d2 in main tests/asan.c:12", "main", "tests/asan.c", 12},
		// C++ and Rust names with spaces: the method's qualifier, the operator's
		// parameters, the trait impl (g++ 12, clang 22, rustc nightly).
		{"    #0 0x55fe72c25d51 in ns::klass::as_int(int) const /src/ctq/lib.cpp:14", "ns::klass::as_int(int) const", "/src/ctq/lib.cpp", 14},
		{"    #0 0x562fbf21246b in operator<<(std::ostream&, X const&) /src/ctq/lib.cpp:36", "operator<<(std::ostream&, X const&)", "/src/ctq/lib.cpp", 36},
		{"    #0 0x5582f520e7ae in (anonymous namespace)::f(int*, int) /src/qfr/lib.cpp:29:31", "(anonymous namespace)::f(int*, int)", "/src/qfr/lib.cpp", 29},
		{"    #0 0x5643bc009db7 in <mycrate::A as core::fmt::Debug>::fmt /src/qfr/rs/src/main.rs:23:26", "<mycrate::A as core::fmt::Debug>::fmt", "/src/qfr/rs/src/main.rs", 23},
		{"    #1 0x7fb2bbeb9628 in operator new[](unsigned long) ../../../../src/libsanitizer/asan/asan_new_delete.cpp:98", "", "", 0},
		{"    #4 0x55fe72c252d0 in _start (/src/ctq/build/qual+0x22d0)", "", "", 0},
		{"    #0 ns::counter::bump(int) volatile /src/tsq/race.cpp:6 (race+0x195f)", "ns::counter::bump(int) volatile", "/src/tsq/race.cpp", 6},
		{"SUMMARY: AddressSanitizer: heap-buffer-overflow", "", "", 0},
	}
	for _, tt := range tests {
		fn, file, ln, ok := sanitizerFrame(tt.line)
		if ok != (tt.fn != "") || fn != tt.fn || file != tt.file || ln != tt.ln {
			t.Errorf("%q: got %q %q %d %v, want %q %q %d", tt.line, fn, file, ln, ok, tt.fn, tt.file, tt.ln)
		}
	}
}
