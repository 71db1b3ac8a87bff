package dump_test

import (
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// TestReportCrashSite: dump_report on a real NULL-deref core shows the
// crash site from the session's gdb: the faulting line, the NULL local
// beside the fault address; and the user's print settings are untouched.
func TestReportCrashSite(t *testing.T) {
	need(t, "gdb", "gdb")
	exe, core := makeCore(t, "nullderef")
	c := mcptest.Connect(t, nil)
	if open := c.Call("dump_open", map[string]any{"core": core, "program": exe}); open.IsError {
		t.Fatalf("dump_open:\n%s", open.Text)
	}
	rep := c.Call("dump_report", nil)
	for _, want := range []string{
		"crash site: total at nullderef.c:13 (frame #0)\n",
		"  >   13 | \tsum += n->value;\n",
		"  locals: sum = 1, n = 0x0\n",
		"  fault address 0x0: n = 0x0\n",
	} {
		if !strings.Contains(rep.Text, want) {
			t.Errorf("dump_report lacks %q:\n%s", want, rep.Text)
		}
	}
	var ro wire.DumpReport
	rep.Decode(t, &ro)
	if s := ro.CrashSite; s == nil || s.FaultAddr != "0x0" || len(s.Locals) != 2 || !s.Locals[1].NearFault {
		t.Errorf("crash_site %+v", ro.CrashSite)
	}
	show := c.Call("dump_command", map[string]any{"command": "show print elements"})
	if !strings.Contains(show.Text, "is 200.") {
		t.Errorf("the session's print limit changed:\n%s", show.Text)
	}
	cr := c.Call("crash_report_show", map[string]any{"path": core, "program": exe})
	if !strings.Contains(cr.Text, "  fault address 0x0: n = 0x0\n") || !strings.Contains(cr.Text, "  >   13 | \tsum += n->value;\n") {
		t.Errorf("crash_report_show lacks the crash site:\n%s", cr.Text)
	}
}

// TestReportCallers: dump_report on a real core of a hash table whose grow
// hands list_insert the NULL past its last bucket shows the frame that
// computed it after the crash site: its call line, its locals, and that
// node is its t->slots[i]; crash_report_show on the core shows the same.
func TestReportCallers(t *testing.T) {
	need(t, "gdb", "gdb")
	exe, core := makeCore(t, "hashgrow")
	c := mcptest.Connect(t, nil)
	if open := c.Call("dump_open", map[string]any{"core": core, "program": exe}); open.IsError {
		t.Fatalf("dump_open:\n%s", open.Text)
	}
	rep := c.Call("dump_report", nil)
	caller := "  `node` is frame #1's `t->slots[i]`\n" +
		"called from: table_grow at hashgrow.c:53 (frame #1)\n" +
		"      52 | \t\t\telse\n" +
		"  >   53 | \t\t\t\tlist_insert(t->slots[i], e->key);\n"
	if !strings.Contains(rep.Text, caller) || !strings.Contains(rep.Text, "\n  locals: i = 8, ") {
		t.Errorf("dump_report lacks the caller %q and its locals:\n%s", caller, rep.Text)
	}
	var ro wire.DumpReport
	rep.Decode(t, &ro)
	if s := ro.CrashSite; s == nil || len(s.Callers) != 1 || s.Callers[0].Function != "table_grow" || s.Callers[0].Expr != "t->slots[i]" {
		t.Errorf("crash_site %+v", ro.CrashSite)
	}
	if cr := c.Call("crash_report_show", map[string]any{"path": core, "program": exe}); !strings.Contains(cr.Text, caller) {
		t.Errorf("crash_report_show lacks the caller:\n%s", cr.Text)
	}
}
