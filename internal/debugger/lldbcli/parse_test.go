package lldbcli

import (
	"testing"

	"github.com/triage-dev/triage/internal/debugger"
)

func TestLatestState(t *testing.T) {
	for _, tc := range []struct {
		out    string
		status debugger.Status
		reason debugger.StopReason
		signal string
		code   int
	}{
		{"Process 7 launched: '/x' (x86_64)", debugger.StatusRunning, "", "", 0},
		{"Process 7 resuming\nProcess 7 stopped\n* thread #1, name = 'x', stop reason = breakpoint 1.1 3.1\n    frame #0", debugger.StatusStopped, debugger.StopBreakpoint, "", 0},
		{"Process 7 stopped\n* thread #1, name = 'x', stop reason = signal SIGSEGV: invalid address (fault address: 0x0)", debugger.StatusStopped, debugger.StopSignal, "SIGSEGV", 0},
		{"Process 7 stopped\n* thread #2, name = 'x', stop reason = signal SIGSTOP", debugger.StatusStopped, debugger.StopPause, "", 0},
		{"Process 7 stopped\n* thread #1, stop reason = step over", debugger.StatusStopped, debugger.StopStep, "", 0},
		{"Process 7 stopped\n* thread #1, stop reason = breakpoint 1.1\nProcess 7 resuming\nProcess 7 exited with status = 3 (0x00000003)", debugger.StatusExited, debugger.StopExited, "", 3},
		{"Process 7 exited with status = -1 (0xffffffff) lost connection", debugger.StatusExited, debugger.StopExited, "", -1},
		{"Process 7 exited with status = 3 (0x00000003)\nProcess 7 resuming", debugger.StatusExited, debugger.StopExited, "", 3},
		{"Process 6 exited with status = 0 (0x00000000)\nProcess 7 launched: '/bin/x'", debugger.StatusRunning, "", "", 0},
	} {
		t.Run(tc.out, func(t *testing.T) {
			st, ok := latestState(tc.out)
			if !ok || st.Status != tc.status || st.Pid != 7 {
				t.Fatalf("state = %+v, %v; want %s", st, ok, tc.status)
			}
			if tc.reason == "" {
				return
			}
			if st.LastStop.Reason != tc.reason || st.LastStop.Signal != tc.signal {
				t.Errorf("stop = %+v, want %s %q", st.LastStop, tc.reason, tc.signal)
			}
			if tc.reason == debugger.StopExited && *st.LastStop.ExitCode != tc.code {
				t.Errorf("exit code = %d, want %d", *st.LastStop.ExitCode, tc.code)
			}
		})
	}
	for _, out := range []string{"", "error: invalid process", "Process  stopped", "Processes 7 stopped"} {
		if st, ok := latestState(out); ok {
			t.Errorf("latestState(%q) = %+v, want none", out, st)
		}
	}
}

func TestParseFrames(t *testing.T) {
	out := "* thread #1, name = 'tt', stop reason = breakpoint 1.1\n" +
		"  * frame #0: 0x0000555555555183 tt`add(a=0, b=0) at target.c:9:6\n" +
		"    frame #1: 0x0000555555555205 tt`main(argc=1, argv=0x00007fffffffe728) at target.c:24:11\n" +
		"    frame #2: 0x00007ffff7df924a libc.so.6`__libc_start_call_main + 122\n" +
		"    frame #3: 0x0000000000001000\n" +
		"garbage frame # line\n"
	fr := parseFrames(out)
	if len(fr) != 4 {
		t.Fatalf("frames = %+v", fr)
	}
	if fr[0].Function != "add" || fr[0].File != "target.c" || fr[0].Line != 9 || fr[0].ID != 1 {
		t.Errorf("frame 0 = %+v", fr[0])
	}
	if fr[1].Function != "main" || fr[1].Line != 24 {
		t.Errorf("frame 1 = %+v", fr[1])
	}
	if fr[2].Function != "__libc_start_call_main" || fr[2].File != "" {
		t.Errorf("frame 2 = %+v", fr[2])
	}
	if fr[3].Function != "??" || fr[3].Address != "0x0000000000001000" {
		t.Errorf("frame 3 = %+v", fr[3])
	}
}

