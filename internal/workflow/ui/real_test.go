package ui_test

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/ui"
)

// TestRealUI reads a booted simulator's screen (TRIAGE_UI_SIMULATOR_ID,
// an app in the foreground) through the real axe, taps its first labelled
// element with a screenshot after, and checks a misspelt label is refused
// with that label among the nearest, on a Mac with Xcode and AXe.
func TestRealUI(t *testing.T) {
	if os.Getenv("TRIAGE_REAL_XCODE") != "1" {
		t.Skip("set TRIAGE_REAL_XCODE=1 (with TRIAGE_UI_SIMULATOR_ID, a booted simulator) on a Mac with Xcode and axe on PATH to run against the real tools")
	}
	id := os.Getenv("TRIAGE_UI_SIMULATOR_ID")
	if id == "" {
		t.Fatal("TRIAGE_UI_SIMULATOR_ID must be the UDID of a booted simulator showing an app")
	}
	c := mcptest.ConnectCatalogConfig(t, &config.Config{Workflows: []string{"ui"}}, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{ui.Workflow(svc)}
	})
	r := c.Call("ui_describe", map[string]any{"simulator_id": id})
	var screen ui.DescribeOutput
	r.Decode(t, &screen)
	if r.Outcome != "ok" || len(screen.Elements) == 0 {
		t.Fatalf("ui_describe: %s", r.Text)
	}
	label := ""
	for _, e := range screen.Elements[1:] {
		if e.Label != "" && e.Enabled {
			label = e.Label
			break
		}
	}
	if label == "" {
		t.Fatalf("no labelled element on the screen:\n%s", r.Text)
	}
	if r := c.Call("ui_act", map[string]any{"simulator_id": id, "action": "tap", "label": label, "screenshot": true}); r.Outcome != "ok" || len(r.Images) != 1 {
		t.Fatalf("ui_act tap %q: %s", label, r.Text)
	}
	r = c.Call("ui_act", map[string]any{"simulator_id": id, "action": "tap", "label": label + "x"})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, "nearest: ") || !strings.Contains(r.Text, label) {
		t.Fatalf("ui_act with a misspelt label: %s", r.Text)
	}
}
