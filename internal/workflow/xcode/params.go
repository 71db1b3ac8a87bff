package xcode

import (
	"context"

	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/xcode"
)

// DestinationArgs add to the scheme where it builds for; all
// session-managed. (Exported because embedded: see apple.)
type DestinationArgs struct {
	apple.SchemeArgs
	apple.SimulatorArgs
	apple.DeviceArgs
	Platform string `json:"platform,omitempty" jsonschema:"e.g. iOS Simulator, macOS"`
}

// ActionArgs are common to build, test and clean.
type ActionArgs struct {
	DestinationArgs
	Args     []string          `json:"args,omitempty" jsonschema:"extra xcodebuild arguments"`
	Level    string            `json:"level,omitempty" jsonschema:"minimal, standard or verbose"`
	Env      map[string]string `json:"env,omitempty" jsonschema:"xcodebuild environment overrides"`
	TimeoutS duration.Seconds  `json:"timeout_s,omitempty" jsonschema:"seconds (default: run timeout)"`
}

// request resolves the destination (xcode.Destination.Resolve) and
// returns the xcodebuild request.
func (p DestinationArgs) request(ctx context.Context) (xcode.Request, error) {
	d, err := xcode.Destination{Platform: p.Platform, SimulatorID: p.SimulatorID, SimulatorName: p.SimulatorName, DeviceID: p.DeviceID}.Resolve(ctx)
	r := xcode.Request{Workspace: p.WorkspacePath, Project: p.ProjectPath, Scheme: p.Scheme, Configuration: p.Configuration, Destination: d}
	return r, apple.UsageOf(err)
}
