package apple

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

// How long a launch is watched by default, and the most a call may ask on
// a simulator and this Mac (a device's console may be captured longer).
const (
	LaunchWatch = 3 * time.Second
	MaxWatch    = time.Minute
)

// CheckLaunch checks what every launch is given: how long to watch it
// (watch_s, at most max) and the names of its environment.
func CheckLaunch(watchS duration.Seconds, max time.Duration, env map[string]string) (time.Duration, error) {
	watch, err := watchS.Duration("watch_s", LaunchWatch, max)
	if err != nil {
		return 0, err
	}
	return watch, xcode.CheckEnv(env)
}

// AppLaunchArgs are an installed app's launch by its bundle id
// (sim_launch_app, device_launch_app); how long it is watched is each
// platform's own argument.
type AppLaunchArgs struct {
	BundleID    string            `json:"bundle_id" jsonschema:"the app's bundle identifier"`
	Args        []string          `json:"args,omitempty" jsonschema:"launch arguments"`
	Env         map[string]string `json:"env,omitempty" jsonschema:"environment for the app"`
	ProcessName string            `json:"process_name,omitempty" jsonschema:"executable name (default: last bundle id component)"`
}

// Check checks the launch, watched for watchS (at most max), and returns
// the watch and the process name its crash reports carry (ProcessName,
// else the bundle id's last component).
func (a AppLaunchArgs) Check(watchS duration.Seconds, max time.Duration) (time.Duration, string, error) {
	if err := UsageOf(xcode.CheckBundleID(a.BundleID)); err != nil {
		return 0, "", err
	}
	watch, err := CheckLaunch(watchS, max, a.Env)
	return watch, cmp.Or(a.ProcessName, xcode.ProcessName(a.BundleID)), err
}

// RanOutcome is the outcome of a launch, or of a build and launch, by its
// status: an app that launched, or that ended without a crash report (a
// device's), is ok; anything else failed.
func RanOutcome(status string) catalog.Outcome {
	if status == "launched" || status == "exited" {
		return catalog.OK
	}
	return catalog.Failed
}

// LaunchResult is a launch's answer: the verdict line, the crash reports,
// more (the platform's own part: a console's excerpt) and, when the app
// launched, next (the call that goes on from there).
func LaunchResult[O any](out O, verdict, status string, reports []wire.AppCrashReport, more, next string) catalog.Result[O] {
	var b strings.Builder
	b.WriteString(verdict + "\n")
	WriteReports(&b, reports)
	b.WriteString(more)
	if status == "launched" && next != "" {
		b.WriteString(next + "\n")
	}
	return catalog.Result[O]{Text: b.String(), Output: out, Outcome: RanOutcome(status)}
}

// WriteReports lists crash reports with the head of each summary and the
// call that shows one whole.
func WriteReports(b *strings.Builder, reports []wire.AppCrashReport) {
	for _, r := range reports {
		fmt.Fprintf(b, "crash report (%s): %s\n", r.Role, r.Path)
		for i, l := range strings.Split(r.Summary, "\n") {
			if i == 12 {
				b.WriteString("    …\n")
				break
			}
			fmt.Fprintf(b, "    %s\n", l)
		}
		fmt.Fprintf(b, "  more: %s\n", catalog.NextCall("crash_report_show", map[string]any{"path": r.Path}))
	}
}
