package server

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
)

func newServices(t *testing.T, cfg *config.Config) *services.Set {
	t.Helper()
	if cfg == nil {
		cfg = &config.Config{}
	}
	svc, err := services.New(cfg, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

// connect starts srv and returns a client session over in-memory transports.
func connect(t *testing.T, srv *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return res, b.String()
}

func listNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestToolsListIsStableAndComplete(t *testing.T) {
	srv, err := New(newServices(t, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := listNames(t, connect(t, srv, nil))
	for _, want := range []string{"session_set_defaults", "session_show_defaults", "session_clear_defaults", "session_use_profile", "doctor"} {
		if !contains(first, want) {
			t.Errorf("tools/list lacks %s: %v", want, first)
		}
	}
	for range 3 {
		srv2, _ := New(newServices(t, nil), Options{})
		if got := listNames(t, connect(t, srv2, nil)); strings.Join(got, ",") != strings.Join(first, ",") {
			t.Fatalf("tools/list order changed: %v vs %v", got, first)
		}
	}
}

// selfExplanatory are the argument names whose meaning the name, the tool's
// description or the server instructions already give (session_id defaults,
// *_s seconds, env merging); describing them in every tool would cost
// tools/list bytes for nothing.
var selfExplanatory = map[string]bool{
	"args": true, "command": true, "condition": true, "core": true, "engine": true, "env": true,
	"expression": true, "id": true, "jobs": true, "location": true, "path": true,
	"pid": true, "profile": true, "program": true, "project_dir": true,
	"output_id": true, "session_id": true, "stdin": true, "stop_on_entry": true, "thread": true,
	"timeout_s": true, "unset": true, "vmcore": true,
	// Session-managed Apple arguments: the server instructions say once
	// that they are session defaults.
	"workspace_path": true, "project_path": true, "scheme": true, "configuration": true,
	"simulator_id": true, "simulator_name": true, "device_id": true,
}

func TestEveryToolHasDescribedSchemas(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{AllWorkflows: true})
	res, err := connect(t, srv, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Description == "" || tool.OutputSchema == nil || tool.Annotations == nil {
			t.Errorf("%s: description, output schema and annotations are required", tool.Name)
		}
		for what, schema := range map[string]any{"input": tool.InputSchema, "output": tool.OutputSchema} {
			raw, _ := json.Marshal(schema)
			var top struct {
				Type any `json:"type"`
			}
			json.Unmarshal(raw, &top)
			if top.Type != "object" {
				t.Errorf("%s: %s schema type is %v; clients require \"object\"", tool.Name, what, top.Type)
			}
		}
		b, _ := json.Marshal(tool.InputSchema)
		var s struct {
			Properties map[string]struct{ Description string } `json:"properties"`
		}
		json.Unmarshal(b, &s)
		for name, p := range s.Properties {
			if p.Description == "" && !selfExplanatory[name] {
				t.Errorf("%s: argument %s has no description", tool.Name, name)
			}
		}
	}
}

func TestBadArgumentsAreToolErrorsAndServerKeepsServing(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	cs := connect(t, srv, nil)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"wrong type", map[string]any{"scheme": 42}, "scheme"},
		{"unknown argument", map[string]any{"schem": "App"}, "schem"},
		{"nothing to set", map[string]any{}, "nothing to set"},
		{"bad env name", map[string]any{"env": map[string]any{"A=B": "x"}}, "env name"},
		{"huge string is accepted", map[string]any{"scheme": strings.Repeat("x", 1<<20)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, text := callText(t, cs, "session_set_defaults", tt.args)
			if tt.want == "" {
				if res.IsError {
					t.Fatalf("unexpected error: %.200s", text)
				}
				return
			}
			if !res.IsError || !strings.Contains(text, tt.want) {
				t.Errorf("IsError=%v text=%.300q, want an error mentioning %q", res.IsError, text, tt.want)
			}
		})
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"})
	if err == nil || !strings.Contains(err.Error(), "no_such_tool") {
		t.Errorf("unknown tool: err = %v", err)
	}
	if _, text := callText(t, cs, "session_show_defaults", nil); !strings.HasPrefix(text, "DEFAULTS") {
		t.Errorf("server stopped serving: %q", text)
	}
}

// probeCatalog holds tools that let tests observe concurrency and cancellation,
// plus a workflow that is never available.
func probeCatalog(entered chan<- string, release <-chan struct{}, cancelled chan<- error) *catalog.Catalog {
	type in struct {
		ID string `json:"id" jsonschema:"call id"`
	}
	type out struct {
		ID string `json:"id" jsonschema:"call id"`
	}
	block := catalog.New("block", "Blocks until released or cancelled.", catalog.Annotations{ReadOnly: true},
		func(ctx context.Context, c *catalog.Call, a in) (catalog.Result[out], error) {
			entered <- a.ID
			c.Progress(ctx, 1, 2, "blocked "+a.ID)
			select {
			case <-release:
				return catalog.Result[out]{Text: "released " + a.ID, Output: out(a)}, nil
			case <-ctx.Done():
				cancelled <- ctx.Err()
				return catalog.Result[out]{}, ctx.Err()
			}
		})
	quick := catalog.New("quick", "Answers at once.", catalog.Annotations{ReadOnly: true},
		func(ctx context.Context, c *catalog.Call, a in) (catalog.Result[out], error) {
			return catalog.Result[out]{Text: "quick " + a.ID, Output: out(a)}, nil
		})
	mac := catalog.New("mac_only", "Needs a Mac.", catalog.Annotations{ReadOnly: true},
		func(ctx context.Context, c *catalog.Call, a in) (catalog.Result[out], error) {
			return catalog.Result[out]{}, nil
		})
	return &catalog.Catalog{Workflows: []*catalog.Workflow{
		{ID: "probe", Title: "Probe", Description: "test tools", Tools: []*catalog.Tool{block, quick}},
		{ID: "apple", Title: "Apple", Description: "mac", Available: func() error { return errors.New("requires macOS with Xcode") }, Tools: []*catalog.Tool{mac}},
	}}
}

func TestSlowCallDoesNotBlockAnotherAndCancelStopsIt(t *testing.T) {
	entered := make(chan string, 1)
	release := make(chan struct{})
	cancelled := make(chan error, 1)
	srv, err := New(newServices(t, nil), Options{Catalog: probeCatalog(entered, release, cancelled)})
	if err != nil {
		t.Fatal(err)
	}
	var progressMsgs []string
	var mu sync.Mutex
	gotProgress := make(chan struct{}, 1)
	cs := connect(t, srv, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progressMsgs = append(progressMsgs, r.Params.Message)
		mu.Unlock()
		gotProgress <- struct{}{}
	}})

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "block", Arguments: map[string]any{"id": "slow"}}
		params.SetProgressToken("tok")
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	if id := <-entered; id != "slow" {
		t.Fatalf("entered %q", id)
	}
	<-gotProgress
	// The slow call is inside its handler; a second call must still be answered.
	if _, text := callText(t, cs, "quick", map[string]any{"id": "q"}); text != "quick q" {
		t.Fatalf("quick call = %q", text)
	}
	cancel() // the client sends notifications/cancelled
	select {
	case err := <-cancelled:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("handler context error = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("handler context was not cancelled after the client cancelled")
	}
	if err := <-done; err == nil {
		t.Error("cancelled call returned no error to the client")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(progressMsgs) != 1 || progressMsgs[0] != "blocked slow" {
		t.Errorf("progress = %v", progressMsgs)
	}
}

func TestUnavailableWorkflowIsHiddenAndExplained(t *testing.T) {
	srv, err := New(newServices(t, nil), Options{Catalog: probeCatalog(nil, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, nil)
	if names := listNames(t, cs); contains(names, "mac_only") {
		t.Errorf("unavailable tool listed: %v", names)
	}
	res, text := callText(t, cs, "mac_only", nil)
	if !res.IsError || !strings.Contains(text, `workflow "apple"`) || !strings.Contains(text, "requires macOS") {
		t.Errorf("mac_only: IsError=%v %q", res.IsError, text)
	}
}

func TestDisabledWorkflowIsExplained(t *testing.T) {
	srv, err := New(newServices(t, &config.Config{Workflows: []string{"apple"}}), Options{Catalog: probeCatalog(nil, nil, nil)})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv, nil)
	res, text := callText(t, cs, "quick", map[string]any{"id": "x"})
	if !res.IsError || !strings.Contains(text, "not enabled") {
		t.Errorf("quick in disabled workflow: %q", text)
	}
	if _, err := New(newServices(t, &config.Config{Workflows: []string{"nope"}}), Options{Catalog: probeCatalog(nil, nil, nil)}); err == nil || !strings.Contains(err.Error(), `unknown workflow "nope"`) {
		t.Errorf("unknown workflow: %v", err)
	}
}

func TestDoctorResource(t *testing.T) {
	srv, _ := New(newServices(t, nil), Options{})
	cs := connect(t, srv, nil)
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: DoctorURI})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		OS    string `json:"os"`
		Tools []struct{ Name, Status string }
	}
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &r); err != nil {
		t.Fatal(err)
	}
	if r.OS == "" || len(r.Tools) == 0 {
		t.Errorf("doctor resource = %+v", r)
	}
	for _, tool := range r.Tools {
		if tool.Name == "gdb" && tool.Status != "ok" {
			t.Errorf("gdb is installed here but doctor says %s", tool.Status)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
