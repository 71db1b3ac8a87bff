package xcode

import (
	"context"
	"strings"
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

// SimulatorFilter picks simulators: available ones (all with All), booted
// ones with BootedOnly, and those whose name contains Name, in any case.
type SimulatorFilter struct {
	Name            string
	BootedOnly, All bool
}

// Keep returns the devices f picks, in their order.
func (f SimulatorFilter) Keep(devs []Device) []Device {
	kept := []Device{}
	for _, d := range devs {
		if (d.Available || f.All) && (!f.BootedOnly || d.Booted()) &&
			strings.Contains(strings.ToLower(d.Name), strings.ToLower(f.Name)) {
			kept = append(kept, d)
		}
	}
	return kept
}
