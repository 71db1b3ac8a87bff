package coredump

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/txtar"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The testdata files are real gdb 13 / lldb 16 batch output on cores of the
// testutil/crashers programs (segv, abort, cxxthrow, a stripped segv).
func TestParseBacktraceCaptured(t *testing.T) {
	type want struct {
		frames   int
		signal   string
		top      Frame // compared field by field where set
		crashing Frame // Trace.Crashing(): function, file, line
		warning  string
	}
	for _, tc := range []struct {
		file  string
		parse func(string) (*Trace, error)
		want  want
	}{
		{"gdb-segv-nomarker.txt", ParseGDBBacktrace, want{2, "SIGSEGV",
			Frame{Function: "crash_here", File: "segv.c", Line: 5, Address: 0x55a5174a3155},
			Frame{Function: "crash_here", File: "segv.c", Line: 5}, ""}},
		{"gdb-abort.txt", ParseGDBBacktrace, want{5, "SIGABRT",
			Frame{Function: "__pthread_kill_implementation", File: "./nptl/pthread_kill.c", Line: 44},
			Frame{Function: "main", File: "abort.c", Line: 6}, ""}},
		{"gdb-cxx.txt", ParseGDBBacktrace, want{9, "SIGABRT",
			Frame{Function: "__pthread_kill_implementation", Line: 44},
			Frame{Function: "main", File: "cxxthrow.cc", Line: 4}, ""}},
		{"gdb-stripped.txt", ParseGDBBacktrace, want{5, "SIGSEGV",
			Frame{Address: 0x563ce1729155},
			Frame{Address: 0x563ce1729155}, ""}},
		{"gdb-mismatch.txt", ParseGDBBacktrace, want{6, "SIGSEGV",
			Frame{Address: 0x561c74193155},
			Frame{Address: 0x561c74193155}, "core file may not match specified executable file."}},
		{"lldb-segv.txt", ParseLLDBBacktrace, want{5, "SIGSEGV",
			Frame{Function: "crash_here", File: "segv.c", Line: 5, Module: "segv-e5818838f6c45f79", Address: 0x55a5174a3155},
			Frame{Function: "crash_here", File: "segv.c", Line: 5}, ""}},
		{"lldb-abort.txt", ParseLLDBBacktrace, want{7, "SIGABRT",
			Frame{Function: "__pthread_kill_implementation", File: "pthread_kill.c", Line: 44, Module: "libc.so.6"},
			Frame{Function: "main", File: "abort.c", Line: 6}, ""}},
		{"lldb-cxx.txt", ParseLLDBBacktrace, want{11, "SIGABRT",
			Frame{Function: "__pthread_kill_implementation", Module: "libc.so.6"},
			Frame{Function: "main", File: "cxxthrow.cc", Line: 4}, ""}},
		{"lldb-stripped.txt", ParseLLDBBacktrace, want{5, "SIGSEGV",
			Frame{Module: "stripped", Offset: 12, Address: 0x563ce1729155},
			Frame{Module: "stripped"}, ""}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			tr, err := tc.parse(readTestdata(t, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Frames) != tc.want.frames || tr.Signal != tc.want.signal {
				t.Errorf("%d frames, signal %q; want %d, %q", len(tr.Frames), tr.Signal, tc.want.frames, tc.want.signal)
			}
			for i, f := range tr.Frames {
				if f.Index != i {
					t.Errorf("frame %d has index %d", i, f.Index)
				}
			}
			matchFrame(t, "top", tr.Frames[0], tc.want.top)
			c, _ := tr.Crashing("")
			matchFrame(t, "crashing", c, tc.want.crashing)
			if tc.want.warning != "" && !strings.Contains(strings.Join(tr.Warnings, "\n"), tc.want.warning) {
				t.Errorf("warnings %q lack %q", tr.Warnings, tc.want.warning)
			}
			if tc.want.warning == "" && len(tr.Warnings) != 0 {
				t.Errorf("unexpected warnings %q", tr.Warnings)
			}
		})
	}
}

func matchFrame(t *testing.T, what string, got, want Frame) {
	t.Helper()
	if want.Function != got.Function || want.File != "" && want.File != got.File || want.Line != 0 && want.Line != got.Line ||
		want.Module != "" && want.Module != got.Module || want.Address != 0 && want.Address != got.Address ||
		want.Offset != 0 && want.Offset != got.Offset {
		t.Errorf("%s frame = %+v, want %+v", what, got, want)
	}
}

