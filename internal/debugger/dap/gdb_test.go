package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	godap "github.com/google/go-dap"

	"github.com/triage-dev/triage/internal/debugger"
)

// gdb 14+ speaks DAP with `gdb -i=dap`; this machine's gdb is older, so the
// gdb path runs against a scripted adapter that replays the shape of a
// recorded gdb 14 session: initialized right after the initialize response,
// frame ids from 0, "Locals"/"Arguments" scopes, thread/module events we do
// not use, and an exit code in "exited" followed by "terminated".
type gdbScript struct {
	t   *testing.T
	c   net.Conn
	seq int
	log []string // commands in arrival order
}

func (g *gdbScript) send(m message) {
	g.seq++
	m.Seq = g.seq
	raw, _ := json.Marshal(m)
	if err := godap.WriteBaseMessage(g.c, raw); err != nil {
		g.t.Logf("fake gdb write: %v", err)
	}
}

func (g *gdbScript) event(name, body string) {
	g.send(message{Type: "event", Event: name, Body: json.RawMessage(body)})
}

func (g *gdbScript) reply(req message, body string) {
	g.send(message{Type: "response", RequestSeq: req.Seq, Command: req.Command, Success: true, Body: json.RawMessage(body)})
}

func (g *gdbScript) fail(req message, msg string) {
	g.send(message{Type: "response", RequestSeq: req.Seq, Command: req.Command, Message: msg,
		Body: json.RawMessage(`{"error":{"id":1,"format":"` + msg + `"}}`)})
}

const gdbFrames = `{"stackFrames":[
 {"id":0,"name":"add","line":9,"column":0,"instructionPointerReference":"0x555555555183","source":{"name":"target.c","path":"/src/target.c"}},
 {"id":1,"name":"main","line":24,"column":0,"instructionPointerReference":"0x555555555205","source":{"name":"target.c","path":"/src/target.c"}}]}`

// gdbWorkerFrames are a second thread's, blocked in glibc (its sources
// named as gdb names them, relative to glibc's build).
const gdbWorkerFrames = `{"stackFrames":[
 {"id":10,"name":"__futex_abstimed_wait_common64","line":57,"column":0,"instructionPointerReference":"0x7ffff7e2a0f6","source":{"name":"futex-internal.c","path":"./nptl/futex-internal.c"}},
 {"id":11,"name":"___pthread_mutex_lock","line":93,"column":0,"instructionPointerReference":"0x7ffff7e2f478","source":{"name":"pthread_mutex_lock.c","path":"./nptl/pthread_mutex_lock.c"}},
 {"id":12,"name":"worker","line":30,"column":0,"instructionPointerReference":"0x555555555240","source":{"name":"target.c","path":"/src/target.c"}}]}`

func (g *gdbScript) run() {
	r := bufio.NewReader(g.c)
	for {
		raw, err := godap.ReadBaseMessage(r)
		if err != nil {
			return
		}
		var req message
		_ = json.Unmarshal(raw, &req)
		g.log = append(g.log, req.Command)
		switch req.Command {
		case "initialize":
			g.reply(req, `{"supportsConfigurationDoneRequest":true,"supportsFunctionBreakpoints":true,
				"supportsConditionalBreakpoints":true,"supportsHitConditionalBreakpoints":true}`)
			g.event("initialized", `{}`)
		case "launch":
			g.reply(req, `{}`)
		case "setFunctionBreakpoints":
			g.reply(req, `{"breakpoints":[{"id":1,"verified":true,"source":{"path":"/src/target.c"},"line":9}]}`)
		case "configurationDone":
			g.reply(req, `{}`)
			g.event("thread", `{"reason":"started","threadId":1}`)
			g.event("module", `{"reason":"new","module":{"id":"libc","name":"libc.so.6"}}`)
			g.event("gdb-private-event", `{"whatever":true}`)
			g.event("stopped", `{"reason":"breakpoint","threadId":1,"allThreadsStopped":true,"hitBreakpointIds":[1]}`)
		case "threads":
			g.reply(req, `{"threads":[{"id":1,"name":"target"},{"id":2,"name":"worker"}]}`)
		case "stackTrace":
			var a godap.StackTraceArguments
			_ = json.Unmarshal(req.Arguments, &a)
			if a.ThreadId == 2 {
				g.reply(req, gdbWorkerFrames)
				break
			}
			g.reply(req, gdbFrames)
		case "scopes":
			g.reply(req, `{"scopes":[{"name":"Arguments","variablesReference":10,"expensive":false},
				{"name":"Locals","variablesReference":11,"expensive":false},
				{"name":"Registers","variablesReference":12,"expensive":false}]}`)
		case "variables":
			var a godap.VariablesArguments
			_ = json.Unmarshal(req.Arguments, &a)
			switch a.VariablesReference {
			case 10:
				g.reply(req, `{"variables":[{"name":"a","value":"3","type":"int","variablesReference":0},{"name":"b","value":"3","type":"int","variablesReference":0}]}`)
			case 11:
				g.reply(req, `{"variables":[{"name":"sum","value":"32767","type":"int","variablesReference":0}]}`)
			default:
				g.fail(req, "no such reference")
			}
		case "evaluate":
			var a godap.EvaluateArguments
			_ = json.Unmarshal(req.Arguments, &a)
			switch {
			case a.Context == "repl" && a.Expression == "info frame":
				g.reply(req, `{"result":"Stack level 0, frame at 0x7ffe...","variablesReference":0}`)
			case a.Expression == "a*100":
				g.reply(req, `{"result":"300","type":"int","variablesReference":0}`)
			default:
				g.fail(req, "A syntax error in expression, near `)'.")
			}
		case "continue":
			g.reply(req, `{"allThreadsContinued":true}`)
			g.event("continued", `{"threadId":1,"allThreadsContinued":true}`)
			g.event("exited", `{"exitCode":3}`)
			g.event("terminated", `{}`)
		case "disconnect":
			g.reply(req, `{}`)
			return
		default:
			g.fail(req, "unknown request "+req.Command)
		}
	}
}

