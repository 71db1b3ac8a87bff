package server

import (
	"context"
	"encoding/json"
	"runtime"
	"sort"
	"testing"
)

// tokenBudget is the most tools/list may cost a model for the default
// workflows on Linux, in tokens estimated as bytes/4, output schemas
// included. tools/list is read whole before a model's first call.
const tokenBudget = 6400

func TestToolsListFitsTokenBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the budget is set for the default workflows on Linux; elsewhere the Apple workflows add to them")
	}
	srv, _ := New(newServices(t, nil), Options{})
	res, err := connect(t, srv, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	tokens := len(b) / 4
	t.Logf("tools/list: %d tools, %d bytes, ~%d tokens (budget %d)", len(res.Tools), len(b), tokens, tokenBudget)
	if tokens <= tokenBudget {
		return
	}
	type size struct {
		name  string
		bytes int
	}
	var sizes []size
	for _, tool := range res.Tools {
		tb, _ := json.Marshal(tool)
		sizes = append(sizes, size{tool.Name, len(tb)})
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i].bytes > sizes[j].bytes })
	for _, s := range sizes[:min(10, len(sizes))] {
		t.Logf("  %6d bytes  %s", s.bytes, s.name)
	}
	t.Errorf("tools/list costs ~%d tokens, over the budget of %d: shorten descriptions (see the largest tools above)", tokens, tokenBudget)
}
