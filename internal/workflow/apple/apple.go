// Package apple is what the Apple tools share: the xcode, simulator,
// device and macos workflows and debug_attach_sim. It holds their
// availability (macOS with Xcode, injectable for tests), the arguments that
// name a container, scheme, simulator and device, how their errors reach
// the caller, the one build-and-run call of the *_build_run tools
// (BuildRun) and what their launches share (checks, answer, outcome).
package apple

import (
	"context"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/xcode"
)

// Options configure the Apple tools. The zero value is right for
// production; tests inject availability and report directories.
type Options struct {
	// Available reports why the tools cannot run here; nil means
	// xcode.Available.
	Available func() error
	// ReportDirs replace the DiagnosticReports directories searched for
	// crash reports (coredump.Finder.ReportDirs); setting them also makes
	// the search work off macOS, for tests.
	ReportDirs []string
}

// AvailableFunc returns the availability check in effect.
func (o Options) AvailableFunc() func() error {
	if o.Available != nil {
		return o.Available
	}
	return xcode.Available
}

// The argument structs are exported because they are embedded:
// internal/defaults finds session-managed fields through embedded structs.
// Their fields carry no descriptions: the names say what they are, the
// server instructions say once that they are session defaults, and a
// description repeated on every Apple tool cost tools/list ~2.5 KB on macOS.

// ContainerArgs name a workspace or project; both are session-managed.
type ContainerArgs struct {
	WorkspacePath string `json:"workspace_path,omitempty"`
	ProjectPath   string `json:"project_path,omitempty"`
}

// SchemeArgs add the scheme and configuration; all session-managed.
type SchemeArgs struct {
	ContainerArgs
	Scheme        string `json:"scheme,omitempty"`
	Configuration string `json:"configuration,omitempty"`
}

// SimulatorArgs designate a simulator; both are session-managed.
type SimulatorArgs struct {
	SimulatorID   string `json:"simulator_id,omitempty"`
	SimulatorName string `json:"simulator_name,omitempty"`
}

// Resolve returns the simulator the arguments designate (xcode.FindSimulator).
func (a SimulatorArgs) Resolve(ctx context.Context) (xcode.Device, error) {
	d, err := xcode.FindSimulator(ctx, a.SimulatorID, a.SimulatorName, "")
	return d, UsageOf(err)
}

// DeviceArgs designate a physical device; session-managed.
type DeviceArgs struct {
	DeviceID string `json:"device_id,omitempty"`
}

// Resolve returns the device the arguments designate (xcode.FindDevice).
func (a DeviceArgs) Resolve(ctx context.Context) (xcode.PhysicalDevice, error) {
	d, err := xcode.FindDevice(ctx, a.DeviceID)
	return d, UsageOf(err)
}

// UsageOf marks the errors a caller fixes (xcode.CallerError) as usage
// errors, keeping their messages.
func UsageOf(err error) error {
	if xcode.CallerError(err) {
		return fault.Usage(err)
	}
	return err
}
