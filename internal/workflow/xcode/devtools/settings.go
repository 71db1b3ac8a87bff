package devtools

import (
	"context"
	"fmt"

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

// CheckScheme lists the container's schemes (`xcodebuild -list -json`) and
// returns an *xcode.SchemeError naming them when scheme is not one.
func CheckScheme(ctx context.Context, workspace, project, scheme string) error {
	cmd, err := xcode.ListCommand(workspace, project)
	if err != nil {
		return err
	}
	out, err := Run(ctx, cmd, 0)
	if err != nil {
		return fmt.Errorf("listing schemes: %w", err)
	}
	l, err := xcode.ParseList(out)
	if err != nil {
		return err
	}
	return l.CheckScheme(scheme)
}
