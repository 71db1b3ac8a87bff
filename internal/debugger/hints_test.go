package debugger

import (
	"errors"
	"strings"
	"testing"
)

// The debuggers' own words (gdb's as gdb 13 prints them; gdb's DAP needs
// gdb 14, so the real-tool tests cover lldb and dlv).
func TestEvalHint(t *testing.T) {
	for _, c := range []struct{ debugger, msg, want string }{
		{"lldb", "error: Couldn't apply expression side effects : Couldn't dematerialize a result variable: couldn't read its memory", `debug_command "frame variable *items"`},
		{"lldb", "error: <user expression 0>:1:1: use of undeclared identifier 'nosuch'", "debug_variables lists the names"},
		{"gdb", `No symbol "nosuch" in current context.`, "debug_variables lists the names"},
		{"gdb", "Cannot access memory at address 0x0", "not readable"},
		{"dlv", `could not find symbol value for nosuch`, "debug_variables lists the names"},
		{"lldb", "error: expected expression", ""},
		{"dlv", "Cannot access memory at address 0x0", ""},
	} {
		got := EvalHint(c.debugger, "*items", c.msg)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("EvalHint(%s, %q) = %q, want %q", c.debugger, c.msg, got, c.want)
		}
	}
	base := errors.New("evaluating: boom")
	if err := WithEvalHint(base, "lldb", "x"); err != base {
		t.Errorf("no hint: %v", err)
	}
	sentinel := errors.Join(ErrRunning, errors.New("couldn't read"))
	if err := WithEvalHint(sentinel, "lldb", "x"); !errors.Is(err, ErrRunning) || !strings.Contains(err.Error(), "frame variable x") {
		t.Errorf("hinted error: %v", err)
	}
}
