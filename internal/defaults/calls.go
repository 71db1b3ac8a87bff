package defaults

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
	"github.com/triage-dev/triage/internal/redact"
)

// View is a profile of a caller's defaults after one of the session calls
// (Book.Show, Book.Update, Book.Clear, Book.Use), and whether the call
// changed the workflows the caller's active profile shows.
type View struct {
	Profile  string
	Active   string
	Values   Values // the environment's secret values masked: an echo
	Profiles []string
	// Shown are the workflows the caller's active profile shows after the
	// call; ShownChanged says the call changed them.
	Shown        []string
	ShownChanged bool
	Persisted    string // the config file written, by Book.Update with a Saver
}

// Gate reports a workflow name a profile cannot show here; nil lets every
// name pass.
type Gate func(names []string) error

// Saver writes a profile's values into the config file and says where.
type Saver func(profile string, v Values) (string, error)

// Validate refuses values no tool could use, and an env larger than a
// profile may hold (see MaxEnvKeys).
func (v Values) Validate() error {
	if err := v.checkBounds("the defaults given"); err != nil {
		return err
	}
	if err := v.TimeoutS.Check("timeout_s", 0); err != nil {
		return err
	}
	if v.StallS != nil {
		if err := v.StallS.Check("stall_s", 0); err != nil {
			return err
		}
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

func (g Gate) check(names []string) error {
	if g == nil || len(names) == 0 {
		return nil
	}
	if err := g(names); err != nil {
		return fault.Usagef("workflows: %v", err)
	}
	return nil
}

// Show is profile ("" the active one) of the caller's defaults.
func (b *Book) Show(ctx context.Context, profile string) (View, error) {
	ds, name, err := b.Resolve(ctx, profile)
	if err != nil {
		return View{}, err
	}
	if name != "" {
		if err := ValidProfile(name); err != nil {
			return View{}, fault.Usage(err)
		}
	}
	return b.view(ctx, ds, name, ds.Get(name)), nil
}

// Update validates v and overlays it on profile; save, if not nil,
// persists the result (only the server's own identity may).
func (b *Book) Update(ctx context.Context, profile string, v Values, gate Gate, save Saver) (View, error) {
	if v.IsZero() && save == nil {
		return View{}, fault.Usagef("nothing to set: pass one or more of %s", strings.Join(Keys(), ", "))
	}
	if err := v.Validate(); err != nil {
		return View{}, err
	}
	if err := gate.check(v.Workflows); err != nil {
		return View{}, err
	}
	before := b.shown(ctx)
	if save != nil {
		if err := b.MayPersist(ctx); err != nil {
			return View{}, err
		}
	}
	ds, name, err := b.Resolve(ctx, profile)
	if err != nil {
		return View{}, err
	}
	if v, err = ds.Set(name, v); err != nil {
		return View{}, fault.Usage(err)
	}
	w := b.view(ctx, ds, name, v).since(before)
	if save != nil {
		if w.Persisted, err = save(w.Profile, v); err != nil {
			return View{}, fmt.Errorf("defaults set in memory, but not persisted: %w", err)
		}
	}
	return w, nil
}

// Clear removes keys (all when empty) from profile.
func (b *Book) Clear(ctx context.Context, profile string, keys []string) (View, error) {
	ds, name, err := b.Resolve(ctx, profile)
	if err != nil {
		return View{}, err
	}
	before := b.shown(ctx)
	v, err := ds.Clear(name, keys)
	if err != nil {
		return View{}, fault.Usage(err)
	}
	return b.view(ctx, ds, name, v).since(before), nil
}

// Use makes profile the caller's active one, refusing one whose
// workflows cannot be shown here.
func (b *Book) Use(ctx context.Context, profile string, gate Gate) (View, error) {
	ds := b.For(ctx)
	if err := ValidProfile(profile); err != nil {
		return View{}, fault.Usage(err)
	}
	if err := gate.check(ds.Get(profile).Workflows); err != nil {
		return View{}, fmt.Errorf("profile %s: %w", profile, err)
	}
	before := b.shown(ctx)
	if err := ds.Use(profile); err != nil {
		return View{}, fault.Usage(err)
	}
	return b.view(ctx, ds, "", ds.Get("")).since(before), nil
}

// shown is the workflows the caller's active profile shows.
func (b *Book) shown(ctx context.Context) []string { return b.For(ctx).Get("").Workflows }

// view describes profile of ds, holding v.
func (b *Book) view(ctx context.Context, ds *Store, profile string, v Values) View {
	active := ds.Active()
	if profile == "" {
		profile = active
	}
	v.Env = redact.Env(v.Env)
	return View{Profile: profile, Active: active, Values: v, Profiles: ds.Profiles(), Shown: b.shown(ctx)}
}

// since marks whether the shown workflows differ from before's.
func (w View) since(before []string) View {
	w.ShownChanged = !slices.Equal(before, w.Shown)
	return w
}

// Lines are "key: value" lines of v's set keys, in key order.
func (v Values) Lines() []string {
	m := v.Map()
	var lines []string
	for _, k := range Keys() {
		if val, ok := m[k]; ok {
			lines = append(lines, k+": "+showValue(val))
		}
	}
	return lines
}

// showValue writes a map as sorted k=v pairs and a list space-separated.
func showValue(v any) string {
	var parts []string
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			parts = append(parts, fmt.Sprintf("%s=%v", k, x[k]))
		}
	case []any:
		for _, e := range x {
			parts = append(parts, fmt.Sprint(e))
		}
	default:
		return fmt.Sprint(v)
	}
	return strings.Join(parts, " ")
}

// Text is the verdict line, one line per default in key order, the
// profiles, where they were written, and whether the caller's tool list
// changed.
func (w View) Text(verb string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (profile %s", verb, w.Profile)
	if w.Profile != w.Active {
		fmt.Fprintf(&b, "; active: %s", w.Active)
	}
	b.WriteString(")\n")
	lines := w.Values.Lines()
	if len(lines) == 0 {
		b.WriteString("no defaults set\n")
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	if len(w.Profiles) > 1 {
		fmt.Fprintf(&b, "profiles: %s\n", strings.Join(w.Profiles, ", "))
	}
	if w.Persisted != "" {
		fmt.Fprintf(&b, "written to %s\n", w.Persisted)
	}
	return b.String() + w.changedText()
}

// changedText says the caller's tool list changed to the workflows shown.
func (w View) changedText() string {
	switch {
	case !w.ShownChanged:
		return ""
	case len(w.Shown) == 0:
		return "tools/list changed: no more workflows shown\n"
	}
	return fmt.Sprintf("tools/list changed: the tools of workflows %s are listed for this session\n", strings.Join(w.Shown, ", "))
}
