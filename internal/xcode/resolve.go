package xcode

import (
	"fmt"
	"sort"
	"strings"
)

// SimulatorQuery selects a simulator by name.
type SimulatorQuery struct {
	Name string
	// OS is a runtime version ("18.0", or "18" for any 18.x), "latest" for
	// the newest runtime that has the name, or "" for any.
	OS string
	// OSName narrows the runtime platform ("iOS", "watchOS", ...).
	OSName string
	// With several matches, PreferBooted picks the only booted one and
	// PreferNewest the only one on the newest runtime (booted first when
	// both are set). Without them, several matches are an error.
	PreferBooted, PreferNewest bool
}

func (q SimulatorQuery) String() string {
	s := fmt.Sprintf("%q", q.Name)
	if q.OSName != "" || q.OS != "" {
		s += " on " + strings.TrimSpace(q.OSName+" "+q.OS)
	}
	return s
}

// SimulatorNotFoundError reports a name that no available simulator has.
type SimulatorNotFoundError struct {
	Query SimulatorQuery
	// Candidates are the available simulators' names with their runtimes
	// ("iPhone 16 (iOS 18.0)"), sorted, bounded.
	Candidates []string
	// Unavailable are matching simulators simctl marks unavailable.
	Unavailable []Device
}

func (e *SimulatorNotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no available simulator named %s", e.Query)
	for _, d := range e.Unavailable {
		fmt.Fprintf(&b, "; %s", d)
	}
	if len(e.Candidates) == 0 {
		b.WriteString("; no simulator is available (create one with xcrun simctl create, or install a runtime in Xcode)")
	} else {
		fmt.Fprintf(&b, "; available: %s", strings.Join(e.Candidates, ", "))
	}
	return b.String()
}

// AmbiguousSimulatorError reports a name several simulators share.
type AmbiguousSimulatorError struct {
	Query   SimulatorQuery
	Matches []Device
}

func (e *AmbiguousSimulatorError) Error() string {
	list := make([]string, len(e.Matches))
	for i, d := range e.Matches {
		list[i] = d.String()
	}
	return fmt.Sprintf("%d simulators are named %s: %s; give simulator_id, or an OS version", len(e.Matches), e.Query, strings.Join(list, "; "))
}

// maxCandidates bounds the names listed by SimulatorNotFoundError.
const maxCandidates = 40

// ResolveSimulator finds the one available simulator the query designates.
// The name is matched exactly, or case-insensitively when nothing matches
// exactly. Errors are *SimulatorNotFoundError and *AmbiguousSimulatorError.
func ResolveSimulator(devices []Device, q SimulatorQuery) (Device, error) {
	if q.Name == "" {
		return Device{}, fmt.Errorf("resolving a simulator: no name given")
	}
	named := matchName(devices, q.Name)
	var matches, unavailable []Device
	for _, d := range named {
		if q.OSName != "" && !strings.EqualFold(d.OSName, q.OSName) {
			continue
		}
		if !d.Available {
			unavailable = append(unavailable, d)
			continue
		}
		matches = append(matches, d)
	}
	matches = filterOS(matches, q.OS)
	if len(matches) == 0 {
		return Device{}, &SimulatorNotFoundError{Query: q, Candidates: candidates(devices), Unavailable: unavailable}
	}
	if len(matches) > 1 && q.PreferBooted {
		if booted := filter(matches, Device.Booted); len(booted) > 0 {
			matches = booted
		}
	}
	if len(matches) > 1 && q.PreferNewest {
		matches = filterOS(matches, "latest")
	}
	if len(matches) > 1 {
		return Device{}, &AmbiguousSimulatorError{Query: q, Matches: matches}
	}
	return matches[0], nil
}

func matchName(devices []Device, name string) []Device {
	exact := filter(devices, func(d Device) bool { return d.Name == name })
	if len(exact) > 0 {
		return exact
	}
	return filter(devices, func(d Device) bool { return strings.EqualFold(d.Name, name) })
}

// filterOS keeps the devices on the given runtime version: "latest" keeps
// the newest version present, "18" matches 18.x.
func filterOS(devices []Device, os string) []Device {
	switch os {
	case "":
		return devices
	case "latest":
		newest := ""
		for _, d := range devices {
			if newest == "" || compareVersions(d.OSVersion, newest) > 0 {
				newest = d.OSVersion
			}
		}
		return filter(devices, func(d Device) bool { return d.OSVersion == newest })
	}
	return filter(devices, func(d Device) bool {
		return d.OSVersion == os || strings.HasPrefix(d.OSVersion, os+".") || compareVersions(d.OSVersion, os) == 0
	})
}

func filter(devices []Device, keep func(Device) bool) []Device {
	var out []Device
	for _, d := range devices {
		if keep(d) {
			out = append(out, d)
		}
	}
	return out
}

// candidates lists distinct "name (runtime)" of available simulators.
func candidates(devices []Device) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range devices {
		if !d.Available {
			continue
		}
		c := d.Name + " (" + d.RuntimeName() + ")"
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Strings(out)
	if len(out) > maxCandidates {
		out = append(out[:maxCandidates], fmt.Sprintf("and %d more", len(out)-maxCandidates))
	}
	return out
}
