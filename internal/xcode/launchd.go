package xcode

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// An app running in a simulator is a launchd job of the simulator's own
// launchd_sim, labelled "UIKitApplication:<bundle id>[<hex>][rb-legacy]";
// `xcrun simctl spawn <udid> launchctl list` lists the jobs as
// "PID\tStatus\tLabel" lines, with "-" for the pid of a job not running.

// LaunchdJob is one line of `launchctl list`.
type LaunchdJob struct {
	Pid    int // 0: not running
	Status string
	Label  string
}

// appLabelPrefix starts the label of an app's launchd job.
const appLabelPrefix = "UIKitApplication:"

// BundleID returns the bundle identifier of an app's job, or "".
func (j LaunchdJob) BundleID() string {
	rest, ok := strings.CutPrefix(j.Label, appLabelPrefix)
	if !ok {
		return ""
	}
	id, _, _ := strings.Cut(rest, "[")
	return id
}

// LaunchctlListCommand lists the launchd jobs of a booted simulator.
func LaunchctlListCommand(udid string) Command {
	return simctl("spawn", udid, "launchctl", "list")
}

// LaunchForDebuggerCommand launches an installed app suspended until a
// debugger attaches, ending a running instance first.
func LaunchForDebuggerCommand(udid, bundleID string) Command {
	return simctl("launch", "--wait-for-debugger", "--terminate-running-process", udid, bundleID)
}

// FindToolCommand asks xcrun for the path of a developer tool in the
// selected Xcode (lldb-dap, lldb).
func FindToolCommand(name string) Command {
	return Command{Argv: []string{"xcrun", "--find", name}}
}

// ParseLaunchctlList reads `launchctl list` output. The header and lines
// that are not "PID Status Label" are skipped.
func ParseLaunchctlList(out []byte) ([]LaunchdJob, error) {
	var jobs []LaunchdJob
	for line := range strings.SplitSeq(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] == "PID" {
			continue
		}
		j := LaunchdJob{Status: f[1], Label: f[2]}
		if f[0] != "-" {
			pid, err := strconv.Atoi(f[0])
			if err != nil || pid <= 0 {
				continue
			}
			j.Pid = pid
		}
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("parsing launchctl list: no jobs in %q", head(out))
	}
	return jobs, nil
}

// AppNotRunningError reports a bundle identifier with no running app job.
type AppNotRunningError struct {
	BundleID string
	// Running are the bundle identifiers of the running apps, sorted.
	Running []string
}

func (e *AppNotRunningError) Error() string {
	running := "no app is running"
	if len(e.Running) > 0 {
		running = "running apps: " + strings.Join(e.Running, ", ")
	}
	return fmt.Sprintf("app %s is not running in the simulator (%s); launch it with launch: true", e.BundleID, running)
}

// AppPid returns the pid of the running app with the bundle identifier,
// or an *AppNotRunningError listing the running apps.
func AppPid(jobs []LaunchdJob, bundleID string) (int, error) {
	var running []string
	for _, j := range jobs {
		id := j.BundleID()
		if id == "" || j.Pid == 0 {
			continue
		}
		if id == bundleID {
			return j.Pid, nil
		}
		running = append(running, id)
	}
	slices.Sort(running)
	return 0, &AppNotRunningError{BundleID: bundleID, Running: slices.Compact(running)}
}

// SimulatorNotBootedError reports a simulator that must be booted first.
type SimulatorNotBootedError struct{ Device Device }

func (e *SimulatorNotBootedError) Error() string {
	return fmt.Sprintf("simulator %s is not booted: boot it with sim_boot, then launch the app", e.Device)
}

// BootedSimulator returns the booted simulator an id or a name designates
// (listing the simulators either way, to know its state): a
// *SimulatorNotBootedError when it is not booted, and FindSimulator's
// errors for a name that matches none or several.
func BootedSimulator(ctx context.Context, id, name string) (Device, error) {
	if id != "" {
		if err := CheckUDID(id); err != nil {
			return Device{}, err
		}
	}
	devs, err := Devices(ctx)
	if err != nil {
		return Device{}, err
	}
	var d Device
	switch {
	case id == "booted":
		booted := filter(devs, Device.Booted)
		if len(booted) != 1 {
			return Device{}, &RequestError{Field: "simulator_id", Reason: fmt.Sprintf("\"booted\" designates one booted simulator; %d are booted", len(booted))}
		}
		d = booted[0]
	case id != "":
		i := slices.IndexFunc(devs, func(d Device) bool { return strings.EqualFold(d.UDID, id) })
		if i < 0 {
			return Device{}, &RequestError{Field: "simulator_id", Reason: fmt.Sprintf("no simulator has UDID %s (sim_list lists them)", id)}
		}
		d = devs[i]
	default:
		if d, err = ResolveSimulator(devs, SimulatorQuery{Name: name, PreferBooted: true}); err != nil {
			return Device{}, err
		}
	}
	if !d.Booted() {
		return Device{}, &SimulatorNotBootedError{Device: d}
	}
	return d, nil
}

// RunningAppPid returns the pid of the app with the bundle identifier
// running in a booted simulator.
func RunningAppPid(ctx context.Context, udid, bundleID string) (int, error) {
	out, err := Run(ctx, LaunchctlListCommand(udid), 0)
	if err != nil {
		return 0, fmt.Errorf("listing the simulator's processes: %w", err)
	}
	jobs, err := ParseLaunchctlList(out)
	if err != nil {
		return 0, err
	}
	return AppPid(jobs, bundleID)
}

// LaunchForDebugger launches an app suspended until a debugger attaches
// and returns its pid.
func LaunchForDebugger(ctx context.Context, udid, bundleID string) (int, error) {
	out, err := Run(ctx, LaunchForDebuggerCommand(udid, bundleID), 0)
	if err != nil {
		return 0, err
	}
	return ParseLaunch(out)
}

// FindTool returns the path xcrun gives for a developer tool.
func FindTool(ctx context.Context, name string) (string, error) {
	out, err := Run(ctx, FindToolCommand(name), 0)
	if err != nil {
		return "", fmt.Errorf("finding %s: %w", name, err)
	}
	p := strings.TrimSpace(string(out))
	if p == "" || strings.ContainsRune(p, '\n') {
		return "", fmt.Errorf("finding %s: xcrun --find printed %q", name, head(out))
	}
	return p, nil
}
