// Package dump is the `dump` workflow: post-mortem analysis of kernel dumps
// (vmcore + vmlinux, through crash and drgn) and process cores (core +
// program, through gdb, lldb and drgn). A session stays open between calls
// (internal/postmortem.Manager); internal/postmortem/analysis routes commands
// to an engine, stores and caches their outputs per dump, engine, command and
// context, and builds the first-look report. The handlers here decode their
// arguments, make one domain call and render its result as text and wire
// types.
package dump

import (
	"context"
	"fmt"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/postmortem/analysis"
	"github.com/triage-dev/triage/internal/services"
)

// Workflow returns the dump workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow {
	h := newHandler(svc)
	ro := catalog.Annotations{ReadOnly: true, Idempotent: true}
	world := catalog.Annotations{OpenWorld: true}
	return &catalog.Workflow{
		ID:          "dump",
		Title:       "Post-mortem dumps",
		Description: "Open kernel dumps (crash, drgn) and process cores (gdb, lldb, drgn); first-look report, routed and cached engine commands.",
		Tools: []*catalog.Tool{
			catalog.New("dump_open", "Open a kernel dump (vmcore + vmlinux) or a process core (core + program); the same dump reuses its session.",
				world, catalog.WithDefaults(svc.Defaults, defaults.Requirements{}, h.open)).
				Unlisted("", "project_dir"), // filled from session defaults; where relative paths resolve
			catalog.New("dump_report", "First look at an open dump: panic or signal, crashing backtrace, kernel log tail or registers.", world, h.report),
			catalog.New("dump_command", "Run engine commands, one a line, on an open dump (cached per engine context).", world, h.command).
				Help("timeout_s", fmt.Sprintf("seconds per command; default %g (the config's timeouts.command), at most %g", svc.Config.CommandTimeout().Seconds(), duration.CommandMax.Seconds())),
			catalog.New("dump_scripts", "List the drgn scripts of dump.script_dirs, or run one on an open dump.", world, h.scripts).
				Help("timeout_s", fmt.Sprintf("seconds per command; default %g (the config's timeouts.command), at most %g", svc.Config.CommandTimeout().Seconds(), duration.CommandMax.Seconds())),
			catalog.New("dump_list", "List open dump sessions and the state of their engines.", ro, h.list),
			catalog.New("dump_close", "Release a dump session; the last release stops its engines.", catalog.Annotations{Destructive: true, Idempotent: true}, h.close),
		},
	}
}

type handler struct {
	svc     *services.Set
	analyst *analysis.Analyst
}

func newHandler(svc *services.Set) *handler {
	// One answer shows at most half the response budget of output.
	budget := func() int { return svc.Config.BudgetBytes() / 2 }
	return &handler{svc: svc, analyst: analysis.New(svc.Store, budget, svc.Log)}
}

// sessionParam is embedded by every tool that works on a session.
type sessionParam struct {
	SessionID string `json:"session_id,omitempty"`
}

// call is what an operation on the session id needs: timeoutS checked
// first, then the session looked up.
func (h *handler) call(ctx context.Context, c *catalog.Call, id string, force bool, timeoutS duration.Seconds) (analysis.Call, error) {
	timeout, err := timeoutS.Timeout(0, duration.CommandMax)
	if err != nil {
		return analysis.Call{}, err
	}
	s, err := h.svc.Dumps().Get(ctx, id)
	if err != nil {
		return analysis.Call{}, analysis.Classify(err)
	}
	progress := func(done, total float64, message string) { c.Progress(ctx, done, total, message) }
	limit := c.Limit("timeout_s", timeoutS > 0, h.svc.Config.CommandTimeoutKey())
	limit.Max = duration.CommandMax
	return analysis.Call{Tool: c.Tool, Session: s, Force: force, Timeout: timeout, Limit: limit.String(), Progress: progress}, nil
}