func TestGDBDAPTranscript(t *testing.T) {
	client, server := net.Pipe()
	script := &gdbScript{t: t, c: server}
	done := make(chan struct{})
	go func() { defer close(done); script.run() }()

	b := newBackend(t, KindGDB)
	b.launchAdapter = func(context.Context, string) (*started, string, error) {
		return &started{stream: client}, KindGDB, nil
	}
	ctx := context.Background()
	prog := "/bin/true" // exists; the scripted adapter ignores it
	st, err := b.Launch(ctx, debugger.LaunchSpec{Program: prog, Breakpoints: []debugger.BreakpointSpec{{Function: "add"}}})
	if err != nil {
		t.Fatal(err)
	}
	st = mustStop(t, b, st, debugger.StopBreakpoint)
	if ids := st.LastStop.BreakpointIDs; len(ids) != 1 || ids[0] != 1 {
		t.Errorf("hit breakpoints = %v", ids)
	}
	frames, err := b.Stack(ctx, 0, 10)
	if err != nil || len(frames) != 2 || frames[0].Function != "add" || frames[0].ID != 0 || frames[1].Line != 24 {
		t.Fatalf("stack = %+v, %v", frames, err)
	}
	// gdb numbers threads by their ids; the other thread is where its
	// own code called into glibc.
	l, err := debugger.ListThreads(ctx, b)
	if err != nil || len(l.Threads) != 2 || l.Stopped != 1 {
		t.Fatalf("threads = %+v, %v", l, err)
	}
	if got, want := l.Summary(), "in thread #1 (add) of 2; 1 other thread:\n  #2 worker blocked in pthread_mutex_lock at target.c:30\n"; got != want {
		t.Errorf("threads' summary = %q, want %q", got, want)
	}
	vars, err := b.Variables(ctx, debugger.VariablesRequest{})
	if err != nil || len(vars) != 3 || varValue(vars, "a") != "3" || varValue(vars, "sum") != "32767" {
		t.Fatalf("variables (arguments and locals, not registers) = %+v, %v", vars, err)
	}
	if _, err := b.Variables(ctx, debugger.VariablesRequest{Scope: "statics"}); err == nil {
		t.Error("unknown scope accepted")
	}
	if v, err := b.Evaluate(ctx, "a*100", 0); err != nil || v.Value != "300" {
		t.Errorf("evaluate = %+v, %v", v, err)
	}
	if _, err := b.Evaluate(ctx, "a +* )", 0); err == nil {
		t.Error("syntax error evaluated")
	}
	// This gdb's capabilities lack supportsLogPoints: a logpoint is refused
	// saying so, before any request.
	lp := debugger.BreakpointSpec{File: "/src/target.c", Line: 9, LogMessage: "a={a}"}
	if _, err := b.AddBreakpoint(ctx, lp); !errors.Is(err, debugger.ErrUnsupported) || !strings.Contains(err.Error(), "the gdb adapter does not offer them (no supportsLogPoints") {
		t.Errorf("logpoint on an adapter without them: %v", err)
	}
	if out, err := b.RawCommand(ctx, "info frame"); err != nil || out == "" {
		t.Errorf("raw command = %q, %v", out, err)
	}
	st, err = b.Continue(ctx, debugger.ContinueOptions{Wait: 5 * time.Second})
	if err != nil || st.Status != debugger.StatusExited || *st.LastStop.ExitCode != 3 {
		t.Fatalf("continue to exit: %+v %v, %v", st, st.LastStop, err)
	}
	if err := b.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	<-done
	want := []string{"initialize", "launch", "setFunctionBreakpoints", "configurationDone"}
	for i, c := range want {
		if i >= len(script.log) || script.log[i] != c {
			t.Fatalf("request order = %v, want it to start with %v", script.log, want)
		}
	}
}

func TestGDBVersionGate(t *testing.T) {
	for out, want := range map[string]bool{
		"GNU gdb (Debian 13.1-3) 13.1\nCopyright":                         false,
		"GNU gdb (GDB) 14.2\n":                                            true,
		"GNU gdb (Ubuntu 15.0.50.20240403-0ubuntu1) 15.0.50.20240403-git": true,
		"lldb version 16":                                                 false,
		"":                                                                false,
	} {
		if got := GDBSupportsDAP(out); got != want {
			t.Errorf("GDBSupportsDAP(%q) = %v, want %v", out, got, want)
		}
	}
}
