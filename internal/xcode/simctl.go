package xcode

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ListDevicesCommand returns `xcrun simctl list devices -j`.
func ListDevicesCommand() Command {
	return Command{Argv: []string{"xcrun", "simctl", "list", "devices", "-j"}}
}

// ListRuntimesCommand returns `xcrun simctl list runtimes -j`.
func ListRuntimesCommand() Command {
	return Command{Argv: []string{"xcrun", "simctl", "list", "runtimes", "-j"}}
}

// Simulator states as simctl prints them.
const (
	StateBooted   = "Booted"
	StateShutdown = "Shutdown"
)

// Device is a simulator.
type Device struct {
	UDID              string `json:"udid"`
	Name              string `json:"name"`
	State             string `json:"state"`
	Available         bool   `json:"available"`
	AvailabilityError string `json:"availability_error,omitempty"`
	DeviceType        string `json:"device_type,omitempty"` // com.apple.CoreSimulator.SimDeviceType.iPhone-16
	Runtime           string `json:"runtime"`               // the runtime identifier simctl keys it by
	OSName            string `json:"os_name"`               // "iOS", "watchOS", "xrOS", ...
	OSVersion         string `json:"os_version"`            // "18.0"
	DataPath          string `json:"data_path,omitempty"`
	LogPath           string `json:"log_path,omitempty"`
}

// Booted reports whether the simulator is running.
func (d Device) Booted() bool { return d.State == StateBooted }

// RuntimeName is "iOS 18.0", or the runtime identifier when it could not
// be read.
func (d Device) RuntimeName() string {
	if d.OSName == "" {
		return d.Runtime
	}
	return d.OSName + " " + d.OSVersion
}

func (d Device) String() string {
	s := fmt.Sprintf("%s (%s, %s, %s)", d.Name, d.RuntimeName(), d.UDID, d.State)
	if !d.Available {
		s += " unavailable"
		if d.AvailabilityError != "" {
			s += ": " + d.AvailabilityError
		}
	}
	return s
}

// simDevice is a device as simctl prints it. Before Xcode 10.1 availability
// was a string ("(available)", "(unavailable, runtime profile not found)").
type simDevice struct {
	UDID              string `json:"udid"`
	Name              string `json:"name"`
	State             string `json:"state"`
	IsAvailable       *bool  `json:"isAvailable"`
	Availability      string `json:"availability"`
	AvailabilityError string `json:"availabilityError"`
	DeviceType        string `json:"deviceTypeIdentifier"`
	DataPath          string `json:"dataPath"`
	LogPath           string `json:"logPath"`
}

func (s simDevice) available() bool {
	if s.IsAvailable != nil {
		return *s.IsAvailable
	}
	return s.Availability == "(available)"
}

