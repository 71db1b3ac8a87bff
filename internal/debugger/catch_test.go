package debugger

import (
	"strings"
	"testing"
)

func TestBreakpointSpecKinds(t *testing.T) {
	for _, c := range []struct {
		spec BreakpointSpec
		kind string
		err  string
	}{
		{BreakpointSpec{Watch: "counter"}, "watch", ""},
		{BreakpointSpec{Watch: "counter", Access: "sideways"}, "watch", "access must be"},
		{BreakpointSpec{Access: "read", Function: "f"}, "function", "watch expression only"},
		{BreakpointSpec{Exception: "C++"}, "exception", ""},
		{BreakpointSpec{Exception: "signal:segv"}, "exception", ""},
		{BreakpointSpec{Exception: "java"}, "exception", "unknown exception kind"},
		{BreakpointSpec{Exception: "abort", Function: "f"}, "exception", "give one of"},
		{BreakpointSpec{Watch: "x", Condition: "x > 1"}, "watch", "code breakpoints"},
	} {
		err := c.spec.Validate()
		if c.spec.Kind() != c.kind || (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%+v: kind %s, err %v; want %s, %q", c.spec, c.spec.Kind(), err, c.kind, c.err)
		}
	}
	if e, _ := ParseException("signal:segv"); e.Signal != "SIGSEGV" {
		t.Errorf("signal:segv = %+v", e)
	}
}

// A watchpoint's stop as lldb prints it, and the line lookup of the
// instruction before the pc.
func TestLLDBWatchText(t *testing.T) {
	set := "Watchpoint created: Watchpoint 1: addr = 0x55555555801c size = 4 state = enabled type = w\n    declare @ '/t/w.c:2:5'\n    watchpoint spec = 'counter'\n    new value: 0\n"
	if id, v, err := LLDBWatchSet(set); id != 1 || v != "0" || err != nil {
		t.Errorf("set = %d %q %v", id, v, err)
	}
	hit := "\nWatchpoint 1 hit:\nold value: 0\nnew value: 1\nProcess 7 stopped\n* thread #1, name = 'w', stop reason = watchpoint 1\n"
	if o, n := LLDBWatchValues(hit); o != "0" || n != "1" {
		t.Errorf("hit values = %q %q", o, n)
	}
	if LLDBWatchHit("watchpoint 1") != 1 || LLDBWatchHit("breakpoint 1.1") != 0 {
		t.Error("watch hit ids")
	}
	f, l := LLDBWrittenAt("      Address: w[0x1151] (w.PT_LOAD[1]..text + 337)\n      Summary: w`bump + 21 at w.c:7:10\n")
	if f != "w.c" || l != 7 {
		t.Errorf("written at %s:%d", f, l)
	}
	if got := LLDBWatchCommand("p->count", AccessReadWrite); got != "watchpoint set variable -w read_write -- p->count" {
		t.Error(got)
	}
	if got := LLDBWatchCommand("*ptr", AccessWrite); got != "watchpoint set expression -w write -- &(*ptr)" {
		t.Error(got)
	}
}
