package macos_test

import (
	"os"
	"strings"
	"testing"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/testutil/mcptest"
	"github.com/triage-dev/triage/internal/workflow/macos"
	"github.com/triage-dev/triage/internal/xcode"
)

// TestRealMacApp launches a macOS app (TRIAGE_MACOS_APP, an .app path),
// watches it and stops it, on a Mac with Xcode.
func TestRealMacApp(t *testing.T) {
	if os.Getenv("TRIAGE_REAL_XCODE") != "1" {
		t.Skip("set TRIAGE_REAL_XCODE=1 (with TRIAGE_MACOS_APP) on a Mac with Xcode to run against the real tools")
	}
	if err := xcode.Available(); err != nil {
		t.Fatal(err)
	}
	app := os.Getenv("TRIAGE_MACOS_APP")
	if app == "" {
		t.Fatal("TRIAGE_MACOS_APP must name an .app bundle that stays up when launched")
	}
	c := mcptest.ConnectCatalogConfig(t, &config.Config{Workflows: []string{"macos"}}, func(svc *services.Set) []*catalog.Workflow {
		return []*catalog.Workflow{macos.Workflow(svc)}
	})
	r := c.Call("macos_launch_app", map[string]any{"app_path": app, "watch_s": 3})
	var out macos.LaunchOutput
	r.Decode(t, &out)
	if r.Outcome != "ok" || !strings.HasPrefix(r.FirstLine(), "LAUNCHED ") {
		t.Fatalf("macos_launch_app: %s", r.Text)
	}
	if r := c.Call("macos_stop_app", map[string]any{"process_name": out.Process}); r.Outcome != "ok" {
		t.Fatalf("macos_stop_app: %s", r.Text)
	}
}
