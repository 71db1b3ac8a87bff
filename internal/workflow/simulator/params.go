package simulator

import "github.com/triage-dev/triage/internal/xcode"

// Default time limits.
const (
	bootTimeout    = xcode.BootTimeout
	installTimeout = xcode.InstallTimeout
)
