package debug_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/toolpath"
)

// TestLogpoints sets a logpoint on add (called five times) through MCP on
// both C backends: the target runs to its exit without stopping, the
// answer tells of the five hits, and the stored event log has exactly
// five lines with the arguments of each call.
func TestLogpoints(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			attachOnEntry(t, c, backend.name)
			lp := c.Call("debug_breakpoint_add", map[string]any{"location": "add", "log_message": "a={a} b={b}"})
			if lp.IsError || !strings.Contains(lp.Text, "logpoint") {
				t.Fatalf("logpoint:\n%s", lp.Text)
			}
			// lldb-dap reads no log message on a function breakpoint
			// (lldb-vscode did): the logpoint is set at add's first line.
			adapter, _ := toolpath.LLDBDAP.Find()
			if moved := strings.Contains(lp.Text, "set at add's first line, prog.c:5"); backend.name == "dap" && moved != strings.HasPrefix(filepath.Base(adapter), "lldb-dap") {
				t.Errorf("function logpoint under %s: said moved to its first line %v:\n%s", adapter, moved, lp.Text)
			}
			end := c.Call("debug_continue", map[string]any{"wait_s": 30})
			if end.IsError || end.FirstLine() != "EXITED (code 3)" || !strings.Contains(end.Text, "5 logpoint hits since the last call") {
				t.Fatalf("continue: want the exit and 5 hits:\n%s", end.Text)
			}
			if !strings.Contains(end.Text, "a=6 b=4") {
				t.Errorf("the last hit is not shown:\n%s", end.Text)
			}
			want := []string{"a=0 b=0", "a=0 b=1", "a=1 b=2", "a=3 b=3", "a=6 b=4"}
			if got := logMessages(t, c, end.Text); strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("event log: got %q, want %q", got, want)
			}
		})
	}
}

// TestLogpointBesideBreakpoint: hits before a breakpoint's stop are told
// with that stop, once; the next answer has none to tell. A long message is
// cut in the log, and more in the answer.
func TestLogpointBesideBreakpoint(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			attachOnEntry(t, c, backend.name)
			// A message past its bound is cut, and said to be.
			c.Call("debug_breakpoint_add", map[string]any{"location": "add", "log_message": "b={b} " + strings.Repeat("x", 2000) + "{a}"})
			c.Call("debug_breakpoint_add", map[string]any{"location": "prog.c:13"})
			stop := c.Call("debug_continue", map[string]any{"wait_s": 30})
			if stop.FirstLine() != "STOPPED at breakpoint 2 in main at prog.c:13" || !strings.Contains(stop.Text, "5 logpoint hits since the last call") ||
				!strings.Contains(stop.Text, "bp 1 at add at prog.c:5: b=4") {
				t.Fatalf("continue: want the stop at line 13 after 5 hits:\n%s", stop.Text)
			}
			msgs := logMessages(t, c, stop.Text)
			if len(msgs) != 5 {
				t.Errorf("event log: %d hits, want 5", len(msgs))
			}
			for _, m := range msgs {
				if len(m) > 1024+len("…") || !strings.HasSuffix(m, "x…") {
					t.Errorf("a long message: %d bytes, ending %q; want it cut at 1024", len(m), m[max(0, len(m)-10):])
				}
			}
			if again := c.Call("debug_stack", nil); again.IsError || strings.Contains(again.Text, "logpoint hit") {
				t.Errorf("hits told twice:\n%s", again.Text)
			}
			if end := c.Call("debug_continue", map[string]any{"wait_s": 30}); end.FirstLine() != "EXITED (code 3)" || strings.Contains(end.Text, "logpoint hit") {
				t.Errorf("continue to the end:\n%s", end.Text)
			}
		})
	}
}

var outputIDRE = regexp.MustCompile(`output_get \{"output_id":"([^"]+)"\}`)

// logMessages reads the event log an answer names, one message a line,
// checking each line is a hit of breakpoint 1 in add.
func logMessages(t *testing.T, c *mcptest.Client, answer string) []string {
	t.Helper()
	m := outputIDRE.FindStringSubmatch(answer)
	if m == nil {
		t.Fatalf("no event log in the answer:\n%s", answer)
	}
	out := c.Call("output_get", map[string]any{"output_id": m[1]})
	var msgs []string
	for _, line := range strings.Split(out.Text, "\n") {
		i := strings.Index(line, `{"at"`)
		if i < 0 {
			continue
		}
		var hit struct {
			BP       int    `json:"bp"`
			Location string `json:"location"`
			Message  string `json:"message"`
		}
		if err := json.Unmarshal([]byte(line[i:]), &hit); err != nil {
			t.Fatalf("event log line %q: %v", line, err)
		}
		if hit.BP != 1 || !strings.Contains(hit.Location, "prog.c:5") {
			t.Errorf("hit %+v: want breakpoint 1 at prog.c:5", hit)
		}
		msgs = append(msgs, hit.Message)
	}
	return msgs
}

