package debug

import (
	"context"
	"fmt"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/debugger"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/xcode"
)

// AttachSimTool returns debug_attach_sim: a tool of the debug workflow that
// is available where the simulator workflow is (macOS with Xcode; o
// injects availability for tests).
func AttachSimTool(svc *services.Set, o apple.Options) *catalog.Tool {
	h := &handler{svc: svc}
	req := defaults.Requirements{OneOf: [][]string{{"simulator_id", "simulator_name"}}}
	t := catalog.New("debug_attach_sim", "Attach the debugger to a simulator app by bundle id: running, or launched to wait for the debugger.",
		catalog.Annotations{OpenWorld: true}, catalog.WithDefaults(svc.Defaults, req, h.attachSim))
	t.Available = o.AvailableFunc()
	return t
}

// attachStopWait bounds the wait for the stop an attach causes.
const attachStopWait = 5 * time.Second

// attachSim is debug_attach_sim as the debug workflow lists it: available
// on macOS with Xcode only.
func attachSim(svc *services.Set) *catalog.Tool { return AttachSimTool(svc, apple.Options{}) }

type attachSimParams struct {
	apple.SimulatorArgs
	BundleID        string `json:"bundle_id" jsonschema:"the app's bundle identifier"`
	Launch          bool   `json:"launch,omitempty" jsonschema:"launch the app suspended until the debugger attaches, ending a running instance"`
	Backend         string `json:"backend,omitempty" jsonschema:"dap (Xcode's lldb-dap) or lldb"`
	DebuggerBackend string `json:"debugger_backend,omitempty" jsonschema:"session default backend; backend wins"`
}

func (h *handler) attachSim(ctx context.Context, c *catalog.Call, in attachSimParams) (catalog.Result[StopOutput], error) {
	var zero catalog.Result[StopOutput]
	if err := xcode.CheckBundleID(in.BundleID); err != nil {
		return zero, apple.UsageOf(err)
	}
	d, err := xcode.BootedSimulator(ctx, in.SimulatorID, in.SimulatorName)
	if err != nil {
		return zero, apple.UsageOf(err)
	}
	backend := debugger.ResolveBackend(in.Backend, in.DebuggerBackend, h.svc.Config.Debugger.Backend)
	path, pid, err := appUnderXcodesDebugger(ctx, backend, d.UDID, in)
	if err != nil {
		return zero, err
	}
	b, info, st, err := h.svc.Debugger().AttachStopped(ctx, backend, debugger.AttachSpec{Pid: pid, Debugger: path}, attachStopWait)
	if err != nil {
		return zero, describe(err)
	}
	how := "already running"
	if in.Launch {
		how = "launched to wait for the debugger"
	}
	note := fmt.Sprintf("attached to %s (%s) on %s with %s", in.BundleID, how, d.Name, path)
	return h.stopResult(ctx, b, info.ID, st, note)
}

// appUnderXcodesDebugger finds Xcode's own debugger for backend (the one
// that knows the simulator's platform; found before a launch leaves the
// app waiting for one) and the app's pid: running, or launched to wait.
func appUnderXcodesDebugger(ctx context.Context, backend, udid string, in attachSimParams) (string, int, error) {
	tool := map[string]string{"dap": "lldb-dap", "lldb": "lldb"}[backend]
	if tool == "" {
		return "", 0, fault.Usagef("backend %q: use dap or lldb for a simulator app", backend)
	}
	path, err := xcode.FindTool(ctx, tool)
	if err != nil {
		return "", 0, err
	}
	var pid int
	if in.Launch {
		pid, err = xcode.LaunchForDebugger(ctx, udid, in.BundleID)
	} else {
		pid, err = xcode.RunningAppPid(ctx, udid, in.BundleID)
	}
	if err != nil {
		return "", 0, apple.UsageOf(err)
	}
	return path, pid, nil
}
