package xcode

import (
	"context"
	"fmt"
)

// BuildSettings runs `xcodebuild -showBuildSettings -json` for r.
func BuildSettings(ctx context.Context, r Request) ([]TargetSettings, error) {
	cmd, err := ShowBuildSettingsCommand(r)
	if err != nil {
		return nil, err
	}
	out, err := Run(ctx, cmd, 0)
	if err != nil {
		return nil, err
	}
	return ParseBuildSettings(out)
}

// CheckScheme lists the container's schemes (`xcodebuild -list -json`) and
// returns an *SchemeError naming them when scheme is not one.
func CheckScheme(ctx context.Context, workspace, project, scheme string) error {
	cmd, err := ListCommand(workspace, project)
	if err != nil {
		return err
	}
	out, err := Run(ctx, cmd, 0)
	if err != nil {
		return fmt.Errorf("listing schemes: %w", err)
	}
	l, err := ParseList(out)
	if err != nil {
		return err
	}
	return l.CheckScheme(scheme)
}
