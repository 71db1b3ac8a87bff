package debug_test

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/debug"
	"github.com/triage-dev/triage/internal/workflow/simulator"
	"github.com/triage-dev/triage/internal/xcode"
)

// TestRealAttachSim launches Safari in a real simulator
// (TRIAGE_XCODE_SIMULATOR, a name) waiting for the debugger and attaches
// Xcode's lldb-dap and lldb to it, on a Mac.
func TestRealAttachSim(t *testing.T) {
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
	for _, backend := range []string{"dap", "lldb"} {
		t.Run(backend, func(t *testing.T) {
			c := mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
				return []*catalog.Workflow{simulator.Workflow(svc), debug.Workflow(svc)}
			})
			if r := c.Call("sim_boot", map[string]any{"simulator_name": name}); r.Outcome != "ok" {
				t.Fatalf("sim_boot: %s", r.Text)
			}
			args := map[string]any{"simulator_name": name, "bundle_id": "com.apple.mobilesafari", "launch": true, "backend": backend}
			r := c.Call("debug_attach_sim", args)
			if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "STOPPED") {
				t.Fatalf("debug_attach_sim: %s", r.Text)
			}
			if st := c.Call("debug_stack", nil); st.IsError {
				t.Errorf("debug_stack: %s", st.Text)
			}
			if d := c.Call("debug_detach", nil); d.IsError {
				t.Errorf("debug_detach: %s", d.Text)
			}
			// Attached to the running app this time.
			delete(args, "launch")
			if r := c.Call("debug_attach_sim", args); r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "STOPPED") {
				t.Fatalf("debug_attach_sim to the running app: %s", r.Text)
			}
			c.Call("debug_detach", nil)
		})
	}
}
