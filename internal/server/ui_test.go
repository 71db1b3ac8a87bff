package server

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/testutil/pagetest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/testutil/crashers"
)

// uiServer serves a fresh server over HTTP with opts, and returns its URL
// and one MCP client per token.
func uiServer(t *testing.T, opts HTTPOptions, tokens ...string) (string, []*mcp.ClientSession) {
	t.Helper()
	srv, err := New(newServices(t, &config.Config{Store: config.Store{Path: filepath.Join(t.TempDir(), "triage.db")}}), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.HTTPHandler(opts))
	t.Cleanup(ts.Close)
	t.Cleanup(srv.UI.Close)
	var cs []*mcp.ClientSession
	for _, tok := range tokens {
		c, err := mcp.NewClient(&mcp.Implementation{Name: "t"}, nil).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: &http.Client{Transport: bearer{tok, http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		cs = append(cs, c)
	}
	return ts.URL, cs
}

// loginURL asks for a one-time login URL with token as bearer.
func loginURL(t *testing.T, base, token string) string {
	t.Helper()
	req, _ := http.NewRequest("POST", base+LoginCodePath, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct{ URL string }
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil || resp.StatusCode != 200 {
		t.Fatalf("login-code: %d %v", resp.StatusCode, err)
	}
	return v.URL
}

// browser logs in through url and returns a client holding the cookie.
func browser(t *testing.T, url string) *http.Client {
	t.Helper()
	return pagetest.Browser(t, url)
}

func get(t *testing.T, c *http.Client, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestUIShowsEachTokenItsOwnRuns: alice's page lists alice's run and not
// bob's, bob's the reverse, the administrator's both; an id of another's
// is not found, as over MCP.
func TestUIShowsEachTokenItsOwnRuns(t *testing.T) {
	base, cs := uiServer(t, HTTPOptions{Token: "alice-token", Tokens: []string{"bob-token"}, AdminTokens: []string{"root-token"}},
		"alice-token", "bob-token")
	_, a := ok(t, cs[0], "run", map[string]any{"program": "/bin/echo", "args": []string{"alice-was-here"}})
	_, b := ok(t, cs[1], "run", map[string]any{"program": "/bin/echo", "args": []string{"bob-was-here"}})
	aliceID, bobID := a["output_id"].(string), b["output_id"].(string)
	runs := func(c *http.Client) string {
		resp, body := get(t, c, base+"/ui/api/runs")
		if resp.StatusCode != 200 {
			t.Fatalf("runs: %d %s", resp.StatusCode, body)
		}
		return body
	}
	alice, bob, root := browser(t, loginURL(t, base, "alice-token")), browser(t, loginURL(t, base, "bob-token")), browser(t, loginURL(t, base, "root-token"))
	if l := runs(alice); !strings.Contains(l, aliceID) || strings.Contains(l, bobID) {
		t.Errorf("alice's page lists %s", l)
	}
	if l := runs(bob); !strings.Contains(l, bobID) || strings.Contains(l, aliceID) {
		t.Errorf("bob's page lists %s", l)
	}
	if l := runs(root); !strings.Contains(l, bobID) || !strings.Contains(l, aliceID) {
		t.Errorf("the administrator's page lists %s", l)
	}
	if resp, body := get(t, bob, base+"/ui/api/runs/"+aliceID+"/raw"); resp.StatusCode != 404 || strings.Contains(body, "alice-was-here") {
		t.Errorf("bob reading alice's output: %d %s", resp.StatusCode, body)
	}
	if _, body := get(t, alice, base+"/ui/api/runs/"+aliceID+"/raw"); body != "alice-was-here\n" {
		t.Errorf("alice's raw output = %q", body)
	}
}

// TestUIShowsEachTokenItsOwnSessions: alice's Sessions page shows her
// debug and dump sessions and not bob's background process, bob's the
// reverse, the administrator's all of them.
func TestUIShowsEachTokenItsOwnSessions(t *testing.T) {
	needTools(t, "lldb-vscode-16", "gdb")
	base, cs := uiServer(t, HTTPOptions{Token: "alice-token", Tokens: []string{"bob-token"}, AdminTokens: []string{"root-token"}},
		"alice-token", "bob-token")
	_, dbg := ok(t, cs[0], "debug_attach", map[string]any{"program": crashers.Build(t, "segv"), "breakpoints": []string{"crash_here"}})
	core, exe := crashers.Core(t, "segv")
	_, dump := ok(t, cs[0], "dump_open", map[string]any{"core": core, "program": exe})
	_, proc := ok(t, cs[1], "process_start", map[string]any{"program": "seq", "args": []string{"1", "3"}})
	debugID, dumpID, procID := dbg["session_id"].(string), dump["session_id"].(string), proc["id"].(string)
	sessions := func(c *http.Client) string {
		resp, body := get(t, c, base+"/ui/api/sessions")
		if resp.StatusCode != 200 {
			t.Fatalf("sessions: %d %s", resp.StatusCode, body)
		}
		return body
	}
	has := func(body, id string) bool { return strings.Contains(body, `"id":"`+id+`"`) }
	alice, bob, root := browser(t, loginURL(t, base, "alice-token")), browser(t, loginURL(t, base, "bob-token")), browser(t, loginURL(t, base, "root-token"))
	if l := sessions(alice); !has(l, debugID) || !has(l, dumpID) || has(l, procID) || !strings.Contains(l, "crash_here") {
		t.Errorf("alice's Sessions page: %s", l)
	}
	if l := sessions(bob); has(l, debugID) || has(l, dumpID) || !has(l, procID) || strings.Contains(l, "crash_here") {
		t.Errorf("bob's Sessions page: %s", l)
	}
	if l := sessions(root); !has(l, debugID) || !has(l, dumpID) || !has(l, procID) {
		t.Errorf("the administrator's Sessions page: %s", l)
	}
}

// TestUILoginAndGuards: the code works once and sets an HttpOnly,
// SameSite=Strict cookie; without it the API answers 401; another origin
// gets 403; every answer carries the strict CSP; nothing but GET is served.
func TestUILoginAndGuards(t *testing.T) {
	base, _ := uiServer(t, HTTPOptions{})
	url := loginURL(t, base, "")
	resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ck := resp.Header.Get("Set-Cookie")
	if resp.StatusCode != http.StatusSeeOther || !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Strict") {
		t.Fatalf("login: %d, cookie %q", resp.StatusCode, ck)
	}
	if resp, _ := get(t, http.DefaultClient, url); resp.StatusCode != 403 {
		t.Errorf("the code's second use: %d, want 403", resp.StatusCode)
	}
	if resp, body := get(t, http.DefaultClient, base+"/ui/api/runs"); resp.StatusCode != 401 || !strings.Contains(body, "not logged in") {
		t.Errorf("no cookie: %d %s", resp.StatusCode, body)
	}
	c := browser(t, loginURL(t, base, ""))
	resp, _ = get(t, c, base+"/ui/api/runs")
	if csp := resp.Header.Get("Content-Security-Policy"); resp.StatusCode != 200 || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("runs: %d, CSP %q", resp.StatusCode, csp)
	}
	if resp, _ := get(t, c, base+"/ui/api/runs", "Origin", "http://evil.example:80"); resp.StatusCode != 403 {
		t.Errorf("foreign origin: %d, want 403", resp.StatusCode)
	}
	req, _ := http.NewRequest("DELETE", base+"/ui/api/runs", nil)
	if resp, err := c.Do(req); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %v %v", resp.StatusCode, err)
	}
	req, _ = http.NewRequest("POST", base+LoginCodePath, nil)
	req.Header.Set("Origin", "http://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 403 {
		t.Errorf("a foreign page asking for a login code: %v %v", resp.StatusCode, err)
	}
}
