// Package bisect is the `bisect` workflow: the bisect tool finds the
// first commit where a test, a build or a run turns bad, with triage's
// own verdict as the judge of each step (internal/bisect). It is opt-in:
// the default tools/list is at its token budget.
package bisect

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/triage-dev/triage/internal/argpath"
	"github.com/triage-dev/triage/internal/bisect"
	"github.com/triage-dev/triage/internal/capture"
	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/duration"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/logfilter"
	"github.com/triage-dev/triage/internal/pipeline"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/store"
	"github.com/triage-dev/triage/internal/toolchain"
	wrender "github.com/triage-dev/triage/internal/workflow/render"
)

// Workflow returns the bisect workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow {
	h := &handler{svc: svc}
	return &catalog.Workflow{
		ID:          "bisect",
		Title:       "Bisect",
		Description: "Find the commit that broke a test, build or run, judged by triage's verdict (opt-in).",
		OptIn:       true,
		Tools: []*catalog.Tool{
			catalog.New("bisect",
				"Find the first bad commit between good and bad (HEAD): each step tests, builds, or builds and runs program in a worktree of its own; a revision that does not build, or fails otherwise, is skipped.",
				catalog.Annotations{OpenWorld: true}, catalog.WithDefaults(svc.Defaults, defaults.Requirements{AllOf: []string{"project_dir"}}, h.bisect)).
				// Seldom changed: not worth their tokens in tools/list.
				Unlisted("", "toolchain", "command", "build_command", "test_command", "configuration", "targets", "skip",
					"configure_args", "jobs", "env", "timeout_s", "stall_s", "any_failure", "max_steps", "time_limit_s"),
		},
	}
}

type handler struct{ svc *services.Set }

