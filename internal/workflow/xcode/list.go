package xcode

import (
	"context"
	"fmt"
	"strings"

	"github.com/triage-dev/triage/internal/catalog"
	"github.com/triage-dev/triage/internal/workflow/apple"
	"github.com/triage-dev/triage/internal/workflow/wire"
	"github.com/triage-dev/triage/internal/xcode"
)

func (h *handler) listSchemes(ctx context.Context, c *catalog.Call, in apple.ContainerArgs) (catalog.Result[*xcode.List], error) {
	var zero catalog.Result[*xcode.List]
	l, err := xcode.ListSchemes(ctx, in.WorkspacePath, in.ProjectPath)
	if err != nil {
		return zero, apple.UsageOf(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d SCHEMES in %s %s: %s\n", len(l.Schemes), l.Kind, l.Name, strings.Join(l.Schemes, ", "))
	if len(l.Targets) > 0 {
		fmt.Fprintf(&b, "targets: %s\n", strings.Join(l.Targets, ", "))
	}
	if len(l.Configurations) > 0 {
		fmt.Fprintf(&b, "configurations: %s\n", strings.Join(l.Configurations, ", "))
	}
	if len(l.Schemes) == 0 {
		b.WriteString("no shared schemes: share one in Xcode (Manage Schemes > Shared)\n")
	} else {
		fmt.Fprintf(&b, "next: %s\n", nextDefaults(in, l.Schemes[0]))
	}
	return catalog.Result[*xcode.List]{Text: b.String(), Output: l}, nil
}

// nextDefaults is the call that makes scheme and its container the
// session's defaults.
func nextDefaults(in apple.ContainerArgs, scheme string) string {
	args := map[string]any{"scheme": scheme, "project_path": in.ProjectPath}
	if in.WorkspacePath != "" {
		args = map[string]any{"scheme": scheme, "workspace_path": in.WorkspacePath}
	}
	return catalog.NextCall("session_set_defaults", args)
}

type settingsParams struct {
	DestinationArgs
	Keys []string `json:"keys,omitempty" jsonschema:"settings to show (default: product location)"`
}

// SettingsOutput is what xcode_show_build_settings returns.
type SettingsOutput struct {
	Products []wire.Product               `json:"products" jsonschema:"each target's product: path, executable, bundle id, type"`
	Settings map[string]map[string]string `json:"settings" jsonschema:"target → the requested settings"`
}

func (h *handler) showBuildSettings(ctx context.Context, c *catalog.Call, in settingsParams) (catalog.Result[SettingsOutput], error) {
	req, err := in.request(ctx)
	if err != nil {
		return catalog.Result[SettingsOutput]{}, err
	}
	chosen, products, err := xcode.SchemeSettings(ctx, req, in.Keys)
	if err != nil {
		return catalog.Result[SettingsOutput]{}, apple.UsageOf(err)
	}
	out := SettingsOutput{Products: wire.ProductsOf(products), Settings: map[string]map[string]string{}}
	for _, t := range chosen {
		out.Settings[t.Target] = t.Values
	}
	return catalog.Result[SettingsOutput]{Text: renderSettings(req.Scheme, chosen, products, len(in.Keys) > 0), Output: out}, nil
}

// renderSettings lists each target's settings (and, when keys were asked
// for, those not set) and the apps.
func renderSettings(scheme string, chosen []xcode.ChosenSettings, products []xcode.Product, asked bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "BUILD SETTINGS of scheme %s: %d targets\n", scheme, len(chosen))
	for _, t := range chosen {
		fmt.Fprintf(&b, "%s:\n", t.Target)
		for _, k := range t.Keys {
			fmt.Fprintf(&b, "  %s = %s\n", k, t.Values[k])
		}
		if len(t.Missing) > 0 && asked {
			fmt.Fprintf(&b, "  (not set: %s)\n", strings.Join(t.Missing, ", "))
		}
	}
	for _, p := range products {
		if p.IsApp() {
			fmt.Fprintf(&b, "app: %s (bundle id %s)\n", p.Path, p.BundleID)
		}
	}
	return b.String()
}
