// Package xcode is the `xcode` workflow: find Xcode projects, list their
// schemes and build settings, and build, test and clean them with
// xcodebuild, with verdicts that never take a crashed test runner for a
// success. It is available on macOS with Xcode only; Options lets tests
// run it elsewhere against a fake xcodebuild.
package xcode

import (
	"fmt"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/workflow/apple"
)

// Workflow returns the xcode workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow { return WorkflowWith(svc, apple.Options{}) }

// WorkflowWith is Workflow with injected availability and report
// directories (tests).
func WorkflowWith(svc *services.Set, o apple.Options) *catalog.Workflow {
	h := &handler{svc: svc, opts: o}
	ro := catalog.Annotations{ReadOnly: true, Idempotent: true}
	world := catalog.Annotations{OpenWorld: true}
	container := defaults.Requirements{OneOf: [][]string{{"workspace_path", "project_path"}}}
	scheme := defaults.Requirements{AllOf: []string{"scheme"}, OneOf: container.OneOf}
	return &catalog.Workflow{
		ID:          "xcode",
		Title:       "Xcode projects",
		Description: "Build, test and clean Xcode workspaces and projects with xcodebuild (macOS).",
		Available:   o.AvailableFunc(),
		Tools: []*catalog.Tool{
			catalog.New("xcode_discover_projects", "Find .xcworkspace and .xcodeproj bundles under a directory (skips DerivedData, Pods, .build).",
				ro, catalog.WithDefaults(svc.Defaults, defaults.Requirements{}, h.discover)),
			catalog.New("xcode_list_schemes", "List the schemes (and, for a project, targets and configurations) of a workspace or project.",
				ro, catalog.WithDefaults(svc.Defaults, container, h.listSchemes)),
			catalog.New("xcode_show_build_settings", "Show a scheme's products (app path, bundle id) and chosen build settings.",
				ro, catalog.WithDefaults(svc.Defaults, scheme, h.showBuildSettings)).
				Unlisted("device", "device_id"),
			catalog.New("xcode_build", "Build a scheme with xcodebuild; errors with file:line (verdict line first), filtered log.",
				world, catalog.WithDefaults(svc.Defaults, scheme, h.build)).
				Unlisted("device", "device_id").
				Help("timeout_s", fmt.Sprintf("default %g (the config's timeouts.run)", svc.Config.RunTimeout().Seconds())),
			catalog.New("xcode_test", "Run a scheme's tests; failed and crashed tests from the result bundle and log, correlated crash reports (verdict line first).",
				world, catalog.WithDefaults(svc.Defaults, scheme, h.test)).
				Unlisted("device", "device_id").
				Help("timeout_s", fmt.Sprintf("default %g (the config's timeouts.run)", svc.Config.RunTimeout().Seconds())),
			catalog.New("xcode_clean", "Clean a scheme's build products (xcodebuild clean).",
				catalog.Annotations{Destructive: true, Idempotent: true}, catalog.WithDefaults(svc.Defaults, scheme, h.clean)).
				// platform picks the products to clean; a simulator or
				// device only narrows it to the same SDK, and clean's
				// short log needs no level or environment.
				Unlisted("", "simulator_id", "simulator_name", "device_id", "level", "env"),
		},
	}
}

type handler struct {
	svc  *services.Set
	opts apple.Options
}
