package device

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

// ListOutput lists the devices devicectl knows.
type ListOutput struct {
	Devices []wire.PhysicalDevice `json:"devices" jsonschema:"physical devices, paired or not"`
}

func (h *handler) list(ctx context.Context, c *catalog.Call, in struct{}) (catalog.Result[ListOutput], error) {
	devs, err := xcode.ListDevices(ctx)
	if err != nil {
		return catalog.Result[ListOutput]{}, apple.UsageOf(err)
	}
	connected := 0
	var b strings.Builder
	for _, d := range devs {
		if d.Tunnel == "connected" {
			connected++
		}
	}
	fmt.Fprintf(&b, "%d DEVICES (%d connected)\n", len(devs), connected)
	for _, d := range devs {
		fmt.Fprintf(&b, "  %s: %s, %s, %s, tunnel %s, developer mode %s\n", d.Label(), orUnknown(d.Model), orUnknown(d.Transport), orUnknown(d.Pairing), orUnknown(d.Tunnel), orUnknown(d.DeveloperMode))
	}
	if len(devs) == 0 {
		b.WriteString("connect a device by cable, unlock it and trust this Mac (or pair it in Xcode's Devices window)\n")
	}
	return catalog.Result[ListOutput]{Text: b.String(), Output: ListOutput{Devices: append([]wire.PhysicalDevice{}, wire.PhysicalDevicesOf(devs)...)}}, nil
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// Output is the answer of the tools that act on one device.
type Output struct {
	Verdict  string `json:"verdict" jsonschema:"the verdict line"`
	Device   string `json:"device" jsonschema:"the device's UDID"`
	BundleID string `json:"bundle_id,omitempty" jsonschema:"the app installed"`
}

type installParams struct {
	apple.DeviceArgs
	AppPath string `json:"app_path" jsonschema:".app bundle built for the device"`
}

func (h *handler) install(ctx context.Context, c *catalog.Call, in installParams) (catalog.Result[Output], error) {
	var zero catalog.Result[Output]
	if err := xcode.CheckApp(in.AppPath); err != nil {
		return zero, err
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return zero, err
	}
	abs, err := filepath.Abs(in.AppPath)
	if err != nil {
		return zero, err
	}
	id, err := xcode.InstallOnDevice(ctx, d, abs)
	if err != nil {
		return failed("INSTALL FAILED: "+filepath.Base(abs), d, err)
	}
	line := fmt.Sprintf("INSTALLED %s (%s) on %s", filepath.Base(abs), id, d.Label())
	return catalog.Result[Output]{Text: line + "\n", Output: Output{Verdict: line, Device: d.ID(), BundleID: id}}, nil
}

// failed makes a devicectl command that ran and failed a failed outcome
// with its reason; anything else stays an error.
func failed(what string, d xcode.PhysicalDevice, err error) (catalog.Result[Output], error) {
	if _, ok := err.(*xcode.DevicectlError); !ok {
		return catalog.Result[Output]{}, apple.UsageOf(err)
	}
	line := fmt.Sprintf("%s on %s: %v", what, d.Label(), err)
	return catalog.Result[Output]{Text: line + "\n", Output: Output{Verdict: line, Device: d.ID()}, Outcome: catalog.Failed}, nil
}

type stopParams struct {
	apple.DeviceArgs
	Pid int `json:"pid" jsonschema:"the app's process id on the device"`
}

func (h *handler) stop(ctx context.Context, c *catalog.Call, in stopParams) (catalog.Result[Output], error) {
	if in.Pid <= 0 {
		return catalog.Result[Output]{}, fault.Usagef("pid %d: give the app's process id on the device (device_launch_app's pid)", in.Pid)
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return catalog.Result[Output]{}, err
	}
	if err := xcode.StopOnDevice(ctx, d, in.Pid); err != nil {
		return failed(fmt.Sprintf("STOP FAILED: pid %d", in.Pid), d, err)
	}
	line := fmt.Sprintf("STOPPED pid %d on %s", in.Pid, d.Label())
	return catalog.Result[Output]{Text: line + "\n", Output: Output{Verdict: line, Device: d.ID()}}, nil
}

type reportsParams struct {
	apple.DeviceArgs
	Process string           `json:"process" jsonschema:"the app's executable name, as its crash reports carry it"`
	SinceS  duration.Seconds `json:"since_s,omitempty" jsonschema:"look back this many seconds (default 3600)"`
}

// ReportsOutput is the answer of device_crash_reports.
type ReportsOutput struct {
	Verdict      string                `json:"verdict" jsonschema:"the verdict line"`
	Device       string                `json:"device" jsonschema:"the device's UDID"`
	CrashReports []wire.AppCrashReport `json:"crash_reports" jsonschema:"the app's crash reports, newest first (copied here)"`
}

func (h *handler) crashReports(ctx context.Context, c *catalog.Call, in reportsParams) (catalog.Result[ReportsOutput], error) {
	var zero catalog.Result[ReportsOutput]
	if in.Process == "" || strings.ContainsAny(in.Process, "/\x00") {
		return zero, fault.Usagef("process %q: give the app's executable name", in.Process)
	}
	since, err := in.SinceS.Duration("since_s", time.Hour, duration.Max)
	if err != nil {
		return zero, err
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return zero, err
	}
	reps, err := xcode.DeviceCrashReports(ctx, d, h.reportDir(), time.Now().Add(-since), []string{in.Process})
	if err != nil {
		return zero, apple.UsageOf(err)
	}
	line := fmt.Sprintf("%d CRASH REPORTS of %s on %s in the last %s", len(reps), in.Process, d.Label(), since)
	var b strings.Builder
	b.WriteString(line + "\n")
	apple.WriteReports(&b, wire.AppCrashReportsOf(reps))
	out := ReportsOutput{Verdict: line, Device: d.ID(), CrashReports: append([]wire.AppCrashReport{}, wire.AppCrashReportsOf(reps)...)}
	return catalog.Result[ReportsOutput]{Text: b.String(), Output: out}, nil
}

// reportDir is where crash reports copied off devices are kept: the
// injected directory in tests, else xcode's default.
func (h *handler) reportDir() string {
	if len(h.opts.ReportDirs) > 0 {
		return h.opts.ReportDirs[0]
	}
	return ""
}
