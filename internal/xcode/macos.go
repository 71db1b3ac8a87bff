// macOS apps: launched through LaunchServices (`open`), watched for a
// crash like a simulator's app (ReportCrash writes its report in
// ~/Library/Logs/DiagnosticReports, which Correlate searches), stopped by
// process name, and built and launched in one call.

package xcode

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/fault"
)

// MacLaunchRequest is a macOS app to launch, by path or by bundle id, and
// watch.
type MacLaunchRequest struct {
	App      string // an .app bundle's path, or
	BundleID string
	Args     []string
	Env      map[string]string
	// Process is the app's process name, which its crash reports carry
	// (default: the bundle's name, else the bundle id's last component).
	Process string
	Watch   time.Duration
	// ReportDirs are where crash reports are looked for (see Correlate).
	ReportDirs []string
	Notify     func(string)
}

// MacLaunchCommand is `open -n -a APP` (or `-b BUNDLEID`) with the
// environment (--env NAME=value) and arguments (--args ...): a new
// instance, through LaunchServices as a user's double-click would.
func MacLaunchCommand(req MacLaunchRequest) Command {
	argv := []string{"open", "-n"}
	if req.App != "" {
		argv = append(argv, "-a", req.App)
	} else {
		argv = append(argv, "-b", req.BundleID)
	}
	for _, k := range slices.Sorted(maps.Keys(req.Env)) {
		argv = append(argv, "--env", k+"="+req.Env[k])
	}
	if len(req.Args) > 0 {
		argv = append(append(argv, "--args"), req.Args...)
	}
	return Command{Argv: argv}
}

// MacProcess is the process name of the app a request launches.
func (req MacLaunchRequest) MacProcess() string {
	switch {
	case req.Process != "":
		return req.Process
	case req.App != "":
		return strings.TrimSuffix(filepath.Base(strings.TrimRight(req.App, "/")), ".app")
	}
	return ProcessName(req.BundleID)
}

// LaunchMac launches the app and watches it for req.Watch: a crash report
// the app writes in that time makes the outcome a crash.
func LaunchMac(ctx context.Context, req MacLaunchRequest) LaunchOutcome {
	what := req.App
	if what == "" {
		what = req.BundleID
	}
	o := LaunchOutcome{BundleID: req.BundleID}
	start := time.Now()
	apps := []string{req.MacProcess()}
	if _, err := Run(ctx, MacLaunchCommand(req), 0); err != nil {
		o.Status = "failed"
		o.Line = fmt.Sprintf("LAUNCH FAILED: %s: %v", what, err)
		return o
	}
	notify(req.Notify, fmt.Sprintf("launched %s; watching for %s", what, req.Watch))
	o.CrashReports = watch(ctx, req.Watch, req.ReportDirs, start, apps)
	for _, r := range o.CrashReports {
		if r.Role == "app" {
			o.Status = "crashed"
			o.Line = fmt.Sprintf("CRASHED: %s %s within %s of launch (crash report)", r.Process, r.Exception, req.Watch)
			return o
		}
	}
	o.Status = "launched"
	o.Line = fmt.Sprintf("LAUNCHED %s (process %s); no crash within %s", what, apps[0], req.Watch)
	return o
}

// MacAppNotRunningError reports a macOS app to stop that is not running.
type MacAppNotRunningError struct{ Process string }

func (e *MacAppNotRunningError) Error() string {
	return fmt.Sprintf("no process named %s is running (give process_name if the executable's name differs)", e.Process)
}

// StopMac sends SIGTERM to this user's processes named process (pkill -x);
// none running is a *MacAppNotRunningError, a name that is not an
// executable's a usage error.
func StopMac(ctx context.Context, process string) error {
	if process == "" || strings.ContainsAny(process, "/\x00") || strings.HasPrefix(process, "-") {
		return fault.Usagef("process_name %q: give the app's executable name", process)
	}
	_, err := Run(ctx, Command{Argv: []string{"pkill", "-TERM", "-x", process}}, 0)
	var ce *CommandError
	if errors.As(err, &ce) && ce.Result.ExitCode == 1 { // pkill: no process matched
		return &MacAppNotRunningError{Process: process}
	}
	return err
}
