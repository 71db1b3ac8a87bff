package device

import (
	"context"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/xcode"
)

type buildRunParams struct {
	apple.DeviceArgs
	apple.BuildRunArgs
	apple.AppRunArgs
	WatchS duration.Seconds `json:"watch_s,omitempty" jsonschema:"seconds to watch before fetching crash reports (default 3, max 600)"`
}

// BuildRunOutput is the result of device_build_run.
type BuildRunOutput = apple.BuildRunOutput[LaunchOutput]

// buildRun builds for the device, installs the app there and launches it
// (apple.BuildRun).
func (h *handler) buildRun(ctx context.Context, c *catalog.Call, in buildRunParams) (catalog.Result[BuildRunOutput], error) {
	return apple.BuildRun[LaunchOutput]{
		Args: in.BuildRunArgs, Env: in.Env,
		Launcher: func(ctx context.Context) (xcode.Launcher, error) {
			watch, err := in.WatchS.Duration("watch_s", apple.LaunchWatch, maxWatch)
			if err != nil {
				return nil, err
			}
			d, err := in.Resolve(ctx)
			return xcode.DeviceLaunchRequest{Device: d, Args: in.LaunchArgs, Env: in.LaunchEnv, Watch: watch, ReportDir: h.reportDir()}, err
		},
		Launched: func(o xcode.LaunchOutcome, _ xcode.Product) LaunchOutput { return newLaunchOutput(o) },
	}.Run(ctx, c, h.svc)
}
