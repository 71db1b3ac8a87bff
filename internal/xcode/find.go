package xcode

import (
	"context"
)

// Devices lists the simulators (`xcrun simctl list devices -j`).
func Devices(ctx context.Context) ([]Device, error) {
	out, err := Run(ctx, ListDevicesCommand(), 0)
	if err != nil {
		return nil, err
	}
	return ParseDevices(out)
}

// FindSimulator returns the simulator an id or a name designates. An id
// is taken as given without listing devices; a name is looked up among the
// available simulators (a booted one wins among several of that name), and
// a name that matches none or several is an *SimulatorNotFoundError
// or *AmbiguousSimulatorError listing the candidates.
func FindSimulator(ctx context.Context, id, name, osVersion string) (Device, error) {
	if id != "" {
		if err := CheckUDID(id); err != nil {
			return Device{}, err
		}
		return Device{UDID: id}, nil
	}
	devs, err := Devices(ctx)
	if err != nil {
		return Device{}, err
	}
	return ResolveSimulator(devs, SimulatorQuery{Name: name, OS: osVersion, PreferBooted: true})
}
