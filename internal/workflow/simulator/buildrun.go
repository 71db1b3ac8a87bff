package simulator

import (
	"context"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/xcode"
)

type buildRunParams struct {
	apple.SimulatorArgs
	apple.BuildRunArgs
	apple.AppRunArgs
	WatchS duration.Seconds `json:"watch_s,omitempty" jsonschema:"seconds to watch for a crash (default 3, max 60)"`
}

// BuildRunOutput is the result of sim_build_run.
type BuildRunOutput = apple.BuildRunOutput[LaunchOutput]

// buildRun builds for the simulator, boots it, installs the app and
// launches it (apple.BuildRun).
func (h *handler) buildRun(ctx context.Context, c *catalog.Call, in buildRunParams) (catalog.Result[BuildRunOutput], error) {
	return apple.BuildRun[LaunchOutput]{
		Args: in.BuildRunArgs, Env: in.Env, ReportDirs: h.opts.ReportDirs,
		Launcher: func(ctx context.Context) (xcode.Launcher, error) {
			watch, err := in.WatchS.Duration("watch_s", apple.LaunchWatch, apple.MaxWatch)
			if err != nil {
				return nil, err
			}
			d, err := in.Resolve(ctx)
			return xcode.LaunchRequest{Device: d, Args: in.LaunchArgs, Env: in.LaunchEnv, Watch: watch, ReportDirs: h.opts.ReportDirs}, err
		},
		Launched: func(o xcode.LaunchOutcome, _ xcode.Product) LaunchOutput { return newLaunchOutput(o) },
	}.Run(ctx, c, h.svc)
}
