package crashsite

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/txtar"
)

// TestSanitizerFrame reads frame lines one by one: real ones from
// testdata/qualified-frames.txtar and ctest-tsan.log (gcc 12, clang 22,
// rustc nightly), the shapes other demanglers print (c++filt's and gdb's
// lambdas, legacy Rust symbols), and lines that are not frames.
func TestSanitizerFrame(t *testing.T) {
	tests := []struct {
		line string
		want Frame
		ok   bool
	}{
		// Qualifiers, templates, lambdas, namespaces and operators, as ASan prints them.
		{"    #0 0x5633effaa91f in ns::klass::as_int(int) const /src/qfr/lib.cpp:14:35",
			Frame{Function: "ns::klass::as_int(int) const", File: "/src/qfr/lib.cpp", Line: 14}, true},
		{"    #0 0x563d75b23dd1 in ns::klass::as_vol(int) volatile /src/qfr/lib.cpp:15",
			Frame{Function: "ns::klass::as_vol(int) volatile", File: "/src/qfr/lib.cpp", Line: 15}, true},
		{"    #0 0x5592aaf12e51 in ns::klass::as_ref(int) & /src/qfr/lib.cpp:16",
			Frame{Function: "ns::klass::as_ref(int) &", File: "/src/qfr/lib.cpp", Line: 16}, true},
		{"    #0 0x561503128a9f in ns::klass::as_rref(int) && /src/qfr/lib.cpp:17:33",
			Frame{Function: "ns::klass::as_rref(int) &&", File: "/src/qfr/lib.cpp", Line: 17}, true},
		{"    #0 0x55d4 in ns::klass::as_int(int) const noexcept /src/lib.cpp:5228",
			Frame{Function: "ns::klass::as_int(int) const noexcept", File: "/src/lib.cpp", Line: 5228}, true},
		{"    #0 0x562bfce9420c in ns::Holder<int, std::allocator<int> >::at(unsigned long) /src/qfr/lib.cpp:24",
			Frame{Function: "ns::Holder<int, std::allocator<int> >::at(unsigned long)", File: "/src/qfr/lib.cpp", Line: 24}, true},
		{"    #0 0x5653e3746ba0 in ns::Holder<int, std::allocator<int>>::at(unsigned long) /src/qfr/lib.cpp:24:33",
			Frame{Function: "ns::Holder<int, std::allocator<int>>::at(unsigned long)", File: "/src/qfr/lib.cpp", Line: 24}, true},
		{"    #1 0x55d4 in std::vector<int, std::allocator<int> >::at(unsigned long) /usr/include/c++/12/bits/stl_vector.h:1124",
			Frame{Function: "std::vector<int, std::allocator<int> >::at(unsigned long)", File: "/usr/include/c++/12/bits/stl_vector.h", Line: 1124}, true},
		{"    #0 0x558ce1905fcf in foo(int*)::$_0::operator()(int) const /src/qfr/lib.cpp:39:31",
			Frame{Function: "foo(int*)::$_0::operator()(int) const", File: "/src/qfr/lib.cpp", Line: 39}, true},
		{"    #0 0x55d4 in foo()::{lambda(int)#1}::operator()(int) const /src/lib.cpp:7",
			Frame{Function: "foo()::{lambda(int)#1}::operator()(int) const", File: "/src/lib.cpp", Line: 7}, true},
		{"    #0 0x558db74fa4f9 in operator() /src/qfr/lib.cpp:39",
			Frame{Function: "operator()", File: "/src/qfr/lib.cpp", Line: 39}, true},
		{"    #0 0x5582f520e7ae in (anonymous namespace)::f(int*, int) /src/qfr/lib.cpp:29:31",
			Frame{Function: "(anonymous namespace)::f(int*, int)", File: "/src/qfr/lib.cpp", Line: 29}, true},
		{"    #0 0x558aa817846b in operator<<(std::ostream&, X const&) /src/qfr/lib.cpp:36",
			Frame{Function: "operator<<(std::ostream&, X const&)", File: "/src/qfr/lib.cpp", Line: 36}, true},
		{"    #0 0x55d4 in X::operator/(X const&) const /src/x.cpp:3",
			Frame{Function: "X::operator/(X const&) const", File: "/src/x.cpp", Line: 3}, true},
		// Rust: v0 and legacy demangling, std frames under /rustc/.
		{"    #0 0x562f62c8000a in <mycrate::Thing>::run::{closure#0} /src/qfr/rs/src/main.rs:12:29",
			Frame{Function: "<mycrate::Thing>::run::{closure#0}", File: "/src/qfr/rs/src/main.rs", Line: 12}, true},
		{"    #0 0x55d4 in mycrate::Thing::run::{{closure}} /src/rs/src/main.rs:12:29",
			Frame{Function: "mycrate::Thing::run::{{closure}}", File: "/src/rs/src/main.rs", Line: 12}, true},
		{"    #0 0x5643bc009db7 in <mycrate::A as core::fmt::Debug>::fmt /src/qfr/rs/src/main.rs:23:26",
			Frame{Function: "<mycrate::A as core::fmt::Debug>::fmt", File: "/src/qfr/rs/src/main.rs", Line: 23}, true},
		{"    #2 0x55cf8549cf09 in core::fmt::write /rustc/e50aa6fba4e63ab34c72bf9acfd2c307c1155d1a/library/core/src/fmt/mod.rs",
			Frame{Function: "core::fmt::write", File: "/rustc/e50aa6fba4e63ab34c72bf9acfd2c307c1155d1a/library/core/src/fmt/mod.rs"}, true},
		{"    #13 0x55cf85488236 in <&dyn core::ops::function::Fn<(), Output = i32> + core::marker::Sync as core::ops::function::FnOnce<()>>::call_once /rustc/e50a/library/core/src/ops/function.rs:287:21",
			Frame{Function: "<&dyn core::ops::function::Fn<(), Output = i32> + core::marker::Sync as core::ops::function::FnOnce<()>>::call_once",
				File: "/rustc/e50a/library/core/src/ops/function.rs", Line: 287}, true},
		// Modules instead of sources; glibc's and the sanitizer's own frames.
		{"    #0 0x559ad2387b1d in operator new[](unsigned long) (/tmp/qfr/asan-clang+0x116b1d) (BuildId: de5d8723524c3e1f945da5ba9011f9df1a61897b)",
			Frame{Function: "operator new[](unsigned long)", Module: "/tmp/qfr/asan-clang"}, true},
		{"    #5 0x559ad229f500 in _start (/tmp/qfr/asan-clang+0x2e500) (BuildId: de5d8723524c3e1f945da5ba9011f9df1a61897b)",
			Frame{Function: "_start", Module: "/tmp/qfr/asan-clang"}, true},
		{"    #0 0x7f3c2a4b in __asan_memcpy (/lib/x86_64-linux-gnu/libasan.so.8+0xc4b1c)",
			Frame{Function: "__asan_memcpy", Module: "/lib/x86_64-linux-gnu/libasan.so.8"}, true},
		{"    #2 0x7f24  (/lib/x86_64-linux-gnu/libc.so.6+0x29d8f)",
			Frame{Module: "/lib/x86_64-linux-gnu/libc.so.6"}, true},
		{"    #3 0x7f24d9b65249 in __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16",
			Frame{Function: "__libc_start_call_main", File: "csu/../sysdeps/nptl/libc_start_call_main.h", Line: 58}, true},
		{"    #0 0x7f3c2a4b in __interceptor_memcpy ../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc:827",
			Frame{Function: "__interceptor_memcpy", File: "../../../../src/libsanitizer/sanitizer_common/sanitizer_common_interceptors.inc", Line: 827}, true},
		{"    #0 0x55d4 in ns::klass::as_int(int) const", Frame{Function: "ns::klass::as_int(int) const"}, true},
		{"    #0 0x7ff6 in main C:\\src\\x.cpp:5", Frame{Function: "main", File: "C:\\src\\x.cpp", Line: 5}, true},
		// ThreadSanitizer's shape: no address.
		{"    #0 bump /tmp/cap/tsan/race.c:8 (race+0x11dc)",
			Frame{Function: "bump", File: "/tmp/cap/tsan/race.c", Line: 8, Module: "race"}, true},
		{"    #0 ns::klass::bump(int) const /src/race.cpp:8:3 (race+0x11dc)",
			Frame{Function: "ns::klass::bump(int) const", File: "/src/race.cpp", Line: 8, Module: "race"}, true},
		{"    #0 pthread_create ../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp:1001 (libtsan.so.2+0x5e686)",
			Frame{Function: "pthread_create", File: "../../../../src/libsanitizer/tsan/tsan_interceptors_posix.cpp", Line: 1001, Module: "libtsan.so.2"}, true},
		{"    #1 <null> <null> (libc.so.6+0x8ec0)", Frame{Module: "libc.so.6"}, true},
		// Not frames.
		{"", Frame{}, false},
		{"#", Frame{}, false},
		{"#0", Frame{}, false},
		{"#0 ", Frame{}, false},
		{"#x 0x55d4 in f /src/a.c:1", Frame{}, false},
		{"#0 0x55d4 at f /src/a.c:1", Frame{}, false},
		{"==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020 at pc 0x55d4", Frame{}, false},
		{"SUMMARY: AddressSanitizer: heap-buffer-overflow /src/qfr/lib.cpp:14:35 in ns::klass::as_int(int) const", Frame{}, false},
		{"  0x7b44d8ddfd80: 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", Frame{}, false},
		{"# comment line", Frame{}, false},
		{"#1 f", Frame{Function: "f"}, true}, // no location: the callers want a source line
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, ok := SanitizerFrame(tt.line)
			if ok != tt.ok || got != tt.want {
				t.Errorf("got %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

// qualifiedFrames is the recorded output of testdata/qualified-frames.txtar.
func qualifiedFrames(t *testing.T) *txtar.Archive {
	t.Helper()
	data, err := os.ReadFile("testdata/qualified-frames.txtar")
	if err != nil {
		t.Fatal(err)
	}
	return txtar.Parse(data)
}

// TestSanitizerReportSite: in every recorded ASan report the crash is
// reported at the function that overflowed, as the report's own SUMMARY
// line names it, never at its caller in main.
func TestSanitizerReportSite(t *testing.T) {
	lines := map[string]int{"const": 14, "volatile": 15, "ref": 16, "rref": 17, "noexcept": 18,
		"template": 24, "anon": 29, "operator": 36, "lambda": 39, "closure": 12, "debug": 23}
	n := 0
	for _, f := range qualifiedFrames(t).Files {
		if !strings.HasPrefix(f.Name, "asan/") {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			var frames []Frame
			var summary string
			for l := range strings.Lines(f.Data) {
				if fr, ok := SanitizerFrame(l); ok && fr.HasSource() {
					frames = append(frames, fr)
				}
				if s, ok := strings.CutPrefix(l, "SUMMARY: AddressSanitizer: heap-buffer-overflow "); ok {
					summary = strings.TrimSpace(s)
				}
			}
			i := Pick(frames, "/src/qfr")
			if i < 0 {
				t.Fatal("no frame")
			}
			loc, fn, _ := strings.Cut(summary, " in ")
			got := frames[i]
			if got.Function != fn || !strings.HasPrefix(loc, got.File+":") {
				t.Errorf("site %q at %s:%d, want %q at %s", got.Function, got.File, got.Line, fn, loc)
			}
			if want := lines[f.Name[strings.LastIndexByte(f.Name, '/')+1:]]; got.Line != want {
				t.Errorf("line %d, want %d", got.Line, want)
			}
		})
	}
	if n != 20 {
		t.Errorf("%d reports, want 20", n)
	}
}
