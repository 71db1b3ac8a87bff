package output_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
)

// storedOutput connects a client over a store on disk and stores an output
// of n lines in it; it returns the client, the output's id and its body file.
func storedOutput(t *testing.T, n int) (*mcptest.Client, string, string) {
	t.Helper()
	dir := t.TempDir()
	c := mcptest.Connect(t, &config.Config{Store: config.Store{Path: filepath.Join(dir, "out.db")}})
	st, err := c.Svc.Store(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for i := range n {
		fmt.Fprintf(&text, "line %d\n", i)
	}
	id, err := st.Put(context.Background(), store.Meta{Tool: "run", Argv: []string{"seq"}}, text.String(), store.Final{Status: "success"})
	if err != nil {
		t.Fatal(err)
	}
	body := filepath.Join(dir, "bodies", id+".log")
	if _, err := os.Stat(body); err != nil {
		t.Fatalf("the output's body is not where expected: %v", err)
	}
	return c, id, body
}

// The caller's mistakes are usage errors (CLI exit 2): an unknown id, an
// offset past the end, a pattern that does not compile.
func TestCallerMistakesAreUsageErrors(t *testing.T) {
	c, id, _ := storedOutput(t, 10)
	for _, call := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"output_get", map[string]any{"output_id": "o-nope"}, "not found"},
		{"output_get", map[string]any{"output_id": id, "offset": 50}, "past the end"},
		{"output_get", map[string]any{"output_id": id, "offset": -1}, "0 or more"},
		{"output_search", map[string]any{"output_id": id, "pattern": "a("}, "does not compile"},
		{"output_search", map[string]any{"output_id": "o-nope", "pattern": "x"}, "not found"},
	} {
		r := c.Call(call.tool, call.args)
		if !r.IsError || r.Outcome != "usage_error" || !strings.Contains(r.Text, call.want) {
			t.Errorf("%s %v: isError %v, outcome %q, text %q; want a usage error saying %q", call.tool, call.args, r.IsError, r.Outcome, r.Text, call.want)
		}
	}
	if r := c.Call("output_get", map[string]any{"output_id": id, "offset": 8}); r.IsError || r.Outcome != "ok" {
		t.Errorf("output_get of the last lines: %q %s", r.Outcome, r.Text)
	}
}

// A store that cannot read an output's body fails the call as an error
// (exit 1), never as the caller's mistake, and says what could not be read.
func TestStoreReadFailureIsNotAUsageError(t *testing.T) {
	c, id, body := storedOutput(t, 10)
	if err := os.Remove(body); err != nil {
		t.Fatal(err)
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"output_get", map[string]any{"output_id": id}},
		{"output_search", map[string]any{"output_id": id, "pattern": "line"}},
	} {
		r := c.Call(call.tool, call.args)
		if !r.IsError || r.Outcome != "error" {
			t.Errorf("%s with its body gone: isError %v, outcome %q; want the error outcome", call.tool, r.IsError, r.Outcome)
		}
		if !strings.Contains(r.Text, id) || !strings.Contains(r.Text, "no such file") {
			t.Errorf("%s with its body gone: %q; want the output and the cause named", call.tool, r.Text)
		}
	}
}
