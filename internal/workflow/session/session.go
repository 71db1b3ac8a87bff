// Package session is the `session` workflow: set, show and clear session
// defaults, and switch profiles. It is always enabled. Each client identity
// has its own defaults (defaults.Book); only the server's own may persist
// them into the config file.
package session

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/defaults"
	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/redact"
	"github.com/triage-dev/triage/internal/services"
	"github.com/triage-dev/triage/internal/workflow/wire"
)

// Workflow returns the session workflow bound to svc.
func Workflow(svc *services.Set) *catalog.Workflow {
	h := &handler{svc: svc}
	return &catalog.Workflow{
		ID:          "session",
		Title:       "Session defaults",
		Description: "Set project, scheme, simulator and other defaults once; session-aware tools use them unless a call overrides them.",
		AlwaysOn:    true,
		Tools: []*catalog.Tool{
			catalog.New("session_set_defaults",
				"Set session defaults in the active or named profile; explicit arguments override them.",
				catalog.Annotations{Idempotent: true}, h.set).
				Unlisted("xcode", "workspace_path", "project_path", "scheme", "device_id", "platform").
				Unlisted("simulator", "simulator_id", "simulator_name").
				// Accepted, not advertised: the token budget has no room;
				// a hidden tool's error names it.
				Unlisted("", "workflows"),
			catalog.New("session_show_defaults",
				"Show a profile's session defaults and the known profiles.",
				catalog.Annotations{ReadOnly: true, Idempotent: true}, h.show),
			catalog.New("session_clear_defaults",
				"Clear some or all session defaults of a profile.",
				catalog.Annotations{Destructive: true, Idempotent: true}, h.clear),
			catalog.New("session_use_profile",
				"Switch the active defaults profile (created empty if new).",
				catalog.Annotations{Idempotent: true}, h.use),
		},
	}
}

type handler struct{ svc *services.Set }

type setParams struct {
	defaults.Values
	Profile string `json:"profile,omitempty" jsonschema:"default: active"`
	Persist bool   `json:"persist,omitempty" jsonschema:"also write it to .triage/config.yaml"`
}

// Output describes a profile after a session call.
type Output struct {
	Profile   string        `json:"profile" jsonschema:"the profile shown or changed"`
	Active    string        `json:"active" jsonschema:"the active profile"`
	Defaults  wire.Defaults `json:"defaults" jsonschema:"the profile's defaults"`
	Profiles  []string      `json:"profiles" jsonschema:"profiles that hold values, and the active one"`
	Persisted string        `json:"persisted,omitempty" jsonschema:"config file written, when persist was set"`
}

func (h *handler) set(ctx context.Context, c *catalog.Call, in setParams) (catalog.Result[Output], error) {
	if in.Values.IsZero() && !in.Persist {
		return catalog.Result[Output]{}, fault.Usagef("nothing to set: pass one or more of %s", strings.Join(defaults.Keys(), ", "))
	}
	if err := validate(in.Values); err != nil {
		return catalog.Result[Output]{}, err
	}
	if err := h.checkWorkflows(in.Values.Workflows); err != nil {
		return catalog.Result[Output]{}, err
	}
	before := h.shown(ctx)
	if in.Persist {
		if err := h.svc.Defaults.MayPersist(ctx); err != nil {
			return catalog.Result[Output]{}, err
		}
	}
	ds, profile, err := h.svc.Defaults.Resolve(ctx, in.Profile)
	if err != nil {
		return catalog.Result[Output]{}, err
	}
	v, err := ds.Set(profile, in.Values)
	if err != nil {
		return catalog.Result[Output]{}, fault.Usage(err)
	}
	out := output(ds, profile, v)
	if in.Persist {
		path, err := h.svc.ConfigPathForWrite()
		if err == nil {
			err = config.SaveDefaults(path, out.Profile, v)
		}
		if err != nil {
			return catalog.Result[Output]{}, fmt.Errorf("defaults set in memory, but not persisted: %w", err)
		}
		out.Persisted = path
	}
	return catalog.Result[Output]{Text: render("DEFAULTS SET", out) + h.changed(ctx, before), Output: out}, nil
}

type showParams struct {
	Profile string `json:"profile,omitempty" jsonschema:"default: active"`
}

func (h *handler) show(ctx context.Context, c *catalog.Call, in showParams) (catalog.Result[Output], error) {
	ds, profile, err := h.svc.Defaults.Resolve(ctx, in.Profile)
	if err != nil {
		return catalog.Result[Output]{}, err
	}
	if profile != "" {
		if err := defaults.ValidProfile(profile); err != nil {
			return catalog.Result[Output]{}, fault.Usage(err)
		}
	}
	out := output(ds, profile, ds.Get(profile))
	text := render("DEFAULTS", out)
	if others := h.svc.Defaults.Others(ctx); len(others) > 0 {
		text += fmt.Sprintf("other clients' defaults: %s (profile \"CLIENT/PROFILE\" shows one)\n", strings.Join(others, ", "))
	}
	return catalog.Result[Output]{Text: text, Output: out}, nil
}

