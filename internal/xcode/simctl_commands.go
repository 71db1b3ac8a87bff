package xcode

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// simctl argv builders beyond the listings of simctl.go.
// Values travel as single argv elements; the checks refuse those simctl
// would read as options or that cannot name what they claim to.

// bundleIDRE is a bundle identifier (reverse DNS: letters, digits, '-',
// '.'); it is also interpolated into a log predicate, so nothing else may
// pass.
var bundleIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9.-]*$`) })

// udidRE is a simulator UDID, or "booted".
var udidRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|booted)$`)
})

// CheckBundleID refuses what is not a bundle identifier.
func CheckBundleID(id string) error {
	if !bundleIDRE().MatchString(id) {
		return &RequestError{Field: "bundle_id", Reason: fmt.Sprintf("%q is not a bundle identifier (reverse DNS, e.g. com.example.App)", id)}
	}
	return nil
}

// CheckUDID refuses what is not a simulator UDID.
func CheckUDID(id string) error {
	if !udidRE().MatchString(id) {
		return &RequestError{Field: "simulator_id", Reason: fmt.Sprintf("%q is not a simulator UDID (sim_list lists them)", id)}
	}
	return nil
}

func simctl(args ...string) Command {
	return Command{Argv: append([]string{"xcrun", "simctl"}, args...)}
}

// BootCommand boots a simulator; BootStatusCommand waits until it has
// finished booting (-b boots it too if needed).
func BootCommand(udid string) Command       { return simctl("boot", udid) }
func BootStatusCommand(udid string) Command { return simctl("bootstatus", udid, "-b") }

// InstallCommand installs an .app bundle.
func InstallCommand(udid, app string) Command { return simctl("install", udid, app) }

// LaunchCommand launches an installed app, ending a running instance
// first; env is passed to the app (simctl forwards SIMCTL_CHILD_ variables
// with the prefix removed).
func LaunchCommand(udid, bundleID string, args []string, env map[string]string) Command {
	c := simctl(append([]string{"launch", "--terminate-running-process", udid, bundleID}, args...)...)
	if len(env) > 0 {
		c.Env = make(map[string]string, len(env))
		for k, v := range env {
			c.Env["SIMCTL_CHILD_"+k] = v
		}
	}
	return c
}

// TerminateCommand stops a running app.
func TerminateCommand(udid, bundleID string) Command {
	return simctl("terminate", udid, bundleID)
}

// ScreenshotCommand writes a PNG screenshot of the simulator's screen.
func ScreenshotCommand(udid, path string) Command {
	return simctl("io", udid, "screenshot", "--type=png", path)
}

// LogStreamCommand streams the simulator's unified log for an app: its
// subsystem or its process, in the compact style.
func LogStreamCommand(udid, bundleID, process string) Command {
	pred := fmt.Sprintf("subsystem == %q", bundleID)
	if process != "" {
		pred += fmt.Sprintf(" OR process == %q", process)
	}
	return simctl("spawn", udid, "log", "stream", "--style", "compact", "--level", "debug", "--predicate", pred)
}

// ParseLaunch reads the pid from `simctl launch` output ("com.example.App: 1234").
func ParseLaunch(out []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		_, pid, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(pid)); err == nil && n > 0 {
			return n, nil
		}
	}
	return 0, fmt.Errorf("parsing simctl launch output: no pid in %q", head(out))
}

// ProcessName guesses an app's process name from its bundle identifier:
// the last component (com.example.App runs as App), which Xcode's
// templates keep equal to the executable name.
func ProcessName(bundleID string) string {
	if i := strings.LastIndexByte(bundleID, '.'); i >= 0 {
		return bundleID[i+1:]
	}
	return bundleID
}
