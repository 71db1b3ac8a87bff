package simulator_test

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/simulator"
	"github.com/triage-dev/triage/internal/xcode"
)

// TestRealSimulator lists, boots and screenshots a real simulator
// (TRIAGE_XCODE_SIMULATOR, a name) on a Mac.
func TestRealSimulator(t *testing.T) {
	if os.Getenv("TRIAGE_REAL_XCODE") != "1" {
		t.Skip("set TRIAGE_REAL_XCODE=1 (with TRIAGE_XCODE_SIMULATOR) on a Mac with Xcode to run against the real tools")
	}
	if err := xcode.Available(); err != nil {
		t.Fatal(err)
	}
	name := os.Getenv("TRIAGE_XCODE_SIMULATOR")
	if name == "" {
		t.Fatal("TRIAGE_XCODE_SIMULATOR must name an available simulator")
	}
	c := mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{simulator.Workflow(svc)}
	})
	if r := c.Call("sim_list", map[string]any{}); r.IsError || !strings.Contains(r.Text, name) {
		t.Fatalf("sim_list: %s", r.Text)
	}
	if r := c.Call("sim_boot", map[string]any{"simulator_name": name}); r.Outcome != "ok" {
		t.Fatalf("sim_boot: %s", r.Text)
	}
	r := c.Call("sim_screenshot", map[string]any{"simulator_name": name, "path": t.TempDir() + "/shot.png"})
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "SCREENSHOT") {
		t.Fatalf("sim_screenshot: %s", r.Text)
	}
}
