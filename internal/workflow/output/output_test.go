package output_test

import (
	"context"
	"encoding/json"
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

// A search answers within bounds whatever it is asked: limits above their
// maximum are refused before any work, naming the limit, and the matches
// returned (text and structured content alike) stay within the response
// budget however many lines match.
func TestSearchIsBounded(t *testing.T) {
	c, id, _ := storedOutput(t, 200000)
	for _, call := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"output_id": id, "pattern": "line", "max_matches": 100000}, "use 1 to 1000"},
		{map[string]any{"output_id": id, "pattern": "line", "context": 21}, "use 0 to 20"},
		{map[string]any{"output_id": id, "pattern": strings.Repeat("a", 4097)}, "at most 4096"},
		{map[string]any{"output_id": id, "pattern": ""}, "pattern is empty"},
	} {
		r := c.Call("output_search", call.args)
		if r.Outcome != "usage_error" || !strings.Contains(r.Text, call.want) || len(r.Text) > 1000 {
			t.Errorf("%.80v: outcome %q, text %.200q; want a short usage error saying %q", call.args, r.Outcome, r.Text, call.want)
		}
	}
	r := c.Call("output_search", map[string]any{"output_id": id, "pattern": "line", "max_matches": 1000, "context": 20})
	if r.IsError {
		t.Fatal(r.Text)
	}
	structured, err := json.Marshal(r.Out)
	if err != nil {
		t.Fatal(err)
	}
	budget := config.DefaultBudgetBytes
	if len(r.Text) > 2*budget || len(structured) > 2*budget {
		t.Errorf("answer of %d text bytes and %d structured bytes, budget %d", len(r.Text), len(structured), budget)
	}
	if r.Out["total"] != float64(200000) || r.Out["truncated"] != true {
		t.Errorf("total %v truncated %v: every match is counted", r.Out["total"], r.Out["truncated"])
	}
	// The structured matches are the ones the text shows.
	matches := r.Out["matches"].([]any)
	if shown := strings.Count(r.Text, "\n"+id+":"); len(matches) == 0 || len(matches) >= 1000 || shown < len(matches) {
		t.Errorf("%d matches in the structured content, text lines %d", len(matches), shown)
	}
}

// Context windows of matches close together do not repeat lines: every line
// is shown once, matches marked ":" and context "-", groups apart split by
// "--", with the same 1-based line numbers in text and structured content.
func TestSearchShowsEachLineOnce(t *testing.T) {
	c, id, _ := storedOutput(t, 100)
	r := c.Call("output_search", map[string]any{"output_id": id, "pattern": "^line (10|11|50)$", "context": 2})
	want := strings.Join([]string{
		`SEARCH "^line (10|11|50)$" in ` + id + `: 3 matching lines`,
		id + ":9- line 8", id + ":10- line 9", id + ":11: line 10", id + ":12: line 11", id + ":13- line 12", id + ":14- line 13",
		"--",
		id + ":49- line 48", id + ":50- line 49", id + ":51: line 50", id + ":52- line 51", id + ":53- line 52",
	}, "\n") + "\n"
	if r.Text != want {
		t.Errorf("text:\n%s\nwant:\n%s", r.Text, want)
	}
	first := r.Out["matches"].([]any)[0].(map[string]any)
	if first["line"] != float64(11) || first["text"] != "line 10" {
		t.Errorf("structured first match %v: want line 11 (1-based), as the text says", first)
	}
}