// params are bisect's arguments. project_dir, toolchain, the commands,
// configuration, env and timeout_s are session-managed.
type params struct {
	ProjectDir string   `json:"project_dir,omitempty"`
	Good       string   `json:"good" jsonschema:"a revision without the failure"`
	Bad        string   `json:"bad,omitempty" jsonschema:"default HEAD"`
	What       string   `json:"what,omitempty" jsonschema:"test (default), build, or run (default with program)"`
	Run        []string `json:"run,omitempty" jsonschema:"only matching tests"`
	Program    string   `json:"program,omitempty" jsonschema:"run: the program the build makes, relative to project_dir"`
	Args       []string `json:"args,omitempty" jsonschema:"the program's"`

	Toolchain     string            `json:"toolchain,omitempty" jsonschema:"go cargo cmake meson autotools make swift (detected)"`
	Command       any               `json:"command,omitempty" jsonschema:"argv (no shell) of each step's test, or build for build and run"`
	BuildCommand  any               `json:"build_command,omitempty" jsonschema:"session default for command (build, run)"`
	TestCommand   any               `json:"test_command,omitempty" jsonschema:"session default for command (test)"`
	Configuration string            `json:"configuration,omitempty" jsonschema:"debug or release"`
	Targets       []string          `json:"targets,omitempty" jsonschema:"packages or targets"`
	Skip          []string          `json:"skip,omitempty" jsonschema:"go -skip, cargo --skip, ctest -E"`
	ConfigureArgs []string          `json:"configure_args,omitempty" jsonschema:"cmake, meson setup or configure options"`
	Jobs          int               `json:"jobs,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	TimeoutS      duration.Seconds  `json:"timeout_s,omitempty" jsonschema:"each step's time limit, seconds; default the config's timeouts.run (600 built in) or the session default timeout_s"`
	StallS        *duration.Seconds `json:"stall_s,omitempty" jsonschema:"run: default 30, end as HUNG after this long without progress; 0 turns it off"`
	AnyFailure    bool              `json:"any_failure,omitempty" jsonschema:"every failure is bad; default: only the bad revision's own (kind and test or crash function), others skipped"`
	MaxSteps      int               `json:"max_steps,omitempty" jsonschema:"default 30"`
	TimeLimitS    duration.Seconds  `json:"time_limit_s,omitempty" jsonschema:"default 3600: no step starts after it"`
}

// defaultStall is the run tool's: how long a run may make no progress.
const defaultStall = 30 * time.Second

func (h *handler) bisect(ctx context.Context, c *catalog.Call, in params) (catalog.Result[Output], error) {
	req, err := in.request(h.svc)
	if err != nil {
		return catalog.Result[Output]{}, err
	}
	if req.Call.Store, err = h.svc.Store(ctx); err != nil {
		return catalog.Result[Output]{}, err
	}
	req.Call.Rooms = h.svc.WorkRooms()
	req.Call.Limit = c.Limit("timeout_s", in.TimeoutS > 0, h.svc.Config.RunTimeoutKey()).String()
	req.Progress = func(done float64, estimate int, msg string) { c.Progress(ctx, done, float64(estimate), msg) }
	rep, err := bisect.Run(ctx, req)
	if err != nil {
		return catalog.Result[Output]{}, err
	}
	// The search's own limit, named as every time limit is (capture.Limit).
	named := fmt.Sprintf("(time limit of %s reached: %s)", req.TimeLimit, c.Limit("time_limit_s", in.TimeLimitS > 0, ""))
	rep.Line = strings.Replace(rep.Line, "(time limit reached)", named, 1)
	res := render(rep)
	keep(ctx, req, &res)
	return res, nil
}

// keep keeps the bisect's answer as an output of its own, which the web
// page shows with its steps (render.Keep), and says so in its text.
func keep(ctx context.Context, req bisect.Request, res *catalog.Result[Output]) {
	status := "failure" // the first bad commit not found
	if res.Output.Status == "found" {
		status = "success"
	}
	m := store.Meta{Tool: "bisect", Argv: []string{"bisect", req.Good + ".." + cmp.Or(req.Bad, "HEAD")}, Cwd: req.ProjectDir}
	if id, err := wrender.Keep(ctx, req.Call.Store, m, res.Text, store.Final{Status: status, VerdictLine: res.Output.Verdict}, res.Output); err == nil {
		line, rest, _ := strings.Cut(res.Text, "\n")
		res.Text = fmt.Sprintf("%s\nthe steps are kept as output %s (the web page shows them)\n%s", line, id, rest)
	}
}

// request is the domain's bisect the arguments describe.
func (p params) request(svc *services.Set) (bisect.Request, error) {
	what := p.What
	switch {
	case what == "" && p.Program != "":
		what = bisect.WhatRun
	case what == "":
		what = bisect.WhatTest
	case what == bisect.WhatRun && p.Program == "":
		return bisect.Request{}, fault.Usagef("program is required to bisect a run: the path, relative to project_dir, of the program the build makes")
	}
	req := bisect.Request{ProjectDir: argpath.Resolve(p.ProjectDir, "", ""), Good: p.Good, Bad: p.Bad, What: what,
		Any: p.AnyFailure, MaxSteps: p.MaxSteps}
	var err error
	if req.TimeLimit, err = p.TimeLimitS.Duration("time_limit_s", bisect.DefaultTimeLimit, 0); err != nil {
		return req, err
	}
	if req.Call, err = p.call(svc, what); err != nil {
		return req, err
	}
	req.Run = bisect.RunSpec{Program: p.Program, Args: p.Args, Env: p.Env, Timeout: req.Call.Timeout, Stall: defaultStall}
	if p.StallS != nil {
		req.Run.Stall, err = p.StallS.Duration("stall_s", 0, 0)
	}
	return req, err
}

// call is each step's build or test call, as the build and test tools
// make it (a crashed test is not rerun under memcheck: the verdict is
// what a step needs).
func (p params) call(svc *services.Set, what string) (pipeline.Call, error) {
	timeout, err := p.TimeoutS.Timeout(svc.Config.RunTimeout(), 0)
	if err != nil {
		return pipeline.Call{}, err
	}
	cmd, field, session, sessionField := p.Command, "command", p.BuildCommand, "build_command"
	if what == bisect.WhatTest {
		session, sessionField = p.TestCommand, "test_command"
	}
	argv, err := toolchain.Argv(cmd, field)
	if argv == nil && err == nil {
		argv, err = toolchain.Argv(session, sessionField)
	}
	if err != nil {
		return pipeline.Call{}, err
	}
	opts := toolchain.Options{Configuration: p.Configuration, Targets: p.Targets, ConfigureArgs: p.ConfigureArgs, Jobs: p.Jobs, Env: p.Env}
	if what == bisect.WhatTest {
		opts.Run, opts.Skip = p.Run, p.Skip
	}
	return pipeline.Call{Tool: "bisect", Budget: svc.Config.BudgetBytes() / 2, Toolchain: p.Toolchain, Argv: argv, Options: opts,
		Level: logfilter.Standard, Timeout: timeout, Memcheck: capture.Memcheck{Off: true}}, nil
}
