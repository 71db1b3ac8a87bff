// Package doctor is the `doctor` workflow: one read-only tool (and the resource
// triage://doctor) reporting what triage can use on this machine. Always on.
package doctor

import (
	"context"
	"time"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/doctor"
	"github.com/triage-dev/triage/internal/services"
)

// probeTimeout bounds each tool's version query (they run at once). A
// loaded machine takes seconds to start lldb (it maps all of LLVM), and a
// working tool reported as broken misleads more than a slower answer.
const probeTimeout = 15 * time.Second

// Workflow returns the doctor workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow {
	return &catalog.Workflow{
		ID:          "doctor",
		Title:       "Doctor",
		Description: "What triage can use here: debuggers, dump engines, toolchains, core dump and ptrace settings.",
		AlwaysOn:    true,
		Tools: []*catalog.Tool{
			catalog.New("doctor",
				"Report OS, every external tool triage can use (version or missing), core_pattern, RLIMIT_CORE, ptrace limits, store and config.",
				catalog.Annotations{ReadOnly: true, Idempotent: true},
				func(ctx context.Context, c *catalog.Call, _ struct{}) (catalog.Result[*doctor.Report], error) {
					r := Inspect(ctx, svc)
					return catalog.Result[*doctor.Report]{Text: r.Text(), Output: r}, nil
				}),
		},
	}
}

// Inspect builds the full report, including what only the services know.
func Inspect(ctx context.Context, svc *services.Set) *doctor.Report {
	r := doctor.Inspect(ctx, svc.Version, probeTimeout)
	r.Config = doctor.Config{
		Path:      svc.Config.Path,
		Warnings:  svc.Config.Warnings,
		Workflows: svc.EnabledWorkflows,
		Profile:   svc.Defaults.For(ctx).Active(),
	}
	r.Store = svc.StoreHealth(ctx)
	return r
}
