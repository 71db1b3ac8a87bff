package xcode

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/triage-dev/triage/internal/fault"
)

// CheckApp refuses an app path that is not an existing .app directory.
func CheckApp(p string) error {
	if p == "" {
		return fault.Usagef("app_path is required: the .app bundle to install")
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return fault.Usagef("app_path %q does not exist (build first; xcode_show_build_settings shows where the app is)", p)
	case !fi.IsDir() || filepath.Ext(strings.TrimRight(p, "/")) != ".app":
		return fault.Usagef("app_path %q is not an .app bundle", p)
	}
	return nil
}

// CheckMacApp checks the app a Mac launch names: by its path or by its
// bundle id, one of them.
func CheckMacApp(appPath, bundleID string) error {
	switch {
	case (appPath == "") == (bundleID == ""):
		return fault.Usagef("give one of app_path and bundle_id")
	case appPath != "":
		return CheckApp(appPath)
	}
	return CheckBundleID(bundleID)
}

// CheckEnv refuses an environment with a variable name that cannot be set.
func CheckEnv(env map[string]string) error {
	for k := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fault.Usagef("env: invalid variable name %q", k)
		}
	}
	return nil
}
