// Package session is the `session` workflow: set, show and clear session
// defaults, and switch profiles. It is always enabled. Each client identity
// has its own defaults (defaults.Book); only the server's own may persist
// them into the config file.
package session

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/config"
	"github.com/triage-dev/triage/internal/defaults"
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
				Unlisted("xcode", "workspace_path", "project_path", "scheme", "platform").
				Unlisted("device", "device_id").
				Unlisted("simulator", "simulator_id", "simulator_name").
				// Accepted, not advertised: the token budget has no room;
				// a hidden tool's error names it.
				Unlisted("", "workflows").
				Unlisted("", "stall_s"). // as on run, build and test
				Help("timeout_s", fmt.Sprintf("seconds; the limit of run, build and test that give none (default %g)", svc.Config.RunTimeout().Seconds())),
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
	var save defaults.Saver
	if in.Persist {
		save = h.save
	}
	if err := h.absPaths(ctx, in.Profile, &in.Values); err != nil {
		return catalog.Result[Output]{}, err
	}
	v, err := h.svc.Defaults.Update(ctx, in.Profile, in.Values, h.gate(), save)
	return h.result("DEFAULTS SET", v, err)
}

// absPaths makes the path-typed defaults in v absolute against the
// server's working directory, the one the call's relative path meant (the
// CLI's daemon works in the CLI's directory): stored as given, `.` would
// mean another directory to a later call made elsewhere, or to the config
// file it is persisted in. Paths on an ssh host (v's or the profile's) are
// the host's, and kept as given.
func (h *handler) absPaths(ctx context.Context, profile string, v *defaults.Values) error {
	if v.SSHHost != "" {
		return nil
	}
	if cur, err := h.svc.Defaults.Show(ctx, profile); err == nil && cur.Values.SSHHost != "" {
		return nil
	}
	for _, p := range []*string{&v.ProjectDir, &v.WorkspacePath, &v.ProjectPath, &v.Vmlinux} {
		if *p == "" || filepath.IsAbs(*p) {
			continue
		}
		a, err := filepath.Abs(*p)
		if err != nil {
			return err
		}
		*p = a
	}
	return nil
}

// save writes a profile's defaults into the config file in effect.
func (h *handler) save(profile string, v defaults.Values) (string, error) {
	path, err := h.svc.ConfigPathForWrite()
	if err != nil {
		return "", err
	}
	return path, config.SaveDefaults(path, profile, v)
}

type showParams struct {
	Profile string `json:"profile,omitempty" jsonschema:"default: active"`
}

func (h *handler) show(ctx context.Context, c *catalog.Call, in showParams) (catalog.Result[Output], error) {
	v, err := h.svc.Defaults.Show(ctx, in.Profile)
	res, err := h.result("DEFAULTS", v, err)
	if others := h.svc.Defaults.Others(ctx); len(others) > 0 && err == nil {
		res.Text += fmt.Sprintf("other clients' defaults: %s (profile \"CLIENT/PROFILE\" shows one)\n", strings.Join(others, ", "))
	}
	return res, err
}

type clearParams struct {
	Profile string   `json:"profile,omitempty" jsonschema:"default: active"`
	Keys    []string `json:"keys,omitempty" jsonschema:"empty clears all"`
}

func (h *handler) clear(ctx context.Context, c *catalog.Call, in clearParams) (catalog.Result[Output], error) {
	v, err := h.svc.Defaults.Clear(ctx, in.Profile, in.Keys)
	return h.result("DEFAULTS CLEARED", v, err)
}

type useParams struct {
	Profile string `json:"profile"`
}

func (h *handler) use(ctx context.Context, c *catalog.Call, in useParams) (catalog.Result[Output], error) {
	v, err := h.svc.Defaults.Use(ctx, in.Profile, h.gate())
	return h.result("PROFILE ACTIVE", v, err)
}

// gate checks the workflows a profile names against the server's.
func (h *handler) gate() defaults.Gate {
	if h.svc.Workflows == nil {
		return nil
	}
	return h.svc.Workflows.Check
}

// result renders a session call's view, and tells the clients their tool
// lists changed when the workflows the caller's active profile shows did.
func (h *handler) result(verb string, v defaults.View, err error) (catalog.Result[Output], error) {
	if err != nil {
		return catalog.Result[Output]{}, err
	}
	if h.svc.Workflows == nil {
		v.ShownChanged = false // no server to tell
	} else if v.ShownChanged {
		h.svc.Workflows.ListChanged()
	}
	return catalog.Result[Output]{Text: v.Text(verb), Output: outputOf(v)}, nil
}

func outputOf(v defaults.View) Output {
	return Output{Profile: v.Profile, Active: v.Active, Defaults: wire.DefaultsOf(v.Values), Profiles: v.Profiles, Persisted: v.Persisted}
}
