package devtools

import (
	"context"

	"github.com/triage-dev/triage/internal/xcode"
)

// BuildSettings runs `xcodebuild -showBuildSettings -json` for r.
func BuildSettings(ctx context.Context, r xcode.Request) ([]xcode.TargetSettings, error) {
	cmd, err := xcode.ShowBuildSettingsCommand(r)
	if err != nil {
		return nil, err
	}
	out, err := Run(ctx, cmd, 0)
	if err != nil {
		return nil, err
	}
	return xcode.ParseBuildSettings(out)
}
