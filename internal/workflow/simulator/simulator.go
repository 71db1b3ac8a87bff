// Package simulator is the `simulator` workflow: list and boot iOS
// simulators, install, launch and stop apps, build and run a scheme in one
// call, take screenshots and capture an app's log. A launch is watched for a
// few seconds, and a crash report the app writes in that time makes the
// verdict a crash. Available on macOS with Xcode only; apple.Options
// lets tests run it elsewhere against a fake xcrun.
package simulator

import (
	"fmt"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/workflow/apple"
)

// Workflow returns the simulator workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow { return WorkflowWith(svc, apple.Options{}) }

// WorkflowWith is Workflow with injected availability and report
// directories (tests).
func WorkflowWith(svc *services.Set, o apple.Options) *catalog.Workflow {
	h := &handler{svc: svc, opts: o}
	sim := defaults.Requirements{OneOf: [][]string{{"simulator_id", "simulator_name"}}}
	buildRun := defaults.Requirements{AllOf: []string{"scheme"}, OneOf: [][]string{{"workspace_path", "project_path"}, {"simulator_id", "simulator_name"}}}
	world := catalog.Annotations{OpenWorld: true}
	return &catalog.Workflow{
		ID:          "simulator",
		Title:       "iOS simulators",
		Description: "Boot simulators, install, launch and stop apps, screenshots and logs (macOS).",
		Available:   o.AvailableFunc(),
		Tools: []*catalog.Tool{
			catalog.New("sim_list", "List simulators: name, runtime, UDID, state.",
				catalog.Annotations{ReadOnly: true, Idempotent: true}, h.list),
			catalog.New("sim_boot", "Boot a simulator and wait until it is ready.",
				catalog.Annotations{Idempotent: true, OpenWorld: true}, catalog.WithDefaults(svc.Defaults, sim, h.boot)),
			catalog.New("sim_install_app", "Install an .app bundle on a simulator.",
				catalog.Annotations{Idempotent: true, OpenWorld: true}, catalog.WithDefaults(svc.Defaults, sim, h.install)),
			catalog.New("sim_launch_app", "Launch an installed app (args, env) and watch it briefly; a crash report makes the verdict a crash.",
				world, catalog.WithDefaults(svc.Defaults, sim, h.launch)),
			catalog.New("sim_stop_app", "Terminate a running app.",
				catalog.Annotations{Destructive: true, Idempotent: true, OpenWorld: true}, catalog.WithDefaults(svc.Defaults, sim, h.stop)),
			catalog.New("sim_build_run", "Build a scheme for a simulator, install and launch its app; verdict line first.",
				world, catalog.WithDefaults(svc.Defaults, buildRun, h.buildRun)).
				Help("timeout_s", fmt.Sprintf("default %g (the config's timeouts.run)", svc.Config.RunTimeout().Seconds())),
			catalog.New("sim_screenshot", "Take a PNG screenshot of a simulator's screen; returns the image and its path.",
				catalog.Annotations{ReadOnly: true, OpenWorld: true}, catalog.WithDefaults(svc.Defaults, sim, h.screenshot)),
			catalog.New("sim_log_capture", "Start or stop capturing an app's unified log (bounded) into the output store.",
				world, catalog.WithDefaults(svc.Defaults, sim, h.logCapture)),
		},
	}
}

type handler struct {
	svc  *services.Set
	opts apple.Options
}