// TestLogpointBadMessage: an expression the debugger cannot evaluate is
// said in each hit's line, and the target still runs to its end; a
// message with an unbalanced brace is refused.
func TestLogpointBadMessage(t *testing.T) {
	for _, backend := range cBackends {
		t.Run(backend.name, func(t *testing.T) {
			needTool(t, backend.tool, backend.pkg)
			c := mcptest.Connect(t, nil)
			attachOnEntry(t, c, backend.name)
			if bad := c.Call("debug_breakpoint_add", map[string]any{"location": "add", "log_message": "a={a"}); !bad.IsError || !strings.Contains(bad.Text, "a { without its }") {
				t.Errorf("unbalanced brace:\n%s", bad.Text)
			}
			if lp := c.Call("debug_breakpoint_add", map[string]any{"location": "prog.c:5", "log_message": "a={a} n={nosuch}"}); lp.IsError {
				t.Fatalf("logpoint:\n%s", lp.Text)
			}
			end := c.Call("debug_continue", map[string]any{"wait_s": 30})
			if end.FirstLine() != "EXITED (code 3)" || !strings.Contains(end.Text, "5 logpoint hits") {
				t.Fatalf("continue: want the exit and 5 hits:\n%s", end.Text)
			}
			msgs := logMessages(t, c, end.Text)
			if len(msgs) != 5 {
				t.Fatalf("event log: %d hits, want 5: %q", len(msgs), msgs)
			}
			for _, m := range msgs {
				if !strings.HasPrefix(m, "a=") || !strings.Contains(m, "n=<error: nosuch") {
					t.Errorf("hit %q: want a's value and nosuch's error", m)
				}
			}
			if backend.name == "lldb" && !strings.Contains(msgs[0], "undeclared identifier 'nosuch'") {
				t.Errorf("lldb's own error is not in the line: %q", msgs[0])
			}
		})
	}
}

// TestLogpointsUnderDlv: dlv's logpoints on a Go loop, and a function
// logpoint refused (DAP's function breakpoints have no log message).
func TestLogpointsUnderDlv(t *testing.T) {
	needTool(t, "dlv", "go install github.com/go-delve/delve/cmd/dlv")
	bin := filepath.Join(t.TempDir(), "goprog")
	if out, err := exec.Command("go", "build", "-gcflags=all=-N -l", "-o", bin, "./testdata/goprog").CombinedOutput(); err != nil {
		t.Fatalf("building: %v\n%s", err, out)
	}
	c := mcptest.Connect(t, nil)
	if r := c.Call("debug_attach", map[string]any{"program": bin, "breakpoints": []string{"main.main"}}); r.IsError || !strings.HasPrefix(r.FirstLine(), "STOPPED") {
		t.Fatalf("attach:\n%s", r.Text)
	}
	fn := c.Call("debug_breakpoint_add", map[string]any{"location": "main.add", "log_message": "a={a}"})
	if !fn.IsError || !strings.Contains(fn.Text, "function breakpoints carry no log message") || !strings.Contains(fn.Text, "not supported") {
		t.Errorf("function logpoint under dlv:\n%s", fn.Text)
	}
	src, _ := filepath.Abs("testdata/goprog/main.go")
	if lp := c.Call("debug_breakpoint_add", map[string]any{"location": src + ":10", "log_message": "a={a} b={b} 100%"}); lp.IsError {
		t.Fatalf("logpoint:\n%s", lp.Text)
	}
	end := c.Call("debug_continue", map[string]any{"wait_s": 30})
	if end.FirstLine() != "EXITED (code 3)" || !strings.Contains(end.Text, "5 logpoint hits") {
		t.Fatalf("continue: want the exit and 5 hits:\n%s", end.Text)
	}
	m := outputIDRE.FindStringSubmatch(end.Text)
	if m == nil {
		t.Fatalf("no event log:\n%s", end.Text)
	}
	log := c.Call("output_get", map[string]any{"output_id": m[1]}).Text
	for _, want := range []string{`"message":"a=0 b=0 100%"`, `"message":"a=6 b=4 100%"`, `"location":"main.go:10"`} {
		if !strings.Contains(log, want) {
			t.Errorf("event log lacks %s:\n%s", want, log)
		}
	}
}

// attachOnEntry launches the C target under backend, stopped on entry.
func attachOnEntry(t *testing.T, c *mcptest.Client, backend string) {
	t.Helper()
	if r := c.Call("debug_attach", map[string]any{"program": prog(t), "stop_on_entry": true, "backend": backend}); r.IsError {
		t.Fatalf("attach:\n%s", r.Text)
	}
}