func TestParseBacktraceCxxNames(t *testing.T) {
	tr, err := ParseGDBBacktrace(readTestdata(t, "gdb-cxx.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]Frame{
		4: {Function: "", Module: "/lib/x86_64-linux-gnu/libstdc++.so.6"},
		6: {Function: "std::terminate()", Module: "/lib/x86_64-linux-gnu/libstdc++.so.6"},
		7: {Function: "__cxa_throw"},
	} {
		matchFrame(t, "frame", tr.Frames[i], want)
	}
	tl, err := ParseLLDBBacktrace(readTestdata(t, "lldb-cxx.txt"))
	if err != nil {
		t.Fatal(err)
	}
	matchFrame(t, "lldb frame 5", tl.Frames[5], Frame{Function: "std::terminate()", Offset: 21, Module: "libstdc++.so.6"})
	matchFrame(t, "lldb frame 8", tl.Frames[8], Frame{Function: "__libc_start_call_main", File: "libc_start_call_main.h", Line: 58})
}

func TestParseBacktraceNoFrames(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		parse       func(string) (*Trace, error)
		says        string
	}{
		{"gdb not a core", readTestdata(t, "gdb-notcore.txt"), ParseGDBBacktrace, "is not a core dump"},
		{"lldb not a core", readTestdata(t, "lldb-notcore.txt"), ParseLLDBBacktrace, "Unable to find process plug-in"},
		{"gdb empty", "", ParseGDBBacktrace, "gdb said"},
		{"lldb empty", "", ParseLLDBBacktrace, "lldb said"},
		{"gdb garbage", "\x00\x01#\n#x\n##0\n", ParseGDBBacktrace, "gdb said"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.parse(tc.input)
			if !errors.Is(err, ErrNoFrames) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("err = %v, want ErrNoFrames saying %q", err, tc.says)
			}
		})
	}
}