// ParseDevices parses `xcrun simctl list devices -j` (or `simctl list -j`,
// whose "devices" key is the same). Devices come sorted by runtime (newest
// first), then name.
func ParseDevices(out []byte) ([]Device, error) {
	var doc struct {
		Devices map[string][]simDevice `json:"devices"`
	}
	if err := decodeJSON("simctl device list", out, '{', &doc); err != nil {
		return nil, err
	}
	if doc.Devices == nil {
		return nil, fmt.Errorf("parsing simctl device list: no \"devices\" object")
	}
	var devs []Device
	for runtime, list := range doc.Devices {
		osName, osVersion := parseRuntimeKey(runtime)
		for i, s := range list {
			if s.UDID == "" || s.Name == "" {
				return nil, fmt.Errorf("parsing simctl device list: device %d of %s has no udid or name", i, runtime)
			}
			devs = append(devs, Device{
				UDID: s.UDID, Name: s.Name, State: s.State,
				Available: s.available(), AvailabilityError: s.AvailabilityError,
				DeviceType: s.DeviceType, Runtime: runtime, OSName: osName, OSVersion: osVersion,
				DataPath: s.DataPath, LogPath: s.LogPath,
			})
		}
	}
	sort.SliceStable(devs, func(i, j int) bool {
		a, b := devs[i], devs[j]
		if a.OSName != b.OSName {
			return a.OSName < b.OSName
		}
		if c := compareVersions(a.OSVersion, b.OSVersion); c != 0 {
			return c > 0
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.UDID < b.UDID
	})
	return devs, nil
}

// runtimePrefix starts the runtime identifiers simctl keys devices by.
const runtimePrefix = "com.apple.CoreSimulator.SimRuntime."

// parseRuntimeKey reads "com.apple.CoreSimulator.SimRuntime.iOS-18-0" or,
// before Xcode 10.1, "iOS 12.1", as ("iOS", "18.0"). Unknown forms give
// ("", "").
func parseRuntimeKey(key string) (osName, version string) {
	if rest, ok := strings.CutPrefix(key, runtimePrefix); ok {
		name, ver, ok := strings.Cut(rest, "-")
		if !ok || !isVersion(strings.ReplaceAll(ver, "-", ".")) {
			return "", ""
		}
		return name, strings.ReplaceAll(ver, "-", ".")
	}
	if name, ver, ok := strings.Cut(key, " "); ok && isVersion(ver) {
		return name, ver
	}
	return "", ""
}

func isVersion(v string) bool {
	if v == "" {
		return false
	}
	for _, p := range strings.Split(v, ".") {
		if _, err := strconv.Atoi(p); err != nil {
			return false
		}
	}
	return true
}

// compareVersions compares dotted versions numerically ("18.10" > "18.2");
// a missing component is 0, and a non-number sorts first.
func compareVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(as), len(bs)) {
		x, y := versionPart(as, i), versionPart(bs, i)
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func versionPart(parts []string, i int) int {
	if i >= len(parts) {
		return 0
	}
	n, err := strconv.Atoi(parts[i])
	if err != nil {
		return -1
	}
	return n
}

// Runtime is an installed simulator runtime.
type Runtime struct {
	Identifier   string `json:"identifier"`
	Name         string `json:"name"` // "iOS 18.0"
	Platform     string `json:"platform,omitempty"`
	Version      string `json:"version"`
	BuildVersion string `json:"build_version,omitempty"`
	Available    bool   `json:"available"`
}

// ParseRuntimes parses `xcrun simctl list runtimes -j`, newest first within
// each platform.
func ParseRuntimes(out []byte) ([]Runtime, error) {
	var doc struct {
		Runtimes *[]struct {
			Identifier   string `json:"identifier"`
			Name         string `json:"name"`
			Platform     string `json:"platform"`
			Version      string `json:"version"`
			BuildVersion string `json:"buildversion"`
			IsAvailable  *bool  `json:"isAvailable"`
			Availability string `json:"availability"`
		} `json:"runtimes"`
	}
	if err := decodeJSON("simctl runtime list", out, '{', &doc); err != nil {
		return nil, err
	}
	if doc.Runtimes == nil {
		return nil, fmt.Errorf("parsing simctl runtime list: no \"runtimes\" array")
	}
	rts := make([]Runtime, 0, len(*doc.Runtimes))
	for i, r := range *doc.Runtimes {
		if r.Identifier == "" {
			return nil, fmt.Errorf("parsing simctl runtime list: runtime %d has no identifier", i)
		}
		avail := r.Availability == "(available)"
		if r.IsAvailable != nil {
			avail = *r.IsAvailable
		}
		rts = append(rts, Runtime{Identifier: r.Identifier, Name: r.Name, Platform: r.Platform, Version: r.Version, BuildVersion: r.BuildVersion, Available: avail})
	}
	sort.SliceStable(rts, func(i, j int) bool {
		if rts[i].Platform != rts[j].Platform {
			return rts[i].Platform < rts[j].Platform
		}
		return compareVersions(rts[i].Version, rts[j].Version) > 0
	})
	return rts, nil
}
