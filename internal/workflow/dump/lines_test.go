package dump_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// A dump_command of several lines runs them in order on one engine, one
// output each, each cached as a single command is; what cannot run is
// refused with what is wrong, never with an engine's death.
func TestCommandOfSeveralLines(t *testing.T) {
	need(t, "gdb", "gdb")
	exe, core := makeCore(t, "segv")
	c := mcptest.Connect(t, nil)
	if open := c.Call("dump_open", map[string]any{"core": core, "program": exe}); open.IsError {
		t.Fatalf("dump_open:\n%s", open.Text)
	}
	engines := []struct{ name, pkg, prefix, reg string }{
		{"gdb", "gdb", "", "info registers rip"},
		{"lldb", "lldb-16", "lldb: ", "register read rip"},
	}
	for _, e := range engines {
		t.Run(e.name+": two lines", func(t *testing.T) {
			need(t, map[string]string{"gdb": "gdb", "lldb": "lldb-16"}[e.name], e.pkg)
			r := c.Call("dump_command", map[string]any{"command": e.prefix + "bt\n\n" + e.reg + "\n"})
			var o wire.DumpCommand
			r.Decode(t, &o)
			if r.IsError || r.Outcome != "ok" || r.FirstLine() != fmt.Sprintf("OK %s: 2 lines ran", e.name) {
				t.Fatalf("two lines:\n%s", r.Text)
			}
			if len(o.Commands) != 2 || o.Commands[0].Command != "bt" || o.Commands[1].Command != e.reg || o.Engine != e.name {
				t.Fatalf("commands: %+v", o.Commands)
			}
			if !strings.Contains(r.Text, "crash_here") || !strings.Contains(r.Text, "rip") ||
				o.Commands[0].OutputID == "" || o.Commands[0].OutputID == o.Commands[1].OutputID {
				t.Errorf("outputs:\n%s", r.Text)
			}
			// Each line was cached as the single command it is.
			one := c.Call("dump_command", map[string]any{"command": e.prefix + e.reg})
			var oo wire.DumpCommand
			one.Decode(t, &oo)
			if !oo.Cached || oo.OutputID != o.Commands[1].OutputID {
				t.Errorf("the line run alone was not served from the cache: %+v\n%s", oo, one.Text)
			}
		})
	}
	t.Run("an engine error on one line does not stop the next", func(t *testing.T) {
		r := c.Call("dump_command", map[string]any{"command": "p nosuchsymbol\nbt"})
		var o wire.DumpCommand
		r.Decode(t, &o)
		if r.Outcome != "failed" || len(o.Commands) != 2 || !strings.HasPrefix(r.FirstLine(), "ENGINE ERROR gdb: 1 of 2 lines failed, first line 1: No symbol") ||
			!strings.Contains(r.Text, "crash_here") {
			t.Errorf("%+v\n%s", o, r.Text)
		}
	})
	refusals := []struct{ name, command, want string }{
		{"a line for another engine", "bt\nlldb: bt", "line 2 is for lldb, the command's first line for gdb"},
		{"a block", "python\nprint(1)\nend", `line 1 "python" makes gdb read the lines after it`},
		{"a block alone", "python", `line 1 "python" makes gdb read the lines after it`},
		{"more lines than an answer holds", strings.Repeat("bt\n", 40), "the command has 40 lines; one answer holds the outputs of at most 16"},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			r := c.Call("dump_command", map[string]any{"command": tt.command})
			if !r.IsError || r.Outcome != "usage_error" || !strings.Contains(r.Text, tt.want) || strings.Contains(r.Text, "died") || strings.Contains(r.Text, "ended") {
				t.Errorf("outcome %s:\n%s", r.Outcome, r.Text)
			}
		})
	}
	// The engine that refused nothing is still the one that runs the next
	// command: no restart note.
	r := c.Call("dump_command", map[string]any{"command": "info frame", "force": true})
	var o wire.DumpCommand
	r.Decode(t, &o)
	if r.IsError || len(o.Notes) != 0 {
		t.Errorf("after the refusals: %+v\n%s", o, r.Text)
	}
}
