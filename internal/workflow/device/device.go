// Package device is the `device` workflow: physical iPhones, iPads and
// other Apple devices through `xcrun devicectl` (Xcode 15 and later): list
// them, install, launch (watched for a crash, its console captured into the
// output store when asked), stop, build and run in one call, and fetch the
// crash reports a device wrote. Building or testing alone for a device are
// xcode_build and xcode_test with device_id. It is opt-in (`workflows:` in the config) and available on
// macOS with Xcode only; apple.Options lets tests run it elsewhere against a
// fake xcrun.
package device

import (
	"fmt"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/workflow/apple"
)

// Workflow returns the device workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow { return WorkflowWith(svc, apple.Options{}) }

// WorkflowWith is Workflow with injected availability and the directory
// crash reports are copied into (tests).
func WorkflowWith(svc *services.Set, o apple.Options) *catalog.Workflow {
	h := &handler{svc: svc, opts: o}
	none := defaults.Requirements{}
	buildRun := defaults.Requirements{AllOf: []string{"scheme"}, OneOf: [][]string{{"workspace_path", "project_path"}}}
	world := catalog.Annotations{OpenWorld: true}
	return &catalog.Workflow{
		ID:          "device",
		Title:       "Physical Apple devices",
		Description: "List devices, install, launch, stop apps and fetch their crash reports through devicectl; device_id defaults to the only device (macOS, opt-in).",
		OptIn:       true,
		Available:   o.AvailableFunc(),
		Tools: []*catalog.Tool{
			catalog.New("device_list", "List physical devices: name, model, OS, UDID, connection, pairing.",
				catalog.Annotations{ReadOnly: true, Idempotent: true, OpenWorld: true}, h.list),
			catalog.New("device_install_app", "Install an .app bundle on a device.",
				catalog.Annotations{Idempotent: true, OpenWorld: true}, catalog.WithDefaults(svc.Defaults, none, h.install)),
			catalog.New("device_launch_app", "Launch an installed app (args, env), watch it and fetch its crash reports; console: capture its output into the store.",
				world, catalog.WithDefaults(svc.Defaults, none, h.launch)),
			catalog.New("device_stop_app", "Terminate an app's process on a device (pid from device_launch_app).",
				catalog.Annotations{Destructive: true, OpenWorld: true}, catalog.WithDefaults(svc.Defaults, none, h.stop)),
			catalog.New("device_build_run", "Build a scheme for a device, install and launch its app, watch it and fetch its crash reports; verdict line first.",
				world, catalog.WithDefaults(svc.Defaults, buildRun, h.buildRun)).
				Help("timeout_s", fmt.Sprintf("default %g (the config's timeouts.run)", svc.Config.RunTimeout().Seconds())),
			catalog.New("device_crash_reports", "Copy a device's crash reports of an app off it and summarise them.",
				catalog.Annotations{ReadOnly: true, OpenWorld: true}, catalog.WithDefaults(svc.Defaults, none, h.crashReports)),
		},
	}
}

type handler struct {
	svc  *services.Set
	opts apple.Options
}