// TestParseFramesCxx: a C++ method's qualifier after its arguments, a
// template's spaces, an anonymous namespace and an operator keep the
// frame's source line (lldb 16 on clang 22 programs,
// internal/crashsite/testdata/qualified-frames.txtar).
func TestParseFramesCxx(t *testing.T) {
	for _, tc := range []struct {
		line, fn, file string
		ln             int
	}{
		{"  * frame #0: 0x000055c8f92e1876 plain-clang`ns::klass::as_int(this=0x00007ffd8e4c8778, i=4) const at lib.cpp:14:35", "ns::klass::as_int", "lib.cpp", 14},
		{"  * frame #0: 0x00005630c2c648b6 plain-clang`ns::klass::as_ref(this=0x00007ffc0d2853e8, i=4) & at lib.cpp:16:31", "ns::klass::as_ref", "lib.cpp", 16},
		{"  * frame #0: 0x000055ccac388917 plain-clang`ns::Holder<int, std::allocator<int>>::at(this=0x00007fffc2f98ce8, i=4) at lib.cpp:24:33", "ns::Holder<int, std::allocator<int>>::at", "lib.cpp", 24},
		{"  * frame #0: 0x000055bf5902a386 plain-clang`foo(int*)::$_0::operator()(this=0x00007fff8299ca60, i=4) const at lib.cpp:39:31", "foo(int*)::$_0::operator()", "lib.cpp", 39},
		{"  * frame #0: 0x0000556d6eecc773 plain-clang`(anonymous namespace)::f(p=0x0000000000000000, i=4) at lib.cpp:29:31", "(anonymous namespace)::f", "lib.cpp", 29},
		{"  * frame #0: 0x0000558854c7232b plain-clang`operator<<(os=0x00007fab17217500, x=0x00007ffe012aa830) at lib.cpp:36:71", "operator<<", "lib.cpp", 36},
	} {
		fr := parseFrames(tc.line)
		if len(fr) != 1 || fr[0].Function != tc.fn || fr[0].File != tc.file || fr[0].Line != tc.ln || fr[0].ID != 1 {
			t.Errorf("%s:\n got %+v\nwant %s at %s:%d", tc.line, fr, tc.fn, tc.file, tc.ln)
		}
	}
}

func TestParseVariablesAndBreakpoints(t *testing.T) {
	vars := parseVariables("(int) a = 3\n(point) pt = {\n  x = 3\n  y = 4\n}\n(char *) s = 0x0000 \"hi\"\n")
	if len(vars) != 3 || vars[0].Value != "3" || vars[1].Value != "{ x = 3 y = 4 }" || vars[2].Type != "char *" {
		t.Errorf("vars = %+v", vars)
	}
	bp, err := parseBreakpointSet("Breakpoint 2: no locations (pending).\nWARNING:  Unable to resolve breakpoint to any actual locations.", debugger.BreakpointSpec{File: "x.c", Line: 3})
	if err != nil || bp.ID != 2 || bp.Verified || bp.Message == "" {
		t.Errorf("pending breakpoint = %+v, %v", bp, err)
	}
	bp, err = parseBreakpointSet("Breakpoint 1: where = tt`add + 10 at target.c:9:6, address = 0x1183", debugger.BreakpointSpec{Function: "add"})
	if err != nil || !bp.Verified || bp.File != "target.c" || bp.Line != 9 {
		t.Errorf("breakpoint = %+v, %v", bp, err)
	}
	if _, err := parseBreakpointSet("error: nope", debugger.BreakpointSpec{}); err == nil {
		t.Error("garbage accepted")
	}
	if q := quote("a \"b\" `c` \\d"); q != "\"a \\\"b\\\" \\`c\\` \\\\d\"" {
		t.Errorf("quote = %s", q)
	}
}

// lldb's event thread can print a launch's first stop before the command's
// own "launched" line: the target is stopped, not running.
func TestLatestStateStopBeforeLaunchedLine(t *testing.T) {
	out := "Process 42 stopped\n* thread #1, name = 'target', stop reason = signal SIGSTOP\n" +
		"    frame #0: 0x00007ffff7fe4b70 ld-linux-x86-64.so.2`_start\nProcess 42 launched: '/tmp/target' (x86_64)\n"
	st, ok := latestState(out)
	if !ok || st.Status != debugger.StatusStopped || st.Pid != 42 {
		t.Fatalf("latestState = %+v, %v; want stopped (pid 42)", st, ok)
	}
	if st, ok := latestState("Process 42 launched: '/tmp/target' (x86_64)\n"); !ok || st.Status != debugger.StatusRunning {
		t.Fatalf("a launch alone: %+v, %v; want running", st, ok)
	}
}
