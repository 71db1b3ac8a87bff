// Package observe is the `observe` workflow: debug_observe runs a program
// under tracepoints that record and never stop it, and answers when it
// ends with its verdict, each tracepoint's hits with the first and last
// values, and the event log stored as JSON lines; an empty plan is crash
// triage. It is opt-in: the default tools/list is at its token budget, and
// an observed run is a step few sessions take (debug_breakpoint_add with a
// log message is the same inside a debug session).
package observe

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/observe"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/verdict"
	"github.com/triage-dev/triage/internal/workflow/render"
)

// Workflow returns the observe workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow {
	h := &handler{svc: svc}
	return &catalog.Workflow{
		ID:          "observe",
		Title:       "Observation without stopping",
		Description: "Run a program under gdb tracepoints that record values and never stop it (opt-in).",
		OptIn:       true,
		Tools: []*catalog.Tool{
			catalog.New("debug_observe",
				"Run a program under tracepoints (file:line or function; expressions; condition; hit limit): verdict, hits with first/last values, JSONL event log id. No tracepoints: crash triage (crash site).",
				catalog.Annotations{OpenWorld: true}, catalog.WithDefaults(svc.Defaults, defaults.Requirements{}, h.observe)).
				Help("timeout_s", fmt.Sprintf("seconds; default %g (the config's timeouts.run), or the session default timeout_s", svc.Config.RunTimeout().Seconds())),
		},
	}
}

type handler struct{ svc *services.Set }

// TracepointParam is one tracepoint of the plan.
type TracepointParam struct {
	Location  string   `json:"location" jsonschema:"file:line or function"`
	Exprs     []string `json:"exprs,omitempty" jsonschema:"recorded at each hit"`
	Condition string   `json:"condition,omitempty" jsonschema:"record only when true"`
	Limit     *int     `json:"limit,omitempty" jsonschema:"hits recorded, then disabled (default 10000)"`
}

// tracepoint is tracepoint i of the plan; a limit left out is the
// default (0), one given must be positive.
func (tp TracepointParam) tracepoint(i int) (observe.Tracepoint, error) {
	t := observe.Tracepoint{Location: tp.Location, Exprs: tp.Exprs, Condition: tp.Condition}
	if tp.Limit == nil {
		return t, nil
	}
	if t.Limit = *tp.Limit; t.Limit <= 0 {
		return t, fault.Usagef("tracepoint %d (%s): limit %d: give a positive number of hits (left out: %d)", i, tp.Location, t.Limit, observe.DefaultLimit)
	}
	return t, nil
}

type params struct {
	Program     string            `json:"program" jsonschema:"path"`
	Args        []string          `json:"args,omitempty" jsonschema:"argv (no shell)"`
	Cwd         string            `json:"cwd,omitempty" jsonschema:"default: project_dir"`
	ProjectDir  string            `json:"project_dir,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Tracepoints []TracepointParam `json:"tracepoints,omitempty" jsonschema:"none: crash triage"`
	TimeoutS    duration.Seconds  `json:"timeout_s,omitempty"`
}

// spec is the domain's run, without its writers.
func (p params) spec(svc *services.Set) (observe.Spec, error) {
	if p.Program == "" {
		return observe.Spec{}, fault.Usagef("program is required: a path such as ./a.out")
	}
	timeout, err := p.TimeoutS.Timeout(svc.Config.RunTimeout(), 0)
	if err != nil {
		return observe.Spec{}, err
	}
	s := observe.NewSpec(p.Program, p.Args, p.Cwd, p.ProjectDir, p.Env, timeout)
	if s.Tracepoints, err = tracepoints(p.Tracepoints); err != nil {
		return s, err
	}
	return s, observe.Check(s.Tracepoints)
}

// tracepoints is the plan's tracepoints.
func tracepoints(tps []TracepointParam) ([]observe.Tracepoint, error) {
	out := make([]observe.Tracepoint, len(tps))
	for i, tp := range tps {
		var err error
		if out[i], err = tp.tracepoint(i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (h *handler) observe(ctx context.Context, c *catalog.Call, in params) (catalog.Result[Output], error) {
	spec, err := in.spec(h.svc)
	if err != nil {
		return catalog.Result[Output]{}, err
	}
	c.Progress(ctx, 0, 0, "observing "+filepath.Base(spec.Program))
	return h.run(ctx, spec, c.Limit("timeout_s", in.TimeoutS > 0, h.svc.Config.RunTimeoutKey()).String())
}

// run runs spec with what the program prints captured (an excerpt for the
// answer) and its event log stored; limit names spec's time limit
// (capture.NameLimit) for a run that runs out of it.
func (h *handler) run(ctx context.Context, spec observe.Spec, limit string) (catalog.Result[Output], error) {
	st, err := h.svc.Store(ctx)
	if err != nil {
		return catalog.Result[Output]{}, err
	}
	meta := store.Meta{Tool: "debug_observe", Argv: append([]string{spec.Program}, spec.Args...), Cwd: spec.Dir}
	out, err := capture.Open(ctx, st, meta, capture.Options{Budget: h.svc.Config.BudgetBytes() / 2})
	if err != nil {
		return catalog.Result[Output]{}, err
	}
	spec.Output = out
	r, eventsID, err := observe.RunStored(ctx, st, "debug_observe", spec)
	if err != nil {
		out.Abort()
		return catalog.Result[Output]{}, err
	}
	if r.Verdict.Status == verdict.StatusTimeout {
		r.Verdict.Line = capture.NameLimit(r.Verdict.Line, limit)
	}
	res := renderReport(r, eventsID, out.Close())
	return render.StoreFailure(res, out.FinishWith(ctx, r.Final(), res.Output)), nil
}
