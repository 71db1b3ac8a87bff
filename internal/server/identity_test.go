package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/spawn"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// The "tokens share state" probe, through the real HTTP server: alice and
// bob have tokens of their own, root is the administrator. Each test fails
// where bob reaches what alice created, and where root cannot.

// httpClients serves a fresh server over HTTP with opts and connects one
// go-sdk client per token.
func httpClients(t *testing.T, opts HTTPOptions, tokens ...string) []*mcp.ClientSession {
	t.Helper()
	store := t.TempDir()
	srv, err := New(newServices(t, &config.Config{Store: config.Store{Path: filepath.Join(store, "triage.db")}}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(opts))
	t.Cleanup(ts.Close)
	var out []*mcp.ClientSession
	for _, tok := range tokens {
		hc := &http.Client{Transport: bearer{tok, http.DefaultTransport}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		out = append(out, cs)
	}
	return out
}

// aliceBobRoot are the clients of a server with two client tokens and an
// admin token.
func aliceBobRoot(t *testing.T) (alice, bob, root *mcp.ClientSession) {
	cs := httpClients(t, HTTPOptions{Token: "alice-token", Tokens: []string{"bob-token"}, AdminTokens: []string{"root-token"}},
		"alice-token", "bob-token", "root-token")
	return cs[0], cs[1], cs[2]
}

// ok calls a tool that must succeed and returns its text and structured
// content.
func ok(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, map[string]any) {
	t.Helper()
	res, text := callText(t, cs, tool, args)
	if res.IsError {
		t.Fatalf("%s %v: %s", tool, args, text)
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &out)
	return text, out
}

// notFoundAsUnknown checks that bob's call on alice's id fails in the very
// words the same call gets for an id that never existed.
func notFoundAsUnknown(t *testing.T, cs *mcp.ClientSession, tool, key, id, unknown string, args map[string]any) {
	t.Helper()
	call := func(v string) (*mcp.CallToolResult, string) {
		a := map[string]any{key: v}
		for k, x := range args {
			a[k] = x
		}
		return callText(t, cs, tool, a)
	}
	res, text := call(id)
	_, want := call(unknown)
	if !res.IsError || text != strings.ReplaceAll(want, unknown, id) {
		t.Errorf("%s on another identity's %s: error=%v %q\nwant the unknown id's answer %q", tool, id, res.IsError, text, want)
	}
}

func TestIdentityDefaults(t *testing.T) {
	alice, bob, root := aliceBobRoot(t)
	const secret = "postgres://alice:pw123@db.internal/app"
	ok(t, alice, "session_set_defaults", map[string]any{"env": map[string]any{"DB_URL": secret}, "project_dir": "/src/alice"})
	if text, _ := ok(t, alice, "session_show_defaults", nil); !strings.Contains(text, "DB_URL") || !strings.Contains(text, "/src/alice") {
		t.Fatalf("alice's own defaults:\n%s", text)
	}
	if text, out := ok(t, bob, "session_show_defaults", nil); strings.Contains(text, "DB_URL") || strings.Contains(text, "/src/alice") {
		t.Errorf("bob reads alice's defaults:\n%s\n%v", text, out)
	}
	ok(t, bob, "session_use_profile", map[string]any{"profile": "bobs"})
	if _, out := ok(t, alice, "session_show_defaults", nil); out["active"] != "default" {
		t.Errorf("bob's profile switch changed alice's active profile: %v", out)
	}
	res, text := callText(t, bob, "session_set_defaults", map[string]any{"project_dir": "/src/bob", "persist": true})
	if !res.IsError || !strings.Contains(text, "persist") || res.Meta["triage/outcome"] != "usage_error" {
		t.Errorf("bob persisting defaults: error=%v %q, want a usage error about persist", res.IsError, text)
	}
	// The admin sees every client's defaults: it is told they exist, reads
	// alice's as "CLIENT/PROFILE"; bob cannot, in the words of an unknown profile.
	aliceID := TokenIdentity("alice-token")
	if text, _ := ok(t, root, "session_show_defaults", nil); !strings.Contains(text, aliceID) || strings.Contains(text, "/src/alice") {
		t.Errorf("admin's own defaults do not name the other clients':\n%s", text)
	}
	if text, _ := ok(t, root, "session_show_defaults", map[string]any{"profile": aliceID + "/default"}); !strings.Contains(text, "/src/alice") {
		t.Errorf("admin reading alice's defaults:\n%s", text)
	}
	res, text = callText(t, bob, "session_show_defaults", map[string]any{"profile": aliceID + "/default"})
	if !res.IsError || strings.Contains(text, "/src/alice") || !strings.Contains(text, "no such profile") {
		t.Errorf("bob reading alice's defaults by name: error=%v %q", res.IsError, text)
	}
	if text, _ := ok(t, bob, "session_show_defaults", nil); strings.Contains(text, aliceID) {
		t.Errorf("bob is told of other clients:\n%s", text)
	}
}

func TestIdentityOutputs(t *testing.T) {
	alice, bob, root := aliceBobRoot(t)
	// A crash in alice's own directory: its output, and its core kept
	// beside the output in the store.
	text, out := ok(t, alice, "run", map[string]any{"program": crashers.Build(t, "segv"), "cwd": t.TempDir()})
	id, _ := out["output_id"].(string)
	if id == "" || !strings.Contains(text, "CRASHED") {
		t.Fatalf("alice's run (no output id?):\n%s\n%v", text, out)
	}
	notFoundAsUnknown(t, bob, "output_get", "output_id", id, "o-0000000000", nil)
	notFoundAsUnknown(t, bob, "output_search", "output_id", id, "o-0000000000", map[string]any{"pattern": "dereference"})
	if text, out := ok(t, bob, "output_search", map[string]any{"pattern": "dereference"}); out["total"] != float64(0) {
		t.Errorf("bob's search of the recent outputs finds alice's:\n%s", text)
	}
	if text, _ := ok(t, bob, "output_list", nil); strings.Contains(text, id) {
		t.Errorf("bob's output_list shows alice's %s:\n%s", id, text)
	}
	if text, _ := ok(t, bob, "crash_report_list", nil); strings.Contains(text, id) {
		t.Errorf("bob's crash_report_list shows alice's kept core:\n%s", text)
	}

	if text, _ := ok(t, alice, "output_get", map[string]any{"output_id": id}); !strings.Contains(text, "about to dereference NULL") {
		t.Errorf("alice's own output:\n%s", text)
	}
	if text, _ := ok(t, root, "output_get", map[string]any{"output_id": id}); !strings.Contains(text, "about to dereference NULL") {
		t.Errorf("the admin reading alice's output:\n%s", text)
	}
	if text, _ := ok(t, root, "output_list", nil); !strings.Contains(text, id) {
		t.Errorf("the admin's output_list lacks alice's %s:\n%s", id, text)
	}
	if text, _ := ok(t, root, "crash_report_list", nil); !strings.Contains(text, id) {
		t.Errorf("the admin's crash_report_list lacks alice's kept core:\n%s", text)
	}
}

func TestIdentityProcesses(t *testing.T) {
	alice, bob, root := aliceBobRoot(t)
	_, out := ok(t, alice, "process_start", map[string]any{"program": crashers.Build(t, "sleeper"), "args": []string{"600"}})
	id, _ := out["id"].(string)
	if id == "" {
		t.Fatalf("process_start: %v", out)
	}
	notFoundAsUnknown(t, bob, "process_stop", "id", id, "p99", nil)
	notFoundAsUnknown(t, bob, "process_output", "id", id, "p99", nil)
	if _, out := ok(t, bob, "process_list", nil); len(out["processes"].([]any)) != 0 {
		t.Errorf("bob lists alice's process: %v", out)
	}
	if text, _ := ok(t, alice, "process_list", nil); !strings.Contains(text, "running") {
		t.Fatalf("alice's process after bob's stop:\n%s", text)
	}
	if text, _ := ok(t, root, "process_stop", map[string]any{"id": id}); !strings.Contains(text, "INTERRUPTED") && !strings.Contains(text, "interrupted") {
		t.Errorf("the admin stopping alice's process:\n%s", text)
	}
}

func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s not found (scripts/install-deps.sh installs it)", n)
			}
			t.Skipf("%s not found", n)
		}
	}
}

