package simulator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

type listParams struct {
	Name       string `json:"name,omitempty" jsonschema:"name substring"`
	BootedOnly bool   `json:"booted_only,omitempty" jsonschema:"keep booted simulators only"`
	All        bool   `json:"all,omitempty" jsonschema:"include unavailable simulators"`
}

// ListOutput lists simulators.
type ListOutput struct {
	Devices []wire.Simulator `json:"devices" jsonschema:"simulators, newest runtime first"`
}

// maxListed bounds the devices shown in the text.
const maxListed = 60

func (h *handler) list(ctx context.Context, c *catalog.Call, in listParams) (catalog.Result[ListOutput], error) {
	devs, err := xcode.Devices(ctx)
	if err != nil {
		return catalog.Result[ListOutput]{}, apple.UsageOf(err)
	}
	shown := xcode.SimulatorFilter{Name: in.Name, BootedOnly: in.BootedOnly, All: in.All}.Keep(devs)
	var b strings.Builder
	fmt.Fprintf(&b, "%d SIMULATORS (%d booted)\n", len(shown), countBooted(shown))
	for i, d := range shown {
		if i == maxListed {
			fmt.Fprintf(&b, "  … %d more in devices\n", len(shown)-i)
			break
		}
		fmt.Fprintf(&b, "  %s\n", d)
	}
	out := ListOutput{Devices: append([]wire.Simulator{}, wire.SimulatorsOf(shown)...)}
	return catalog.Result[ListOutput]{Text: b.String(), Output: out}, nil
}

func countBooted(devs []xcode.Device) int {
	n := 0
	for _, d := range devs {
		if d.Booted() {
			n++
		}
	}
	return n
}

type bootParams struct {
	apple.SimulatorArgs
	TimeoutS duration.Seconds `json:"timeout_s,omitempty" jsonschema:"seconds (default 180)"`
}

// SimOutput is the result of the tools acting on one simulator.
type SimOutput struct {
	Verdict   string `json:"verdict" jsonschema:"the verdict line"`
	Simulator string `json:"simulator" jsonschema:"the simulator's UDID"`
}

func (h *handler) boot(ctx context.Context, c *catalog.Call, in bootParams) (catalog.Result[SimOutput], error) {
	limit, err := in.TimeoutS.Timeout(xcode.BootTimeout, 0)
	if err != nil {
		return catalog.Result[SimOutput]{}, err
	}
	d, err := in.Resolve(ctx)
	if err != nil {
		return catalog.Result[SimOutput]{}, err
	}
	if d.Booted() {
		return simResult("ALREADY BOOTED: "+d.String(), d), nil
	}
	c.Progress(ctx, 0, 0, "booting "+d.UDID)
	// bootstatus -b boots the simulator if needed and returns once it is
	// ready, so it replaces boot-then-poll.
	if _, err := xcode.Run(ctx, xcode.BootStatusCommand(d.UDID), limit); err != nil {
		if ce := (*xcode.CommandError)(nil); errors.As(err, &ce) {
			ce.Limit = c.Limit("timeout_s", in.TimeoutS > 0, "").String()
		}
		return failedOrError("BOOT FAILED: ", d, err)
	}
	return simResult("BOOTED: "+name(d), d), nil
}

// simResult is the answer of a tool that acted on simulator d.
func simResult(line string, d xcode.Device) catalog.Result[SimOutput] {
	return catalog.Result[SimOutput]{Text: line + "\n", Output: SimOutput{Verdict: line, Simulator: d.UDID}}
}

func name(d xcode.Device) string { return d.Label() }
