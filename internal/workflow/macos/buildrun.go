package macos

import (
	"context"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

type buildRunParams struct {
	apple.BuildRunArgs
	BuildEnv map[string]string `json:"build_env,omitempty" jsonschema:"xcodebuild environment overrides"`
	LaunchArgs
}

// BuildRunOutput is the result of macos_build_run.
type BuildRunOutput = apple.BuildRunOutput[LaunchOutput]

// buildRun builds for this Mac and launches the app by its path
// (apple.BuildRun).
func (h *handler) buildRun(ctx context.Context, c *catalog.Call, in buildRunParams) (catalog.Result[BuildRunOutput], error) {
	return apple.BuildRun[LaunchOutput]{
		Args: in.BuildRunArgs, Env: in.BuildEnv, ReportDirs: h.opts.ReportDirs,
		Launcher: func(context.Context) (xcode.Launcher, error) { return in.LaunchArgs.request(h.opts.ReportDirs) },
		Launched: func(o xcode.LaunchOutcome, app xcode.Product) LaunchOutput {
			return LaunchOutput{Verdict: o.Line, Status: o.Status, App: app.Path, Process: xcode.AppProcess(app), CrashReports: wire.AppCrashReportsOf(o.CrashReports)}
		},
	}.Run(ctx, c, h.svc)
}
