package xcode

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// TargetSettings are one target's build settings, as printed by
// `xcodebuild -showBuildSettings -json` (an array of these).
type TargetSettings struct {
	Target        string            `json:"target"`
	Action        string            `json:"action,omitempty"`
	BuildSettings map[string]string `json:"buildSettings"`
}

// ParseBuildSettings parses the output of `xcodebuild -showBuildSettings
// -json`.
func ParseBuildSettings(out []byte) ([]TargetSettings, error) {
	var ts []TargetSettings
	if err := decodeJSON("xcodebuild -showBuildSettings output", out, '[', &ts); err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, errors.New("parsing xcodebuild -showBuildSettings output: no targets")
	}
	for i, t := range ts {
		if t.Target == "" || t.BuildSettings == nil {
			return nil, fmt.Errorf("parsing xcodebuild -showBuildSettings output: entry %d has no target or no buildSettings", i)
		}
	}
	return ts, nil
}

// Product is what a target builds, located from its settings.
type Product struct {
	Target      string `json:"target"`
	Path        string `json:"path"`                   // TARGET_BUILD_DIR/FULL_PRODUCT_NAME
	Executable  string `json:"executable,omitempty"`   // TARGET_BUILD_DIR/EXECUTABLE_PATH
	BundleID    string `json:"bundle_id,omitempty"`    // PRODUCT_BUNDLE_IDENTIFIER
	ProductType string `json:"product_type,omitempty"` // com.apple.product-type.application, ...
	Platform    string `json:"platform,omitempty"`     // PLATFORM_NAME: iphonesimulator, macosx, ...
}

// IsApp reports whether the product is an application bundle.
func (p Product) IsApp() bool {
	return strings.HasPrefix(p.ProductType, "com.apple.product-type.application") || strings.HasSuffix(p.Path, ".app")
}

// Products lists the products of targets that have a build directory and a
// product name.
func Products(ts []TargetSettings) []Product {
	var out []Product
	for _, t := range ts {
		s := t.BuildSettings
		dir, name := s["TARGET_BUILD_DIR"], s["FULL_PRODUCT_NAME"]
		if dir == "" || name == "" {
			continue
		}
		p := Product{
			Target:      t.Target,
			Path:        filepath.Join(dir, name),
			BundleID:    s["PRODUCT_BUNDLE_IDENTIFIER"],
			ProductType: s["PRODUCT_TYPE"],
			Platform:    s["PLATFORM_NAME"],
		}
		if exe := s["EXECUTABLE_PATH"]; exe != "" {
			p.Executable = filepath.Join(dir, exe)
		}
		out = append(out, p)
	}
	return out
}

// ErrNoApp is wrapped by App's error when no target builds an application.
var ErrNoApp = errors.New("no application target")

// App returns the application product of the named target, or, with target
// "", the only application among the products; several are an error that
// lists them.
func App(ts []TargetSettings, target string) (Product, error) {
	var apps []Product
	for _, p := range Products(ts) {
		if target != "" && p.Target == target {
			if !p.IsApp() {
				return Product{}, fmt.Errorf("target %s builds %s, not an application: %w", target, filepath.Base(p.Path), ErrNoApp)
			}
			return p, nil
		}
		if p.IsApp() {
			apps = append(apps, p)
		}
	}
	names := make([]string, len(apps))
	for i, a := range apps {
		names[i] = a.Target
	}
	switch {
	case target != "":
		return Product{}, fmt.Errorf("target %q not in the build settings (applications: %s): %w", target, listOrNone(names), ErrNoApp)
	case len(apps) == 0:
		return Product{}, fmt.Errorf("finding the built app: %w among targets %s", ErrNoApp, listOrNone(targetNames(ts)))
	case len(apps) > 1:
		return Product{}, fmt.Errorf("finding the built app: several application targets (%s): name one", strings.Join(names, ", "))
	}
	return apps[0], nil
}

func targetNames(ts []TargetSettings) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Target
	}
	return out
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