func TestParseGDBFrameHostile(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Frame
	}{
		{`0x1 in f (s=0x2 "look at me:12") at x.c:3`, Frame{Address: 1, Function: "f", File: "x.c", Line: 3}},
		{`0x1 in f (s=0x2 "unbalanced (")`, Frame{Address: 1, Function: "f"}},
		{`<signal handler called>`, Frame{Function: "<signal handler called>"}},
		{`0x1 in ?? ()`, Frame{Address: 1}},
		{`inlined_fn (x=1) at a.c:9`, Frame{Function: "inlined_fn", File: "a.c", Line: 9}},
		{`0x1 in ns::tmpl<int (*)(int)>::run() (this=0x0) at t.cc:7`, Frame{Address: 1, Function: "ns::tmpl<int (*)(int)>::run()", File: "t.cc", Line: 7}},
		{`0x1 in f () from /lib/with space/x.so`, Frame{Address: 1, Function: "f", Module: "/lib/with space/x.so"}},
		{``, Frame{}},
		{`0xZZ in f ()`, Frame{Function: "0xZZ in f"}},
		// C++ names as gdb 13 prints them (testdata of crashsite), and a
		// method's qualifier after its arguments, as lldb prints it.
		{`0x00005555555566c1 in ns::klass::as_int (this=0x7fffffffe638, i=4) at lib.cpp:14`,
			Frame{Address: 0x5555555566c1, Function: "ns::klass::as_int", File: "lib.cpp", Line: 14}},
		{`0x1 in ns::klass::as_int (this=0x2) const at lib.cpp:5228`, Frame{Address: 1, Function: "ns::klass::as_int", File: "lib.cpp", Line: 5228}},
		{`0x1 in ns::klass::as_rref (this=0x2, i=4) && at lib.cpp:17`, Frame{Address: 1, Function: "ns::klass::as_rref", File: "lib.cpp", Line: 17}},
		{`0x1 in ns::klass::as_int (this=0x2) const noexcept at lib.cpp:18`, Frame{Address: 1, Function: "ns::klass::as_int", File: "lib.cpp", Line: 18}},
		{`0x0000555555556709 in ns::klass::as_ref(int) & (this=0x7fffffffe638, i=4) at lib.cpp:16`,
			Frame{Address: 0x555555556709, Function: "ns::klass::as_ref(int) &", File: "lib.cpp", Line: 16}},
		{`ns::Holder<int, std::allocator<int> >::at (this=0x7fffffffe670, i=4) at lib.cpp:24`,
			Frame{Function: "ns::Holder<int, std::allocator<int> >::at", File: "lib.cpp", Line: 24}},
		{`0x1 in foo(int*)::$_0::operator()(int) const (this=0x7fffffffe580, i=4) at lib.cpp:39`,
			Frame{Address: 1, Function: "foo(int*)::$_0::operator()(int) const", File: "lib.cpp", Line: 39}},
		{`0x1 in foo()::{lambda(int)#1}::operator()(int) const (__closure=0x2, i=4) at lib.cpp:39`,
			Frame{Address: 1, Function: "foo()::{lambda(int)#1}::operator()(int) const", File: "lib.cpp", Line: 39}},
		{`0x1 in (anonymous namespace)::f (p=0x0, i=4) at lib.cpp:29`, Frame{Address: 1, Function: "(anonymous namespace)::f", File: "lib.cpp", Line: 29}},
		{`0x1 in operator<< (os=..., x=...) at lib.cpp:36`, Frame{Address: 1, Function: "operator<<", File: "lib.cpp", Line: 36}},
		{`0x1 in ns::klass::as_int(int) const ()`, Frame{Address: 1, Function: "ns::klass::as_int(int) const"}},
		{`0x1 in mycrate::Thing::run::{{closure}} () at src/main.rs:12`, Frame{Address: 1, Function: "mycrate::Thing::run::{{closure}}", File: "src/main.rs", Line: 12}},
		{`0x1 in <mycrate::A as core::fmt::Debug>::fmt (self=0x2, f=0x3) at src/main.rs:23`,
			Frame{Address: 1, Function: "<mycrate::A as core::fmt::Debug>::fmt", File: "src/main.rs", Line: 23}},
		{`const`, Frame{Function: "const"}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got := parseGDBFrame(0, tc.in)
			if got != tc.want {
				t.Errorf("parseGDBFrame(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestTraceSummary(t *testing.T) {
	tr, err := ParseGDBBacktrace(readTestdata(t, "gdb-abort.txt"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(tr.Summary(""), "\n")
	if first != "SIGABRT in main at abort.c:6 (gdb)" {
		t.Errorf("first line %q", first)
	}
}

// TestParseLLDBFrameCxx: lldb prints a method's qualifiers after its
// arguments ("as_int(this=0x…, i=4) const"); the function is the name
// before them (lldb 16 on cores of clang 22 and g++ 12 programs,
// ../crashsite/testdata/qualified-frames.txtar).
func TestParseLLDBFrameCxx(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Frame
	}{
		{"  * frame #0: 0x000055c8f92e1876 plain-clang`ns::klass::as_int(this=0x00007ffd8e4c8778, i=4) const at lib.cpp:14:35",
			Frame{Address: 0x55c8f92e1876, Module: "plain-clang", Function: "ns::klass::as_int", File: "lib.cpp", Line: 14}},
		{"  * frame #0: 0x0000557bcc121319 plain-gcc`ns::klass::as_vol(this=0x00007ffcea8444b0, i=4) volatile at lib.cpp:15:41",
			Frame{Address: 0x557bcc121319, Module: "plain-gcc", Function: "ns::klass::as_vol", File: "lib.cpp", Line: 15}},
		{"  * frame #0: 0x00005630c2c648b6 plain-clang`ns::klass::as_ref(this=0x00007ffc0d2853e8, i=4) & at lib.cpp:16:31",
			Frame{Address: 0x5630c2c648b6, Module: "plain-clang", Function: "ns::klass::as_ref", File: "lib.cpp", Line: 16}},
		{"  * frame #0: 0x000055afe38e98d6 plain-clang`ns::klass::as_rref(this=0x00007fffb0701c60, i=4) && at lib.cpp:17:33",
			Frame{Address: 0x55afe38e98d6, Module: "plain-clang", Function: "ns::klass::as_rref", File: "lib.cpp", Line: 17}},
		{"  * frame #0: 0x000055ccac388917 plain-clang`ns::Holder<int, std::allocator<int>>::at(this=0x00007fffc2f98ce8, i=4) at lib.cpp:24:33",
			Frame{Address: 0x55ccac388917, Module: "plain-clang", Function: "ns::Holder<int, std::allocator<int>>::at", File: "lib.cpp", Line: 24}},
		{"  * frame #0: 0x000055bf5902a386 plain-clang`foo(int*)::$_0::operator()(this=0x00007fff8299ca60, i=4) const at lib.cpp:39:31",
			Frame{Address: 0x55bf5902a386, Module: "plain-clang", Function: "foo(int*)::$_0::operator()", File: "lib.cpp", Line: 39}},
		{"  * frame #0: 0x0000556d6eecc773 plain-clang`(anonymous namespace)::f(p=0x0000000000000000, i=4) at lib.cpp:29:31",
			Frame{Address: 0x556d6eecc773, Module: "plain-clang", Function: "(anonymous namespace)::f", File: "lib.cpp", Line: 29}},
		{"  * frame #0: 0x0000558854c7232b plain-clang`operator<<(os=0x00007fab17217500, x=0x00007ffe012aa830) at lib.cpp:36:71",
			Frame{Address: 0x558854c7232b, Module: "plain-clang", Function: "operator<<", File: "lib.cpp", Line: 36}},
		{"    frame #2: 0x00007fe17376524a libc.so.6`__libc_start_call_main(main=(plain-clang`main at lib.cpp:43), argc=2, argv=0x00007ffd8e4c88f8) at libc_start_call_main.h:58:16",
			Frame{Index: 2, Address: 0x7fe17376524a, Module: "libc.so.6", Function: "__libc_start_call_main", File: "libc_start_call_main.h", Line: 58}},
		{"    frame #4: 0x000055c8f92e1241 plain-clang`_start + 33", Frame{Index: 4, Address: 0x55c8f92e1241, Module: "plain-clang", Function: "_start", Offset: 33}},
		{"    frame #3: 0x0000000000001000", Frame{Index: 3, Address: 0x1000}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := ParseLLDBFrameLine(tc.in)
			if !ok || got != tc.want {
				t.Errorf("got %+v, %v; want %+v", got, ok, tc.want)
			}
		})
	}
	for _, in := range []string{"", "frame #", "  frame #x: 0x1", "thread #1, stop reason = signal SIGSEGV"} {
		if f, ok := ParseLLDBFrameLine(in); ok {
			t.Errorf("%q read as %+v", in, f)
		}
	}
}

// TestCrashingFrameOfQualifiedNames: on every recorded core (a SIGSEGV in
// a const, volatile, & or && method, a template, a lambda, an anonymous
// namespace's function or an operator; g++ 12 and clang 22, gdb 13 and
// lldb 16), the crash is reported at the faulting function's line and
// name, as gdb names that frame.
func TestCrashingFrameOfQualifiedNames(t *testing.T) {
	lines := map[string]int{"const": 14, "volatile": 15, "ref": 16, "rref": 17, "noexcept": 18,
		"template": 24, "anon": 29, "operator": 36, "lambda": 39}
	gdbName := map[string]string{"const": "ns::klass::as_int", "volatile": "ns::klass::as_vol", "ref": "ns::klass::as_ref(int) &",
		"rref": "ns::klass::as_rref(int) &&", "noexcept": "ns::klass::as_noexcept", "template": "ns::Holder<int, std::allocator<int> >::at",
		"anon": "(anonymous namespace)::f", "operator": "operator<<", "lambda": "operator()"}
	data, err := os.ReadFile("../crashsite/testdata/qualified-frames.txtar")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range txtar.Parse(data).Files {
		dbg, rest, _ := strings.Cut(f.Name, "/")
		cc, mode, _ := strings.Cut(rest, "/")
		parse := map[string]func(string) (*Trace, error){"gdb": ParseGDBBacktrace, "lldb": ParseLLDBBacktrace}[dbg]
		if parse == nil {
			continue
		}
		n++
		t.Run(f.Name, func(t *testing.T) {
			tr, err := parse(f.Data)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := tr.Crashing("/src/qfr")
			if !ok || got.Index != 0 || got.File != "lib.cpp" || got.Line != lines[mode] {
				t.Fatalf("crashing frame %+v, want #0 at lib.cpp:%d", got, lines[mode])
			}
			want := gdbName[mode]
			switch {
			case dbg == "lldb" && mode == "ref":
				want = "ns::klass::as_ref"
			case dbg == "lldb" && mode == "rref":
				want = "ns::klass::as_rref"
			case dbg == "lldb" && mode == "template":
				want = "ns::Holder<int, std::allocator<int>>::at"
			case mode == "lambda" && cc == "clang":
				want = map[string]string{"gdb": "foo(int*)::$_0::operator()(int) const", "lldb": "foo(int*)::$_0::operator()"}[dbg]
			case mode == "lambda" && dbg == "lldb":
				want = "operator" // lldb 16 prints gcc's lambda as "operator(__closure=…, i=4)"
			}
			if got.Function != want {
				t.Errorf("function %q, want %q", got.Function, want)
			}
		})
	}
	if n != 36 {
		t.Errorf("%d backtraces, want 36", n)
	}
}
