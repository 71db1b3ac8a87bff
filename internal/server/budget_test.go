package server

import (
	"context"
	"encoding/json"
	"runtime"
	"sort"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/debug"
	"github.com/triage-dev/triage/internal/workflow/simulator"
	"github.com/triage-dev/triage/internal/workflow/xcode"
)

// tokenBudget is the most tools/list may cost a model for the default
// workflows on Linux, in tokens estimated as bytes/4, output schemas
// included. tools/list is read whole before a model's first call.
const tokenBudget = 6400

// macTokenBudget is the same for the default workflows on macOS with Xcode,
// where the xcode and simulator workflows and debug_attach_sim join them.
// Issue 18 asked for 6,000; within it the default would hold no run, debug
// or dump tool, so the debugger stays in it and this budget is today's
// figure (9,865 tokens: docs/PERFORMANCE.md, "Token budget on macOS"): it
// may fall, never rise. appleOnlyTokenBudget is the 6,000 met by naming
// the Apple workflows alone.
const macTokenBudget = 9870

// appleOnlyTokenBudget is issue 18's 6,000 tokens, met on macOS by the
// workflows `xcode` and `simulator` named alone.
const appleOnlyTokenBudget = 6000

func TestToolsListFitsTokenBudget(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the budget is set for the default workflows on Linux; elsewhere the Apple workflows add to them")
	}
	srv, _ := New(newServices(t, nil), Options{})
	checkToolsListBudget(t, srv, tokenBudget)
}

// TestToolsListOnMacFitsTokenBudget measures the default tools/list as a Mac
// with Xcode sees it: the Apple workflows' availability is injected, so it
// runs (and holds) on Linux too.
func TestToolsListOnMacFitsTokenBudget(t *testing.T) {
	svc := newServices(t, nil)
	srv, err := New(svc, Options{Catalog: macCatalog(svc, apple.Options{Available: func() error { return nil }})})
	if err != nil {
		t.Fatal(err)
	}
	checkToolsListBudget(t, srv, macTokenBudget)
}

// A Mac user who wants the list within issue 18's 6,000 tokens names the
// Apple workflows alone (docs/PERFORMANCE.md, "Token budget on macOS"): the
// always-on tools and the xcode and simulator workflows fit.
func TestToolsListOnMacAppleWorkflowsFitIssueBudget(t *testing.T) {
	svc := newServices(t, &config.Config{Workflows: []string{"xcode", "simulator"}})
	srv, err := New(svc, Options{Catalog: macCatalog(svc, apple.Options{Available: func() error { return nil }})})
	if err != nil {
		t.Fatal(err)
	}
	checkToolsListBudget(t, srv, appleOnlyTokenBudget)
}

// macCatalog is the catalog with every default Apple tool made with opts
// (available, as on macOS with Xcode, when opts.Available says so).
func macCatalog(svc *services.Set, opts apple.Options) *catalog.Catalog {
	cat := Catalog(svc)
	for i, w := range cat.Workflows {
		switch w.ID {
		case "xcode":
			cat.Workflows[i] = xcode.WorkflowWith(svc, opts)
		case "simulator":
			cat.Workflows[i] = simulator.WorkflowWith(svc, opts)
		case "debug":
			for j, tool := range w.Tools {
				if tool.Name == "debug_attach_sim" {
					w.Tools[j] = debug.AttachSimTool(svc, opts)
				}
			}
		}
	}
	return cat
}

// checkToolsListBudget fails when the default tools/list of srv costs more
// than budget tokens, naming the largest tools.
func checkToolsListBudget(t *testing.T, srv *Server, budget int) {
	t.Helper()
	res, err := connect(t, srv, nil).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	tokens := len(b) / 4
	t.Logf("tools/list: %d tools, %d bytes, ~%d tokens (budget %d)", len(res.Tools), len(b), tokens, budget)
	if tokens <= budget && !testing.Verbose() {
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
	if tokens > budget {
		t.Errorf("tools/list costs ~%d tokens, over the budget of %d: shorten descriptions (see the largest tools above)", tokens, budget)
	}
}