func TestIdentityDebugSessions(t *testing.T) {
	needTools(t, "lldb-vscode-16")
	alice, bob, root := aliceBobRoot(t)
	text, out := ok(t, alice, "debug_attach", map[string]any{"program": crashers.Build(t, "segv"), "breakpoints": []string{"crash_here"}})
	id, _ := out["session_id"].(string)
	if id == "" || !strings.HasPrefix(text, "STOPPED") {
		t.Fatalf("alice's debug_attach:\n%s", text)
	}
	notFoundAsUnknown(t, bob, "debug_evaluate", "session_id", id, "dbg-999", map[string]any{"expression": "1+1"})
	notFoundAsUnknown(t, bob, "debug_detach", "session_id", id, "dbg-999", nil)
	if res, text := callText(t, bob, "debug_evaluate", map[string]any{"expression": "1+1"}); !res.IsError || !strings.Contains(text, "no debug session") {
		t.Errorf("bob's current debug session is alice's:\n%s", text)
	}
	if text, _ := ok(t, alice, "debug_evaluate", map[string]any{"expression": "1+1"}); !strings.Contains(text, "2") {
		t.Errorf("alice's session after bob's detach:\n%s", text)
	}
	if text, _ := ok(t, root, "debug_evaluate", map[string]any{"session_id": id, "expression": "1+1"}); !strings.Contains(text, "2") {
		t.Errorf("the admin evaluating in alice's session:\n%s", text)
	}
	ok(t, root, "debug_detach", map[string]any{"session_id": id})
	if res, _ := callText(t, alice, "debug_evaluate", map[string]any{"session_id": id, "expression": "1+1"}); !res.IsError {
		t.Error("alice's session survived the admin's detach")
	}
}

