package device_test

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/device"
	"github.com/triage-dev/triage/internal/xcode"
)

// TestRealDevice lists the devices, launches an installed app
// (TRIAGE_DEVICE_BUNDLE_ID) on a connected, unlocked device
// (TRIAGE_DEVICE_ID) with its console, stops it and fetches its crash
// reports, on a Mac with Xcode 15 or later.
func TestRealDevice(t *testing.T) {
	if os.Getenv("TRIAGE_REAL_XCODE") != "1" {
		t.Skip("set TRIAGE_REAL_XCODE=1 (with TRIAGE_DEVICE_ID and TRIAGE_DEVICE_BUNDLE_ID) on a Mac with Xcode and a device to run against the real tools")
	}
	if err := xcode.Available(); err != nil {
		t.Fatal(err)
	}
	id, bundle := os.Getenv("TRIAGE_DEVICE_ID"), os.Getenv("TRIAGE_DEVICE_BUNDLE_ID")
	if id == "" || bundle == "" {
		t.Fatal("TRIAGE_DEVICE_ID must name a connected device and TRIAGE_DEVICE_BUNDLE_ID an app installed on it")
	}
	c := mcptest.ConnectCatalogConfig(t, &config.Config{Workflows: []string{"device"}}, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{device.Workflow(svc)}
	})
	if r := c.Call("device_list", map[string]any{}); r.Outcome != "ok" || !strings.Contains(strings.ToLower(r.Text), strings.ToLower(id)) {
		t.Fatalf("device_list: %s", r.Text)
	}
	r := c.Call("device_launch_app", map[string]any{"device_id": id, "bundle_id": bundle, "watch_s": 5})
	var out device.LaunchOutput
	r.Decode(t, &out)
	if r.Outcome != "ok" || out.Status != "launched" || out.Pid == 0 {
		t.Fatalf("device_launch_app: %s", r.Text)
	}
	if r := c.Call("device_stop_app", map[string]any{"device_id": id, "pid": out.Pid}); r.Outcome != "ok" {
		t.Fatalf("device_stop_app: %s", r.Text)
	}
	if r := c.Call("device_launch_app", map[string]any{"device_id": id, "bundle_id": bundle, "watch_s": 5, "console": true}); r.Outcome != "ok" {
		t.Fatalf("device_launch_app --console: %s", r.Text)
	}
	process := xcode.ProcessName(bundle)
	if r := c.Call("device_crash_reports", map[string]any{"device_id": id, "process": process}); r.Outcome != "ok" {
		t.Fatalf("device_crash_reports: %s", r.Text)
	}
}
