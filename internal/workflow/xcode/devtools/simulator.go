package devtools

import (
	"context"

	"github.com/triage-dev/triage/internal/xcode"
)

// Devices lists the simulators (`xcrun simctl list devices -j`).
func Devices(ctx context.Context) ([]xcode.Device, error) {
	out, err := Run(ctx, xcode.ListDevicesCommand(), 0)
	if err != nil {
		return nil, err
	}
	return xcode.ParseDevices(out)
}

// ResolveSimulator returns the simulator an id or a name designates. An id
// is taken as given without listing devices; a name is looked up among the
// available simulators (a booted one wins among several of that name), and
// a name that matches none or several is an *xcode.SimulatorNotFoundError
// or *xcode.AmbiguousSimulatorError listing the candidates.
func ResolveSimulator(ctx context.Context, id, name, osVersion string) (xcode.Device, error) {
	if id != "" {
		if err := CheckUDID(id); err != nil {
			return xcode.Device{}, err
		}
		return xcode.Device{UDID: id}, nil
	}
	devs, err := Devices(ctx)
	if err != nil {
		return xcode.Device{}, err
	}
	return xcode.ResolveSimulator(devs, xcode.SimulatorQuery{Name: name, OS: osVersion, PreferBooted: true})
}