type clearParams struct {
	Profile string   `json:"profile,omitempty" jsonschema:"default: active"`
	Keys    []string `json:"keys,omitempty" jsonschema:"empty clears all"`
}

func (h *handler) clear(ctx context.Context, c *catalog.Call, in clearParams) (catalog.Result[Output], error) {
	ds, profile, err := h.svc.Defaults.Resolve(ctx, in.Profile)
	if err != nil {
		return catalog.Result[Output]{}, err
	}
	before := h.shown(ctx)
	v, err := ds.Clear(profile, in.Keys)
	if err != nil {
		return catalog.Result[Output]{}, fault.Usage(err)
	}
	out := output(ds, profile, v)
	return catalog.Result[Output]{Text: render("DEFAULTS CLEARED", out) + h.changed(ctx, before), Output: out}, nil
}

type useParams struct {
	Profile string `json:"profile"`
}

func (h *handler) use(ctx context.Context, c *catalog.Call, in useParams) (catalog.Result[Output], error) {
	ds := h.svc.Defaults.For(ctx)
	if err := defaults.ValidProfile(in.Profile); err != nil {
		return catalog.Result[Output]{}, fault.Usage(err)
	}
	if err := h.checkWorkflows(ds.Get(in.Profile).Workflows); err != nil {
		return catalog.Result[Output]{}, fmt.Errorf("profile %s: %w", in.Profile, err)
	}
	before := h.shown(ctx)
	if err := ds.Use(in.Profile); err != nil {
		return catalog.Result[Output]{}, fault.Usage(err)
	}
	out := output(ds, "", ds.Get(""))
	return catalog.Result[Output]{Text: render("PROFILE ACTIVE", out) + h.changed(ctx, before), Output: out}, nil
}

// checkWorkflows reports a workflow a profile cannot show here.
func (h *handler) checkWorkflows(names []string) error {
	if h.svc.Workflows == nil || len(names) == 0 {
		return nil
	}
	if err := h.svc.Workflows.Check(names); err != nil {
		return fault.Usagef("workflows: %v", err)
	}
	return nil
}

// shown is the workflows the caller's active profile shows.
func (h *handler) shown(ctx context.Context) []string {
	return h.svc.Defaults.For(ctx).Get("").Workflows
}

// changed tells the clients their tool lists changed when the workflows
// the caller's active profile shows did, and says so.
func (h *handler) changed(ctx context.Context, before []string) string {
	after := h.shown(ctx)
	if slices.Equal(before, after) || h.svc.Workflows == nil {
		return ""
	}
	h.svc.Workflows.ListChanged()
	if len(after) == 0 {
		return "tools/list changed: no more workflows shown\n"
	}
	return fmt.Sprintf("tools/list changed: the tools of workflows %s are listed for this session\n", strings.Join(after, ", "))
}

// output describes profile of the caller's defaults ds, holding v.
func output(ds *defaults.Store, profile string, v defaults.Values) Output {
	active := ds.Active()
	if profile == "" {
		profile = active
	}
	v.Env = redact.Env(v.Env) // an echo: secret values stay in the profile only
	return Output{Profile: profile, Active: active, Defaults: wire.DefaultsOf(v), Profiles: ds.Profiles()}
}

func validate(v defaults.Values) error {
	if err := v.TimeoutS.Check("timeout_s", 0); err != nil {
		return err
	}
	switch v.DebuggerBackend {
	case "", "dap", "lldb":
	default:
		return fault.Usagef("debugger_backend %q: use dap or lldb", v.DebuggerBackend)
	}
	for k := range v.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fault.Usagef("env name %q: names must be non-empty and contain no '=' or NUL", k)
		}
	}
	return nil
}

// render writes the verdict line and one line per default, in key order.
func render(verb string, o Output) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (profile %s", verb, o.Profile)
	if o.Profile != o.Active {
		fmt.Fprintf(&b, "; active: %s", o.Active)
	}
	b.WriteString(")\n")
	m := defaults.Values(o.Defaults).Map()
	if len(m) == 0 {
		b.WriteString("no defaults set\n")
	}
	for _, k := range defaults.Keys() {
		if val, ok := m[k]; ok {
			fmt.Fprintf(&b, "%s: %s\n", k, show(val))
		}
	}
	if len(o.Profiles) > 1 {
		fmt.Fprintf(&b, "profiles: %s\n", strings.Join(o.Profiles, ", "))
	}
	if o.Persisted != "" {
		fmt.Fprintf(&b, "written to %s\n", o.Persisted)
	}
	return b.String()
}

func show(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%v", k, x[k])
		}
		return strings.Join(parts, " ")
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = fmt.Sprint(e)
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprint(v)
}