func TestIdentityDumpSessions(t *testing.T) {
	needTools(t, "gdb")
	dir := t.TempDir()
	exe := crashers.Build(t, "segv")
	if res, err := spawn.Run(context.Background(), spawn.Spec{Argv: []string{exe}, Dir: dir, CoreDumps: true}); err != nil || !res.CoreDumped {
		t.Skipf("no core dumped here (core_pattern): %v", err)
	}
	core := filepath.Join(dir, "core")
	if _, err := os.Stat(core); err != nil {
		t.Skipf("core not in the cwd (core_pattern is not \"core\"): %v", err)
	}
	alice, bob, root := aliceBobRoot(t)
	_, out := ok(t, alice, "dump_open", map[string]any{"core": core, "program": exe})
	id, _ := out["session_id"].(string)
	if id == "" {
		t.Fatalf("dump_open: %v", out)
	}
	notFoundAsUnknown(t, bob, "dump_command", "session_id", id, "dump-000000000000", map[string]any{"command": "gdb:bt"})
	notFoundAsUnknown(t, bob, "dump_close", "session_id", id, "dump-000000000000", nil)
	if text, _ := ok(t, bob, "dump_list", nil); strings.Contains(text, id) {
		t.Errorf("bob's dump_list shows alice's session:\n%s", text)
	}
	if res, text := callText(t, bob, "dump_command", map[string]any{"command": "gdb:bt"}); !res.IsError {
		t.Errorf("bob's current dump session is alice's:\n%s", text)
	}
	if text, _ := ok(t, root, "dump_command", map[string]any{"session_id": id, "command": "gdb:bt"}); !strings.Contains(text, "crash_here") {
		t.Errorf("the admin using alice's dump session:\n%s", text)
	}
	// The same core opened by bob is a session of his own.
	_, out = ok(t, bob, "dump_open", map[string]any{"core": core, "program": exe})
	if other, _ := out["session_id"].(string); other == "" || other == id {
		t.Errorf("bob's session of the same core: %q, alice's %q", other, id)
	}
	if text, _ := ok(t, alice, "dump_command", map[string]any{"command": "gdb:bt"}); !strings.Contains(text, "crash_here") {
		t.Errorf("alice's own session:\n%s", text)
	}
}

// TestOneIdentityUnchanged: a server with one token (two MCP sessions of
// it) and a server over one transport are one identity, as before tokens
// had identities: one client reads what the other created and may act on it.
func TestOneIdentityUnchanged(t *testing.T) {
	single := httpClients(t, HTTPOptions{Token: "only-token"}, "only-token", "only-token")
	srv, err := New(newServices(t, &config.Config{Store: config.Store{Path: filepath.Join(t.TempDir(), "triage.db")}}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string][2]*mcp.ClientSession{"one token": {single[0], single[1]}, "in-memory": {connect(t, srv, nil), connect(t, srv, nil)}}
	sleeper := crashers.Build(t, "sleeper")
	for name, p := range pairs {
		t.Run(name, func(t *testing.T) {
			first, second := p[0], p[1]
			dir := t.TempDir()
			ok(t, first, "session_set_defaults", map[string]any{"project_dir": dir})
			if text, _ := ok(t, second, "session_show_defaults", nil); !strings.Contains(text, dir) {
				t.Errorf("defaults not shared:\n%s", text)
			}
			_, out := ok(t, first, "process_start", map[string]any{"program": sleeper, "args": []string{"600"}})
			id, _ := out["id"].(string)
			outID, _ := out["output_id"].(string)
			ok(t, second, "output_get", map[string]any{"output_id": outID})
			ok(t, second, "process_stop", map[string]any{"id": id})
		})
	}
}
