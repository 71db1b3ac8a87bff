// Package macos is the `macos` workflow: launch a macOS app (by path or
// bundle id) and watch it for a crash, whose report the existing
// correlation finds in ~/Library/Logs/DiagnosticReports; stop it; build a
// scheme for this Mac and launch its app in one call. Building and testing
// alone are xcode_build and xcode_test with platform macOS; an app's path
// and bundle id are xcode_show_build_settings'. It is opt-in (`workflows:`
// in the config) and available on macOS with Xcode only; apple.Options
// lets tests run it elsewhere against fake tools.
package macos

import (
	"fmt"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/workflow/apple"
)

// Workflow returns the macos workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow { return WorkflowWith(svc, apple.Options{}) }

// WorkflowWith is Workflow with injected availability and report
// directories (tests).
func WorkflowWith(svc *services.Set, o apple.Options) *catalog.Workflow {
	h := &handler{svc: svc, opts: o}
	buildRun := defaults.Requirements{AllOf: []string{"scheme"}, OneOf: [][]string{{"workspace_path", "project_path"}}}
	return &catalog.Workflow{
		ID:          "macos",
		Title:       "macOS apps",
		Description: "Launch, stop, build and run macOS apps with crash verdicts (macOS, opt-in).",
		OptIn:       true,
		Available:   o.AvailableFunc(),
		Tools: []*catalog.Tool{
			catalog.New("macos_launch_app", "Launch a macOS app (app_path or bundle_id; args, env) and watch it; a crash report makes the verdict a crash.",
				catalog.Annotations{OpenWorld: true}, h.launch),
			catalog.New("macos_stop_app", "Terminate a macOS app by process name (SIGTERM).",
				catalog.Annotations{Destructive: true, Idempotent: true, OpenWorld: true}, h.stop),
			catalog.New("macos_build_run", "Build a scheme for this Mac and launch its app; verdict line first.",
				catalog.Annotations{OpenWorld: true}, catalog.WithDefaults(svc.Defaults, buildRun, h.buildRun)).
				Help("timeout_s", fmt.Sprintf("default %g (the config's timeouts.run)", svc.Config.RunTimeout().Seconds())),
		},
	}
}

type handler struct {
	svc  *services.Set
	opts apple.Options
}
