package device_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/fakexcode"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/device"
	"github.com/triage-dev/triage/internal/workflow/session"
)

// TestProfileShowsWorkflow: the device workflow is opt-in and not enabled
// by the configuration; a profile naming it in the config file lists its tools for the
// session that switches to it (the client is told with
// notifications/tools/list_changed) and lets their calls through;
// switching back hides them again.
func TestProfileShowsWorkflow(t *testing.T) {
	fakexcode.Install(t, fakexcode.Scenario{Rules: []fakexcode.Rule{answer(t, "list_devices.json", "list", "devices")}})
	opts := apple.Options{Available: func() error { return nil }, ReportDirs: []string{t.TempDir()}}
	cfg, err := config.Parse("config.yaml", []byte("profiles:\n  phone:\n    workflows: [device]\n"))
	if err != nil || !slices.Equal(cfg.Profiles["phone"].Workflows, []string{"device"}) {
		t.Fatalf("config: %+v, %v", cfg, err)
	}
	c := mcptest.ConnectCatalogConfig(t, cfg, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), device.WorkflowWith(svc, opts)}
	})
	if slices.Contains(c.Tools(), "device_list") {
		t.Fatalf("device_list listed before the profile: %v", c.Tools())
	}
	if r := c.Call("device_list", nil); r.Outcome != "usage_error" || !strings.Contains(r.Text, `workflow "device", which is not enabled`) || !strings.Contains(r.Text, "session_use_profile") {
		t.Fatalf("hidden call: %s %s", r.Outcome, r.Text)
	}

	r := c.Call("session_use_profile", map[string]any{"profile": "phone"})
	if r.IsError || !strings.Contains(r.Text, "tools/list changed: the tools of workflows device are listed for this session") {
		t.Fatalf("use: %s", r.Text)
	}
	waitListChanged(t, c)
	if !slices.Contains(c.Tools(), "device_list") {
		t.Fatalf("device_list not listed after the profile: %v", c.Tools())
	}
	if r := c.Call("device_list", nil); r.Outcome != "ok" || r.FirstLine() != "3 DEVICES (1 connected)" {
		t.Fatalf("device_list: %s %s", r.Outcome, r.Text)
	}

	if r := c.Call("session_use_profile", map[string]any{"profile": "default"}); r.IsError || !strings.Contains(r.Text, "no more workflows shown") {
		t.Fatalf("back: %s", r.Text)
	}
	waitListChanged(t, c)
	if slices.Contains(c.Tools(), "device_list") || c.Call("device_list", nil).Outcome != "usage_error" {
		t.Errorf("device_list still there after switching back")
	}
}

// TestProfileUnknownWorkflow: a profile cannot name a workflow there is
// not; the error lists those there are.
func TestProfileUnknownWorkflow(t *testing.T) {
	c := mcptest.ConnectCatalog(t, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{session.Workflow(svc), device.WorkflowWith(svc, apple.Options{Available: func() error { return nil }})}
	})
	r := c.Call("session_set_defaults", map[string]any{"workflows": []string{"devices"}})
	if r.Outcome != "usage_error" || !strings.Contains(r.Text, `unknown workflow "devices"; known workflows: session, device`) {
		t.Errorf("%s %s", r.Outcome, r.Text)
	}
	r = c.Call("session_set_defaults", map[string]any{"workflows": []string{"device"}})
	if r.IsError || !strings.Contains(r.Text, "workflows: device") || !strings.Contains(r.Text, "tools/list changed") {
		t.Errorf("%s", r.Text)
	}
	waitListChanged(t, c)
	if !slices.Contains(c.Tools(), "device_list") {
		t.Errorf("device_list not listed: %v", c.Tools())
	}
}

func waitListChanged(t *testing.T, c *mcptest.Client) {
	t.Helper()
	select {
	case <-c.ListChanged:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed within 10s")
	}
}
