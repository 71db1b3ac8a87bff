package observe_test

import (
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/hangers"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/observe"
	"github.com/triage-dev/triage/internal/workflow/output"
)

// TestObserveTimedOutNamesTheLimit: a program observed past its time
// limit (a read of a pipe nobody writes) ends TIMED OUT, saying which
// limit ran out: the call's timeout_s, or the config's timeouts.run.
func TestObserveTimedOutNamesTheLimit(t *testing.T) {
	p := hangers.PipeReader(t)
	args := map[string]any{"program": p.Bin, "cwd": t.TempDir(), "tracepoints": []map[string]any{{"location": "main"}}}
	args["timeout_s"] = 2
	if r := connect(t).Call("debug_observe", args); !strings.HasPrefix(r.FirstLine(), "TIMED OUT after 2s (timeout_s)") {
		t.Errorf("verdict %q, want TIMED OUT after 2s (timeout_s)…\n%s", r.FirstLine(), r.Text)
	}
	delete(args, "timeout_s")
	cfg := &config.Config{Workflows: []string{"observe"}, Timeouts: config.Timeouts{Run: config.Duration(2 * time.Second)}}
	c := mcptest.ConnectCatalogConfig(t, cfg, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{observe.Workflow(svc), output.Workflow(svc)}
	})
	want := "TIMED OUT after 2s (the config's timeouts.run; timeout_s overrides it)"
	if r := c.Call("debug_observe", args); !strings.HasPrefix(r.FirstLine(), want) {
		t.Errorf("verdict %q, want %q…\n%s", r.FirstLine(), want, r.Text)
	}
}
