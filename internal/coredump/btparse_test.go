package coredump

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
