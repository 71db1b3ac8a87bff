package xcode

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Destination says where xcodebuild builds for or runs tests. At most one
// of SimulatorID, SimulatorName and DeviceID is set; with none, Platform
// alone names a generic destination (macOS is always concrete: this Mac).
type Destination struct {
	// Platform is one of Platforms (case and '-'/'_' are forgiven). It
	// defaults to "iOS Simulator" for a simulator.
	Platform      string `json:"platform,omitempty"`
	SimulatorID   string `json:"simulator_id,omitempty"`
	SimulatorName string `json:"simulator_name,omitempty"`
	// OS is the simulator runtime version with SimulatorName ("18.0"), or
	// "latest" (the default).
	OS       string `json:"os,omitempty"`
	DeviceID string `json:"device_id,omitempty"`
	// Arch selects the architecture on macOS ("arm64", "x86_64").
	Arch string `json:"arch,omitempty"`
}

// Platforms are the destination platforms xcodebuild knows.
var Platforms = []string{
	"macOS", "Mac Catalyst",
	"iOS", "iOS Simulator",
	"tvOS", "tvOS Simulator",
	"watchOS", "watchOS Simulator",
	"visionOS", "visionOS Simulator",
	"DriverKit",
}

const simulatorPlatform = "iOS Simulator"

// ErrDestination is wrapped by every error about a destination.
var ErrDestination = errors.New("invalid destination")

func destErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrDestination, fmt.Sprintf(format, args...))
}

// IsZero reports whether no destination is set (xcodebuild then chooses).
func (d Destination) IsZero() bool { return d == Destination{} }

// Generic reports whether the destination names a platform but no device
// to run on: enough to build, not to test.
func (d Destination) Generic() bool {
	if d.IsZero() || d.SimulatorID != "" || d.SimulatorName != "" || d.DeviceID != "" {
		return false
	}
	p, err := canonicalPlatform(d.Platform)
	return err == nil && p != "macOS" && p != "Mac Catalyst"
}

// Spec returns the -destination argument: "platform=iOS
// Simulator,id=UDID", "platform=iOS Simulator,name=iPhone 16,OS=latest",
// "platform=macOS,arch=arm64", "generic/platform=iOS", ... or "" for the
// zero Destination.
func (d Destination) Spec() (string, error) {
	if d.IsZero() {
		return "", nil
	}
	if err := d.check(); err != nil {
		return "", err
	}
	platform, err := canonicalPlatform(d.Platform)
	if err != nil {
		return "", err
	}
	switch {
	case d.SimulatorID != "":
		return "platform=" + orSimulator(platform) + ",id=" + d.SimulatorID, nil
	case d.SimulatorName != "":
		os := d.OS
		if os == "" {
			os = "latest"
		}
		return "platform=" + orSimulator(platform) + ",name=" + d.SimulatorName + ",OS=" + os, nil
	case d.DeviceID != "":
		if platform == "" {
			return "id=" + d.DeviceID, nil
		}
		return "platform=" + platform + ",id=" + d.DeviceID, nil
	case platform == "macOS":
		if d.Arch != "" {
			return "platform=macOS,arch=" + d.Arch, nil
		}
		return "platform=macOS", nil
	case platform == "Mac Catalyst":
		return "platform=macOS,variant=Mac Catalyst", nil
	}
	return "generic/platform=" + platform, nil
}

func orSimulator(platform string) string {
	if platform == "" {
		return simulatorPlatform
	}
	return platform
}

// check enforces the exclusive fields and refuses values the
// comma-separated key=value syntax cannot carry.
func (d Destination) check() error {
	n := 0
	for _, v := range []string{d.SimulatorID, d.SimulatorName, d.DeviceID} {
		if v != "" {
			n++
		}
	}
	if n > 1 {
		return destErrorf("give one of simulator_id, simulator_name and device_id")
	}
	if d.OS != "" && d.SimulatorName == "" {
		return destErrorf("os applies only with simulator_name")
	}
	if d.Arch != "" && !strings.EqualFold(d.Platform, "macOS") {
		return destErrorf("arch applies only to the macOS platform")
	}
	for _, f := range []struct{ name, v string }{
		{"platform", d.Platform}, {"simulator_id", d.SimulatorID}, {"simulator_name", d.SimulatorName},
		{"os", d.OS}, {"device_id", d.DeviceID}, {"arch", d.Arch},
	} {
		if strings.ContainsAny(f.v, ",=\n\x00") {
			return destErrorf("%s %q contains a character a destination cannot carry (',', '=', newline)", f.name, f.v)
		}
		if f.v != "" && strings.TrimSpace(f.v) != f.v {
			return destErrorf("%s %q has surrounding spaces", f.name, f.v)
		}
	}
	return nil
}

// canonicalPlatform returns the Platforms spelling of p, or "" for "".
func canonicalPlatform(p string) (string, error) {
	if p == "" {
		return "", nil
	}
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("-", " ", "_", " ").Replace(s))
	}
	for _, known := range Platforms {
		if norm(p) == norm(known) {
			return known, nil
		}
	}
	return "", destErrorf("unknown platform %q: known platforms are %s", p, strings.Join(Platforms, ", "))
}

// Resolve names d's simulator and device by their UDIDs, so that a name
// matching none or several is explained before xcodebuild runs, and checks
// the destination.
func (d Destination) Resolve(ctx context.Context) (Destination, error) {
	if d.SimulatorName != "" {
		s, err := FindSimulator(ctx, "", d.SimulatorName, "")
		if err != nil {
			return d, err
		}
		d.SimulatorID, d.SimulatorName = s.UDID, ""
	}
	if d.DeviceID != "" {
		p, err := FindDevice(ctx, d.DeviceID)
		if err != nil {
			return d, err
		}
		d.DeviceID = p.ID()
	}
	_, err := d.Spec()
	return d, err
}
