package xcode

import (
	"context"
	"fmt"
	"slices"
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
		args := map[string]any{"scheme": l.Schemes[0]}
		if in.WorkspacePath != "" {
			args["workspace_path"] = in.WorkspacePath
		} else {
			args["project_path"] = in.ProjectPath
		}
		fmt.Fprintf(&b, "next: %s\n", catalog.NextCall("session_set_defaults", args))
	}
	return catalog.Result[*xcode.List]{Text: b.String(), Output: l}, nil
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

// defaultKeys locate and identify the product.
var defaultKeys = []string{"PRODUCT_BUNDLE_IDENTIFIER", "TARGET_BUILD_DIR", "FULL_PRODUCT_NAME", "EXECUTABLE_PATH", "PLATFORM_NAME", "SDKROOT", "CONFIGURATION"}

func (h *handler) showBuildSettings(ctx context.Context, c *catalog.Call, in settingsParams) (catalog.Result[SettingsOutput], error) {
	var zero catalog.Result[SettingsOutput]
	req, err := in.request(ctx)
	if err != nil {
		return zero, err
	}
	if err := apple.UsageOf(xcode.CheckScheme(ctx, req.Workspace, req.Project, req.Scheme)); err != nil {
		return zero, err
	}
	ts, err := xcode.BuildSettings(ctx, req)
	if err != nil {
		return zero, apple.UsageOf(err)
	}
	keys := in.Keys
	if len(keys) == 0 {
		keys = defaultKeys
	}
	products := xcode.Products(ts)
	out := SettingsOutput{Products: wire.ProductsOf(products), Settings: map[string]map[string]string{}}
	var b strings.Builder
	fmt.Fprintf(&b, "BUILD SETTINGS of scheme %s: %d targets\n", req.Scheme, len(ts))
	for _, t := range ts {
		chosen := map[string]string{}
		var missing []string
		fmt.Fprintf(&b, "%s:\n", t.Target)
		for _, k := range keys {
			v, ok := t.BuildSettings[k]
			if !ok {
				missing = append(missing, k)
				continue
			}
			chosen[k] = v
			fmt.Fprintf(&b, "  %s = %s\n", k, v)
		}
		if len(missing) > 0 && len(in.Keys) > 0 {
			slices.Sort(missing)
			fmt.Fprintf(&b, "  (not set: %s)\n", strings.Join(missing, ", "))
		}
		out.Settings[t.Target] = chosen
	}
	for _, p := range products {
		if p.IsApp() {
			fmt.Fprintf(&b, "app: %s (bundle id %s)\n", p.Path, p.BundleID)
		}
	}
	return catalog.Result[SettingsOutput]{Text: b.String(), Output: out}, nil
}
